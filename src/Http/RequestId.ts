import type { Headers } from "@effect/platform"
import { randomUUID } from "node:crypto"

/** A caller's (or proxy's) id is kept when it is a short plain token, so that its logs and ours correlate. */
const SANE = /^[A-Za-z0-9._:-]{1,64}$/

export const REQUEST_ID_HEADER = "x-request-id"

export const requestIdOf = (headers: Headers.Headers): string => {
  const incoming = headers[REQUEST_ID_HEADER]
  return typeof incoming === "string" && SANE.test(incoming) ? incoming : randomUUID()
}
