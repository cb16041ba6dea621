import { useEffect, useState } from "react"

/**
 * For work that lives in this tab only (keys derived from a wallet's signature, a run in progress): while `running`,
 * leaving or reloading the tab asks first (the browser's own prompt), and a mark kept in sessionStorage — which a
 * reload keeps and closing the tab drops — tells the page after a reload that a run of `name` was cut short.
 * `interrupted` is that mark, read as the page opens and forgotten when a new run starts.
 */
export const useKeepTabOpen = (name: string, running: boolean): { readonly interrupted: boolean } => {
  const key = `running:${name}`
  const [interrupted, setInterrupted] = useState(() => sessionStorage.getItem(key) !== null)
  useEffect(() => {
    if (!running) return
    setInterrupted(false)
    sessionStorage.setItem(key, new Date().toISOString())
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault()
      // What browsers before the standard's preventDefault() (Chromium < 119) need to ask.
      event.returnValue = ""
    }
    window.addEventListener("beforeunload", ask)
    return () => {
      window.removeEventListener("beforeunload", ask)
      // The run ended (finished, stopped, failed, or stopped because its page was left within the console): no
      // reload cut it short.
      sessionStorage.removeItem(key)
    }
  }, [key, running])
  return { interrupted }
}
