import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from "react"

/** Where the service serves the console; every page's URL is under it, so each is bookmarkable. */
export const BASE = "/app"

const CHANGE = "console:navigate"

const subscribe = (onChange: () => void) => {
  window.addEventListener("popstate", onChange)
  window.addEventListener(CHANGE, onChange)
  return () => {
    window.removeEventListener("popstate", onChange)
    window.removeEventListener(CHANGE, onChange)
  }
}

const current = () => window.location.pathname + window.location.search

/** The page's path below `/app` (`/batches/…`), with its query. */
export const useLocation = () => {
  const full = useSyncExternalStore(subscribe, current)
  const url = new URL(full, window.location.origin)
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) : url.pathname
  return { path: path === "" ? "/" : path.replace(/\/+$/, "") || "/", query: url.searchParams }
}

export const href = (to: string) => `${BASE}${to}`

export const navigate = (to: string, options: { readonly replace?: boolean } = {}) => {
  if (options.replace === true) window.history.replaceState(null, "", href(to))
  else window.history.pushState(null, "", href(to))
  window.dispatchEvent(new Event(CHANGE))
  window.scrollTo(0, 0)
}

/** `pattern` (`/batches/:id`) against `path`: its parameters, decoded, or undefined. */
export const match = (pattern: string, path: string): Record<string, string> | undefined => {
  const want = pattern.split("/")
  const got = path.split("/")
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (const [i, segment] of want.entries()) {
    const value = got[i]!
    if (segment.startsWith(":")) {
      if (value === "") return undefined
      try {
        params[segment.slice(1)] = decodeURIComponent(value)
      } catch {
        return undefined
      }
    } else if (segment !== value) return undefined
  }
  return params
}

/** A link inside the console: a real `<a href>` (new tab, copy link), followed without reloading the page. */
export const Link = ({ to, onClick, ...props }: { readonly to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) => {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(to)
  }
  return <a href={href(to)} onClick={follow} {...props} />
}
