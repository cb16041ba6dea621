import { randomBytes, randomUUID } from "node:crypto"
import type { ConformanceDocument, Operation, Parameter } from "./ConformanceDocument.ts"
import type { RawRequest } from "./ConformanceHttp.ts"
import type { ValidRequest } from "./ConformanceRequests.ts"

/** One request to send: what kind it is, and the statuses a correct service may answer (none: any declared one). */
export interface Probe {
  readonly kind: string
  readonly request: RawRequest
  readonly expect: ReadonlyArray<number>
}

/**
 * Sessions other than the valid request's: two the service must refuse (signed with another key; signed right but
 * expired) and a real one of a wallet in no organization, which any declared answer may meet.
 */
export interface OtherSessions {
  readonly forged: string
  readonly expired: string
  readonly stranger: string
}

const MAX_BODY_BYTES = 256 * 1024
const OVERSIZE = MAX_BODY_BYTES + 44 * 1024

type Parts = Pick<ValidRequest, "token" | "params" | "query" | "json">

/** The request as sent on the wire: path parameters and the query percent-encoded, a JSON body with its type. */
export const toRaw = (operation: Operation, parts: Parts, override: Partial<RawRequest> = {}): RawRequest => {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(parts.params?.[name] ?? ""))
  const query = new URLSearchParams(Object.entries(parts.query ?? {})).toString()
  const headers: Record<string, string> = {}
  if (parts.token !== undefined) headers.authorization = `Bearer ${parts.token}`
  if (parts.json !== undefined) headers["content-type"] = "application/json"
  return {
    method: operation.method,
    target: query === "" ? path : `${path}?${query}`,
    headers,
    ...(parts.json === undefined ? {} : { body: JSON.stringify(parts.json) }),
    ...override,
    ...(override.headers === undefined ? {} : { headers: { ...headers, ...override.headers } })
  }
}

const withoutKey = <A>(record: Readonly<Record<string, A>>, key: string) => Object.fromEntries(Object.entries(record).filter(([k]) => k !== key))

/** A value of the parameter's declared shape that names nothing. */
const unknownValue = (parameter: Parameter) =>
  parameter.schema?.format === "uuid" ? randomUUID() : parameter.schema?.pattern?.includes("{64}") ? randomBytes(32).toString("hex") : randomBytes(12).toString("hex")

/** Values the parameter's declared schema (or any URL text rule) refuses. */
const badValues = (parameter: Parameter): ReadonlyArray<readonly [string, string]> => {
  const schema = parameter.schema ?? {}
  return [
    ["NUL character", "a\u0000b"],
    ...(schema.format !== undefined || schema.pattern !== undefined ? [["not its pattern", "not-a-valid-value!"] as const] : []),
    ...(schema.maxLength !== undefined ? [[`over maxLength ${schema.maxLength}`, "a".repeat(schema.maxLength + 1)] as const] : []),
    ...(schema.enum !== undefined ? [["not in its enum", "no-such-value"] as const] : [])
  ]
}

/**
 * A JSON-RPC operation (POST /stellar-rpc) answers a body it cannot read in JSON-RPC, over 200 (a -32700 or -32600
 * error), as Stellar RPC does; its size, media type and session are refused over HTTP all the same.
 */
const answersInJsonRpc = (operation: Operation) =>
  (operation.responses["200"]?.content?.["application/json"]?.schema as { readonly $ref?: string } | undefined)?.$ref ===
    "#/components/schemas/StellarRpcResponse"

/**
 * The invalid requests derived from a valid one: refused sessions (401), broken bodies (400, 413, 415), unknown ids
 * (404) and parameters out of their declared shape (400). Every kind applies where the document says it can.
 */
export const invalidProbes = (document: ConformanceDocument, operation: Operation, valid: ValidRequest, tokens: OtherSessions): ReadonlyArray<Probe> => {
  const probes: Array<Probe> = []
  const add = (kind: string, parts: Parts, expect: number | ReadonlyArray<number>, override: Partial<RawRequest> = {}) =>
    probes.push({ kind, request: toRaw(operation, parts, override), expect: typeof expect === "number" ? [expect] : expect })
  if (operation.security.length > 0) {
    const { token: _, ...anonymous } = valid
    add("no bearer token", anonymous, 401)
    add("malformed bearer token", { ...valid, token: "not-a-session-token" }, 401)
    add("bearer token signed with another key", { ...valid, token: tokens.forged }, 401)
    add("expired bearer token", { ...valid, token: tokens.expired }, 401)
    add("Basic credentials", anonymous, 401, { headers: { authorization: "Basic dXNlcjpwYXNz" } })
    add("a stranger's session (no organization)", { ...valid, token: tokens.stranger }, [])
  }
  // Refused by Node's HTTP parser before any route: still the answer a client of this operation gets.
  add("malformed HTTP (Content-Length with Transfer-Encoding: chunked)", valid, 400, {
    headers: { "transfer-encoding": "chunked" },
    body: "{}"
  })
  add("request head over 16 KiB", valid, 431, { headers: { "x-padding": "a".repeat(17 * 1024) } })
  const unreadable = answersInJsonRpc(operation) ? 200 : 400
  if (operation.method !== "GET") {
    const json = { "content-type": "application/json" }
    add("malformed JSON body", valid, unreadable, { headers: json, body: "{\"name\": " })
    add("JSON nested 65 deep", valid, unreadable, { headers: json, body: `${"[".repeat(65)}${"]".repeat(65)}` })
    add("NUL character in a JSON string", valid, unreadable, { headers: json, body: "{\"name\": \"a\\u0000b\"}" })
    add("wrong media type (text/plain)", valid, 415, { headers: { "content-type": "text/plain" }, body: JSON.stringify(valid.json ?? {}) })
    add("body over 256 KiB (Content-Length)", valid, 413, { headers: json, body: JSON.stringify({ pad: "a".repeat(OVERSIZE) }) })
    add("body over 256 KiB (chunked)", valid, 413, { headers: json, chunkedBytes: OVERSIZE })
  }
  if (operation.requestBody !== undefined) {
    const json = { "content-type": "application/json" }
    const properties = Object.keys(((operation.requestBody.content?.["application/json"]?.schema ?? {}) as { properties?: object }).properties ?? {})
    const shapes: ReadonlyArray<readonly [string, unknown]> = [
      ["wrong body shape: an array", []],
      ["wrong body shape: every property a boolean", Object.fromEntries(properties.map((p) => [p, true]))]
    ]
    for (const [kind, body] of shapes) {
      if (document.requestProblems(operation, body).length > 0) add(kind, valid, unreadable, { headers: json, body: JSON.stringify(body) })
    }
    if (operation.requestBody.required === true) add("empty body", valid, unreadable, { headers: json, body: "" })
  }
  for (const parameter of operation.parameters) {
    if (parameter.in === "path") {
      add(`unknown ${parameter.name}`, { ...valid, params: { ...valid.params, [parameter.name]: unknownValue(parameter) } }, 404)
      for (const [what, value] of badValues(parameter)) {
        // A path segment the router cannot match (find-my-way stops at 100 characters) names nothing: 404 is as right.
        add(`path parameter ${parameter.name}: ${what}`, { ...valid, params: { ...valid.params, [parameter.name]: value } }, [400, 404])
      }
    }
    if (parameter.in === "query") {
      if (parameter.required === true) add(`query parameter ${parameter.name} missing`, { ...valid, query: withoutKey(valid.query ?? {}, parameter.name) }, 400)
      for (const [what, value] of badValues(parameter)) {
        add(`query parameter ${parameter.name}: ${what}`, { ...valid, query: { ...valid.query, [parameter.name]: value } }, 400)
      }
    }
  }
  return probes
}
