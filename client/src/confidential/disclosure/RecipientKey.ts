// The disclosure recipient's side before any proof (SELECTIVE_DISCLOSURE.md §2.1, §12 step 1): a Grumpkin key pair
// (r_R, P_R = r_R·H) kept by the recipient alone, and requests that name P_R, a fresh nonce ν and what is asked.
// Browser-safe.
import { Schema } from "effect"
import { H, pointFromBytes, pointToBytes, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import { sampleScalar, secureRandom, type RandomSource } from "../crypto/Scalar.ts"
import type { DisclosureRequest } from "./Seal.ts"
import {
  type Ask, bytesOfHex, type DisclosureRequestFile, FieldHex, fieldHex, fieldOfHex, hexOf, PointHex, REQUEST_VERSION
} from "./Exchange.ts"

export interface RecipientKey {
  /** r_R: never leaves the recipient (its browser's storage, or its own file). */
  readonly secret: bigint
  /** P_R. */
  readonly publicKey: GrumpkinPoint
}

/** A random r_R (nonzero Fr) and r_R·H. */
export const makeRecipientKey = (random: RandomSource = secureRandom): RecipientKey => {
  const secret = sampleScalar(random, true)
  return { secret, publicKey: scalarMul(secret, H) }
}

/** The key's file form: the secret and the public key it must reproduce (a file edited by hand is refused). */
export const RecipientKeyFile = Schema.Struct({
  version: Schema.Literal(1),
  kind: Schema.Literal("disclosure-recipient-key"),
  secret: FieldHex,
  publicKey: PointHex
}).pipe(Schema.filter((f) => fieldOfHex(f.secret) !== 0n && hexOf(pointToBytes(scalarMul(fieldOfHex(f.secret), H))) === f.publicKey, {
  message: () => "the public key is not the secret's"
}))
export type RecipientKeyFile = typeof RecipientKeyFile.Type

export const recipientKeyFile = (key: RecipientKey): RecipientKeyFile => ({
  version: 1,
  kind: "disclosure-recipient-key",
  secret: fieldHex(key.secret),
  publicKey: hexOf(pointToBytes(key.publicKey))
})

export const recipientKeyOfFile = (file: RecipientKeyFile): RecipientKey => ({
  secret: fieldOfHex(file.secret),
  publicKey: pointFromBytes(bytesOfHex(file.publicKey))
})

export interface NewRequest {
  readonly key: RecipientKey
  readonly ask: Ask
  readonly contract: string
  readonly networkPassphrase: string
  readonly label?: string
  readonly random?: RandomSource
}

/** A request with a fresh nonce ν (a nonzero Fr element: the verifier refuses any nonce answered before). */
export const makeRequest = ({ key, ask, contract, networkPassphrase, label, random = secureRandom }: NewRequest): DisclosureRequestFile => ({
  version: REQUEST_VERSION,
  recipientKey: hexOf(pointToBytes(key.publicKey)),
  nonce: fieldHex(sampleScalar(random, true)),
  ask,
  contract,
  networkPassphrase,
  ...(label === undefined ? {} : { label })
})

/** The (P_R, ν) a witness seals to. */
export const sealTarget = (request: DisclosureRequestFile): DisclosureRequest => ({
  recipientKey: pointFromBytes(bytesOfHex(request.recipientKey)),
  nonce: fieldOfHex(request.nonce)
})
