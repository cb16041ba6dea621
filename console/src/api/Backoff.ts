import { useEffect, useState } from "react"

const FIRST_DELAY = 1_000
/** The longest wait between two reads of something live (a page shows a change at most this long after it). */
export const MAX_DELAY = 30_000

/** A wait before reading something again, and what it looked like when the wait was chosen. */
export interface Wait {
  readonly print: string | undefined
  readonly delay: number
}

/** The wait after a read: a second once `print` changed, else double the last one, up to `max` ms. */
export const nextWait = (previous: Wait | undefined, print: string | undefined, max = MAX_DELAY): Wait =>
  previous !== undefined && previous.print === print
    ? { print, delay: Math.min(previous.delay * 2, max) }
    : { print, delay: FIRST_DELAY }

/**
 * How often to read again something others may still change: every second after it changed (its `print` differs),
 * doubling while it does not, up to 30 s; never while it is not `live`.
 */
export const useBackoff = (print: string | undefined, updatedAt: number, live: boolean): number | false => {
  const [state, setState] = useState<Wait>({ print, delay: FIRST_DELAY })
  useEffect(() => {
    setState((previous) => nextWait(previous, print))
  }, [print, updatedAt])
  return live ? state.delay : false
}
