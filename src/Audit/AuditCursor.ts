import { Effect } from "effect"
import { InvalidRequest } from "../Domain/Errors.ts"

const BASE64URL = /^[A-Za-z0-9_-]{1,40}$/
const SEQ = /^[1-9][0-9]{0,15}$/

/** Opaque cursor of a page of the audit trail: the `seq` of its last row, the order the trail is read in. */
export const encodeAuditCursor = (seq: number): string => Buffer.from(String(seq)).toString("base64url")

/** The `seq` a cursor holds; anything this service did not hand out (alphabet, digits, range) is 400. */
export const decodeAuditCursor = (cursor: string): Effect.Effect<number, InvalidRequest> => {
  const text = BASE64URL.test(cursor) ? Buffer.from(cursor, "base64url").toString() : ""
  const seq = SEQ.test(text) ? Number(text) : Number.NaN
  return Number.isSafeInteger(seq) ? Effect.succeed(seq) : Effect.fail(new InvalidRequest({ error: "invalid cursor" }))
}
