// What travels between a disclosure recipient and a holder (SELECTIVE_DISCLOSURE.md §5.2, §12): the request the
// recipient issues (its key P_R, a fresh nonce ν, what it asks) and the bundle the holder answers with — circuit_id,
// event references, proof, disclosure ciphertext, and nothing else: every other public input the verifier rebuilds
// from the chain (§5.3). JSON files, and the request also as a link's fragment. Browser-safe.
import { StrKey } from "@stellar/stellar-sdk"
import { Either, Schema } from "effect"
import { isCanonical } from "../crypto/Field.ts"
import { pointFromBytes } from "../crypto/Grumpkin.ts"

const hexBytes = (length: number) => Schema.String.pipe(Schema.pattern(new RegExp(`^[0-9a-f]{${length * 2}}$`)))
const hexToBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16))

/** A Grumpkin point as the token stores one: x‖y, 64 bytes, in lowercase hex; on the curve and not the identity. */
export const PointHex = hexBytes(64).pipe(
  Schema.filter((hex) => {
    try {
      return !pointFromBytes(hexToBytes(hex)).is0()
    } catch {
      return false
    }
  }, { message: () => "a Grumpkin point (x‖y, 64 bytes hex), on the curve and not the identity" })
)
/** An Fr element, 32 bytes big-endian in lowercase hex, below the modulus. */
export const FieldHex = hexBytes(32).pipe(
  Schema.filter((hex) => isCanonical(BigInt(`0x${hex}`)), { message: () => "a canonical field element (32 bytes hex)" })
)
const AccountAddress = Schema.String.pipe(Schema.filter(StrKey.isValidEd25519PublicKey, { message: () => "a G… account" }))
const ContractAddress = Schema.String.pipe(Schema.filter(StrKey.isValidContract, { message: () => "a C… contract" }))
const Instant = Schema.String.pipe(Schema.filter((s) => !Number.isNaN(Date.parse(s)), { message: () => "an ISO 8601 date-time" }))

/** §5.1: one transfer-family event; op_index is always 0 (a Soroban transaction has one operation). */
export const EventRef = Schema.Struct({
  txHash: hexBytes(32),
  opIndex: Schema.Literal(0),
  eventIndex: Schema.Int.pipe(Schema.between(0, 10_000))
})
export type EventRef = typeof EventRef.Type

/** Events whose ledger closed at or after `start` and before `end`. */
export const Period = Schema.Struct({ start: Instant, end: Instant }).pipe(
  Schema.filter((p) => Date.parse(p.start) < Date.parse(p.end), { message: () => "the period ends after it starts" })
)
export type Period = typeof Period.Type

export const Ask = Schema.Union(
  /** One payout: disclosed by its recipient (D-recipient), its sender (D-sender) or an auditor of it (D-auditor). */
  Schema.Struct({ kind: Schema.Literal("event"), ref: EventRef }),
  /** What `from` paid the holder over `period` (the aggregate D-recipient). */
  Schema.Struct({ kind: Schema.Literal("received-total"), from: AccountAddress, period: Period }),
  /** What the holder paid `to` over `period` (the aggregate D-sender). */
  Schema.Struct({ kind: Schema.Literal("sent-total"), to: AccountAddress, period: Period })
)
export type Ask = typeof Ask.Type

export const REQUEST_VERSION = 1
export const BUNDLE_VERSION = 1

export const DisclosureRequestFile = Schema.Struct({
  version: Schema.Literal(REQUEST_VERSION),
  recipientKey: PointHex,
  nonce: FieldHex,
  ask: Ask,
  contract: ContractAddress,
  networkPassphrase: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  label: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
})
export type DisclosureRequestFile = typeof DisclosureRequestFile.Type

/**
 * circuit_id (§5.2): the circuit, and for D-auditor the channel it opens (the same circuit proves either, under the
 * δ_aud the verifier supplies).
 */
export const CircuitId = Schema.Literal(
  "disclose_recipient", "disclose_recipient_8", "disclose_recipient_24",
  "disclose_sender", "disclose_sender_8", "disclose_sender_24",
  "disclose_auditor_sender", "disclose_auditor_recipient"
)
export type CircuitId = typeof CircuitId.Type

export const Bundle = Schema.Struct({
  version: Schema.Literal(BUNDLE_VERSION),
  circuitId: CircuitId,
  refs: Schema.NonEmptyArray(EventRef).pipe(Schema.maxItems(24)),
  /** The UltraHonk proof (PROOF_BYTES), base64. */
  proof: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9+/]+=*$/), Schema.maxLength(20_000)),
  rDisc: PointHex,
  vDisc: FieldHex
})
export type Bundle = typeof Bundle.Type

const parse = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(Schema.parseJson(schema))
  return (text: string) => Either.mapLeft(decode(text), (e) => e.message)
}
/** A request file's text; Left: why it is not one. */
export const parseRequest = parse(DisclosureRequestFile)
export const parseBundle = parse(Bundle)
export const requestJson = (request: DisclosureRequestFile): string => JSON.stringify(request, null, 2)
export const bundleJson = (bundle: Bundle): string => JSON.stringify(bundle, null, 2)

const toBase64Url = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
const fromBase64Url = (b64: string) => new TextDecoder().decode(Uint8Array.from(atob(b64.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)))

/** `<page>#request=<base64url JSON>`: the fragment never reaches a server. */
export const requestLink = (page: string, request: DisclosureRequestFile): string => `${page}#request=${toBase64Url(JSON.stringify(request))}`

/** The request in a link's fragment (`#request=…`), or in a whole link; Left: why not. */
export const requestFromLink = (link: string): Either.Either<DisclosureRequestFile, string> => {
  const match = /(?:^|[#&])request=([A-Za-z0-9_-]+)/.exec(link)
  if (match?.[1] === undefined) return Either.left("the link carries no request")
  let text: string
  try {
    text = fromBase64Url(match[1])
  } catch {
    return Either.left("the link's request is not base64url")
  }
  return parseRequest(text)
}

export const hexOf = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
export const bytesOfHex = hexToBytes
export const fieldOfHex = (hex: string): bigint => BigInt(`0x${hex}`)
export const fieldHex = (v: bigint): string => v.toString(16).padStart(64, "0")
export const base64Of = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))
export const bytesOfBase64 = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
