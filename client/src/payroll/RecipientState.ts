// A disclosure recipient's records beside its key file (`<key>.requests.json`, mode 0600): each request as it was
// issued — the verifier takes P_R, ν and the ask from these, never from what a holder sends back — and whether it was
// answered, so a nonce is accepted once and a nonce never issued is refused (SELECTIVE_DISCLOSURE.md §5.3 step 0).
import { Either, Schema } from "effect"
import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { DisclosureRequestFile } from "../confidential/disclosure/Exchange.ts"
import type { AnsweredNonces } from "../confidential/disclosure/Verify.ts"

const Issued = Schema.Struct({
  request: DisclosureRequestFile,
  issuedAt: Schema.String,
  answeredAt: Schema.optional(Schema.String)
})
export type Issued = typeof Issued.Type

const RecipientState = Schema.Struct({ version: Schema.Literal(1), issued: Schema.Array(Issued) })
type RecipientState = typeof RecipientState.Type
const decode = Schema.decodeUnknownEither(Schema.parseJson(RecipientState))

export const statePath = (keyFile: string): string => `${keyFile}.requests.json`

/** The requests issued with the key in `keyFile` (none when the state file does not exist yet). */
export const readIssued = (keyFile: string): ReadonlyArray<Issued> => {
  let text: string
  try {
    text = readFileSync(statePath(keyFile), "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    throw error
  }
  return Either.match(decode(text), {
    onLeft: (e) => {
      throw new Error(`${statePath(keyFile)} is not a recipient's request list: ${e.message.split("\n")[0]}`)
    },
    onRight: (state) => state.issued
  })
}

const write = (keyFile: string, issued: ReadonlyArray<Issued>) => {
  const path = statePath(keyFile)
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify({ version: 1, issued } satisfies RecipientState, null, 2), { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
}

export const recordIssued = (keyFile: string, request: DisclosureRequestFile, at: Date = new Date()) =>
  write(keyFile, [...readIssued(keyFile), { request, issuedAt: at.toISOString() }])

/** The verifier's record of answered nonces, kept in the state file. */
export const answeredNonces = (keyFile: string): AnsweredNonces => ({
  has: async (nonce) => readIssued(keyFile).some((i) => i.request.nonce === nonce && i.answeredAt !== undefined),
  add: async (nonce) => {
    const at = new Date().toISOString()
    write(keyFile, readIssued(keyFile).map((i) => (i.request.nonce === nonce && i.answeredAt === undefined ? { ...i, answeredAt: at } : i)))
  }
})
