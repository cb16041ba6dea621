import { useEffect, useState } from "react"

/** A duration as a step's clock shows it: "4.2 s". */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** Re-renders every `ms` while `on`: the running step's clock. */
export const useTicking = (on: boolean, ms: number) => {
  const [, setNow] = useState(0)
  useEffect(() => {
    if (!on) return undefined
    const timer = setInterval(() => setNow(performance.now()), ms)
    return () => clearInterval(timer)
  }, [on, ms])
}
