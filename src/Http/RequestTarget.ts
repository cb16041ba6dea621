import { type TextIssue, textProblem } from "../Domain/Text.ts"

/** `scheme://authority` at the start of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i

/**
 * The origin form (`/path?query`) of a request target: an absolute-form target (`http://host/path`, as sent to
 * proxies) is routed exactly as its path would be. `undefined` for anything else (`*`, authority form). Platform
 * defect: its router (find-my-way-ts) strips only a lower-case `http(s)://host/`, so `HTTP://host/path` is a 404; no
 * upstream issue found (find-my-way fixed its own in delvedor/find-my-way#451). The route labels need the path anyway:
 * the platform tells no middleware which route matched. test/unit/platform-defects.test.ts fails once it routes it.
 */
export const originForm = (target: string): string | undefined => {
  if (target.startsWith("/")) return target
  const authority = ABSOLUTE_FORM.exec(target)
  if (authority === null) return undefined
  const rest = target.slice(authority[0].length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

export const splitTarget = (target: string) => {
  const q = target.indexOf("?")
  return q === -1 ? { path: target, query: "" } : { path: target.slice(0, q), query: target.slice(q + 1) }
}

interface Template {
  readonly path: string
  readonly segments: ReadonlyArray<string>
  /** Each static segment lower-cased (the router matches them in any case); undefined for a parameter. */
  readonly lowered: ReadonlyArray<string | undefined>
  /** The label in metrics and logs: secrets and ids replaced by `:token`, `:hash`, `:id`. */
  readonly label: string
}

const labelOf = (segment: string) =>
  !segment.startsWith(":") ? segment : /token/i.test(segment) ? ":token" : /hash/i.test(segment) ? ":hash" : ":id"

const params = (segments: ReadonlyArray<string>) => segments.filter((s) => s.startsWith(":")).length

const decode = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export interface RouteMatch {
  /** The route label (`/invites/:token/accept`), or `unmatched`: never a raw path, which may carry a secret. */
  readonly route: string
  /** Decoded path segments, with the name of the parameter each one fills when the route is known. */
  readonly segments: ReadonlyArray<{ readonly name: string | undefined; readonly value: string }>
}

export const UNMATCHED = "unmatched"

/** The router's own limit (find-my-way's `maxParamLength`): a longer parameter matches no route. */
const MAX_PARAM_LENGTH = 100

/** Which route template a path falls under, whatever the method (the label is the same for every method). */
export interface RouteTable {
  readonly match: (path: string) => RouteMatch
}

/**
 * The route table of `paths` (route templates, `/batches/:id/payouts`), matched as the platform's router matches:
 * duplicate and trailing slashes ignored, static segments in any case, fewer parameters first so that a static
 * segment wins over a parameter (`/contractors/bulk`). The composition root makes it from the Api.
 */
export const routeTable = (paths: Iterable<string>): RouteTable => {
  const templates: ReadonlyArray<Template> = [...new Set(paths)]
    .map((path) => {
      const segments = path.split("/").slice(1)
      return {
        path,
        segments,
        lowered: segments.map((s) => s.startsWith(":") ? undefined : s.toLowerCase()),
        label: `/${segments.map(labelOf).join("/")}`
      }
    })
    .sort((a, b) => params(a.segments) - params(b.segments))
  // Matched on every request: a path written as a static route is looked up at once; otherwise only the templates
  // of the path's length are tried, static segments lower-cased once.
  const bySize = new Map<number, Array<Template>>()
  const statics = new Map<string, RouteMatch>()
  for (const template of templates) {
    const same = bySize.get(template.segments.length) ?? []
    same.push(template)
    bySize.set(template.segments.length, same)
    if (params(template.segments) === 0 && !statics.has(template.path)) {
      statics.set(template.path, { route: template.label, segments: template.segments.map((value) => ({ name: undefined, value })) })
    }
  }
  return { match: (path) => statics.get(path) ?? matchIn(bySize, path) }
}

const matchIn = (bySize: ReadonlyMap<number, ReadonlyArray<Template>>, path: string): RouteMatch => {
  const collapsed = path.includes("//") ? path.replace(/\/{2,}/g, "/") : path
  const trimmed = collapsed.length > 1 && collapsed.endsWith("/") ? collapsed.slice(0, -1) : collapsed
  const split = trimmed.split("/").slice(1)
  const segments = trimmed.includes("%") ? split.map(decode) : split
  const lowered = segments.map((segment) => segment.toLowerCase())
  for (const template of bySize.get(segments.length) ?? []) {
    const fits = template.lowered.every((t, i) =>
      t === undefined ? segments[i]!.length > 0 && segments[i]!.length <= MAX_PARAM_LENGTH : t === lowered[i]
    )
    if (fits) {
      return {
        route: template.label,
        segments: segments.map((value, i) => {
          const t = template.segments[i]!
          return { name: t.startsWith(":") ? t.slice(1) : undefined, value }
        })
      }
    }
  }
  return { route: UNMATCHED, segments: segments.map((value) => ({ name: undefined, value })) }
}

/** Path parameters and query parameters are text the service may store or search: the same rules as bodies. */
export const findUrlTextIssue = (match: RouteMatch, query: string): TextIssue | undefined => {
  for (const { name, value } of match.segments) {
    const problem = textProblem(value)
    if (problem !== undefined) return { field: name ?? "path", problem }
  }
  if (query === "") return undefined
  for (const [key, value] of new URLSearchParams(query)) {
    const problem = textProblem(key) ?? textProblem(value)
    if (problem !== undefined) return { field: textProblem(key) === undefined ? key : "query", problem }
  }
  return undefined
}
