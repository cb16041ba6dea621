// The account holder's side of the ciphertexts, for rebuilding openings from events (DESIGN.md §5.2). A decrypted
// value outside [0, 2^127) means the ciphertext was not made for these keys: a real one never is.
import { DecryptionFailed } from "../Errors.ts"
import { AMOUNT_LIMIT } from "./Field.ts"
import type { GrumpkinPoint } from "./Grumpkin.ts"
import type { ConfidentialKeys } from "./Keys.ts"
import type { Opening } from "./Opening.ts"
import { deriveSpendR, deriveTxBlind, ecdh, unmaskAmount, unmaskBalance } from "./Primitives.ts"

const inRange = (value: bigint): bigint => {
  if (value >= AMOUNT_LIMIT) throw new DecryptionFailed({ message: "the ciphertext does not open under these keys" })
  return value
}

/** What a transfer event carries for its recipient (storage.rs emit_transfer: r_e_point, v_tilde, sigma). */
export interface TransferCiphertext {
  readonly ephemeralKey: GrumpkinPoint
  readonly vTilde: bigint
  readonly sigma: bigint
}

/** The incoming transfer's opening: s = ecdh(vk, R_e), amount = v_tilde - pad, blinding r_tx (transfer T5, T7, T9). */
export const decryptTransfer = (keys: ConfidentialKeys, { ephemeralKey, vTilde, sigma }: TransferCiphertext) => {
  if (ephemeralKey.is0()) throw new DecryptionFailed({ message: "the ephemeral key is the identity" })
  const s = ecdh(keys.vk, ephemeralKey)
  return { amount: inRange(unmaskAmount(vTilde, s, sigma)), blinding: deriveTxBlind(s, sigma) }
}

/** The balance a checkpoint (withdraw, sender-side transfer) encrypts in b_tilde (T12 / W7). */
export const decryptBalance = (keys: ConfidentialKeys, bTilde: bigint, sigma: bigint): bigint =>
  inRange(unmaskBalance(bTilde, keys.vk, sigma))

/** The spendable opening a checkpoint leaves: (decrypted balance, derive_spend_r(vk, sigma)) (T10-T11 / W5-W6). */
export const checkpointOpening = (keys: ConfidentialKeys, bTilde: bigint, sigma: bigint): Opening => ({
  value: decryptBalance(keys, bTilde, sigma),
  blinding: deriveSpendR(keys.vk, sigma)
})
