// The Withdraw circuit's witness (circuits/withdraw/src/main.nr at 8af46e2c), the public inputs in the order
// storage.rs withdraw() assembles them, and the WithdrawPayload it decodes.
import { concatBytes, numberToBytesBE } from "@noble/curves/utils.js"
import { InvalidWitness } from "../Errors.ts"
import { fieldToBytes, fieldToHex } from "../crypto/Field.ts"
import { H, commit, pointInputs, pointToBytes, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"
import { drawRandomness, requireAmount, requireKey, requireOpening, type Opening, type Randomness } from "../crypto/Opening.ts"
import * as P from "../crypto/Primitives.ts"

export const WITHDRAW_PARAMETERS = [
  "sk", "v", "r", "r_e",
  "c_spend_x", "c_spend_y", "y_x", "y_y", "addr_f", "k_aud_s_x", "k_aud_s_y", "a",
  "c_spend_new_x", "c_spend_new_y", "sigma", "b_tilde", "r_e_x", "r_e_y", "b_tilde_aud_s"
] as const

export type WithdrawInputs = { readonly [K in (typeof WITHDRAW_PARAMETERS)[number]]: string }

/** storage.rs WithdrawPayload, field for field (the names are the XDR map's keys): points 64 bytes, fields 32. */
export interface WithdrawPayload {
  readonly c_spend_new: Uint8Array
  readonly b_tilde: Uint8Array
  readonly r_e_point: Uint8Array
  readonly sigma: Uint8Array
  readonly b_tilde_aud_s: Uint8Array
}

export interface WithdrawRequest extends Randomness {
  readonly keys: ConfidentialKeys
  /** The opening of the current spendable commitment. */
  readonly spendable: Opening
  /** K_aud_s: the account's auditor key. */
  readonly senderAuditorKey: GrumpkinPoint
  /** The public amount `a` (withdraw()'s i128 argument). */
  readonly amount: bigint
}

export interface WithdrawWitness {
  readonly inputs: WithdrawInputs
  readonly publicInputs: Uint8Array
  readonly payload: WithdrawPayload
  /** The spendable opening once the withdrawal lands: (v - a, derive_spend_r(vk, sigma)). */
  readonly newSpendable: Opening
}

/** storage.rs append_amount: the i128 big-endian in the low 16 bytes of 32 (a canonical Field for a >= 0). */
export const amountBytes = (amount: bigint): Uint8Array =>
  concatBytes(new Uint8Array(16), numberToBytesBE(requireAmount(amount), 16))

export const withdrawWitness = (request: WithdrawRequest): WithdrawWitness => {
  const { keys, amount } = request
  const { value, blinding } = requireOpening(request.spendable)
  requireAmount(amount)
  if (amount > value) throw new InvalidWitness({ reason: "AmountExceedsBalance", message: "amount exceeds the balance" })
  const kAudS = requireKey(request.senderAuditorKey, "sender auditor key")
  const { ephemeral: rE, sigma } = drawRandomness(request)

  const vNew = value - amount
  const cSpend = commit(value, blinding) // W3
  const rNew = P.deriveSpendR(keys.vk, sigma) // W5
  const cSpendNew = commit(vNew, rNew) // W6
  const bTilde = P.encryptBalance(vNew, keys.vk, sigma) // W7
  const rEPoint = scalarMul(rE, H) // W_a1
  const bTildeAudS = P.encryptAuditorSenderBalance(vNew, P.ecdh(rE, kAudS), sigma) // W_a2 - W_a4

  const payload: WithdrawPayload = {
    c_spend_new: pointToBytes(cSpendNew),
    b_tilde: fieldToBytes(bTilde),
    r_e_point: pointToBytes(rEPoint),
    sigma: fieldToBytes(sigma),
    b_tilde_aud_s: fieldToBytes(bTildeAudS)
  }
  // storage.rs withdraw(), "PI order (DESIGN §7.5)": C_spend, Y, addr_f, K_aud_s, a, C_spend', sigma, b_tilde, R_e,
  // b_tilde_aud_s. The first four the contract loads itself; `a` is its amount argument (append_amount).
  const publicInputs = concatBytes(
    pointToBytes(cSpend), pointToBytes(keys.spendingPublicKey), fieldToBytes(keys.addrF), pointToBytes(kAudS),
    amountBytes(amount), payload.c_spend_new, payload.sigma, payload.b_tilde, payload.r_e_point, payload.b_tilde_aud_s
  )
  const hex = fieldToHex
  const inputs: WithdrawInputs = {
    sk: hex(keys.sk), v: hex(value), r: hex(blinding), r_e: hex(rE),
    ...pointInputs("c_spend", cSpend), ...pointInputs("y", keys.spendingPublicKey), addr_f: hex(keys.addrF),
    ...pointInputs("k_aud_s", kAudS), a: hex(amount), ...pointInputs("c_spend_new", cSpendNew),
    sigma: hex(sigma), b_tilde: hex(bTilde), ...pointInputs("r_e", rEPoint), b_tilde_aud_s: hex(bTildeAudS)
  }

  return { inputs, publicInputs, payload, newSpendable: { value: vNew, blinding: rNew } }
}
