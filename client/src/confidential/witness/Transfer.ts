// The Transfer circuit's witness (circuits/transfer/src/main.nr at 8af46e2c), the public inputs in the order
// storage.rs confidential_transfer() assembles them, and the TransferPayload it decodes.
import { concatBytes } from "@noble/curves/utils.js"
import { InvalidWitness } from "../Errors.ts"
import { Fr, fieldToBytes, fieldToHex } from "../crypto/Field.ts"
import { H, commit, pointInputs, pointToBytes, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"
import { drawRandomness, requireAmount, requireKey, requireOpening, type Opening, type Randomness } from "../crypto/Opening.ts"
import * as P from "../crypto/Primitives.ts"

export const TRANSFER_PARAMETERS = [
  "sk", "v", "r", "v_tx", "r_e",
  "c_spend_x", "c_spend_y", "y_x", "y_y", "pvk_b_x", "pvk_b_y", "addr_f", "k_aud_r_x", "k_aud_r_y",
  "k_aud_s_x", "k_aud_s_y", "c_spend_new_x", "c_spend_new_y", "c_tx_x", "c_tx_y", "r_e_x", "r_e_y",
  "v_tilde", "b_tilde", "sigma", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "b_tilde_aud_s"
] as const

export type TransferInputs = { readonly [K in (typeof TRANSFER_PARAMETERS)[number]]: string }

/** storage.rs TransferPayload, field for field (the names are the XDR map's keys): points 64 bytes, fields 32. */
export interface TransferPayload {
  readonly c_spend_new: Uint8Array
  readonly c_tx: Uint8Array
  readonly r_e_point: Uint8Array
  readonly v_tilde: Uint8Array
  readonly b_tilde: Uint8Array
  readonly sigma: Uint8Array
  readonly v_tilde_aud_r: Uint8Array
  readonly r_tilde_aud_r: Uint8Array
  readonly v_tilde_aud_s: Uint8Array
  readonly b_tilde_aud_s: Uint8Array
}

export interface TransferRequest extends Randomness {
  readonly keys: ConfidentialKeys
  /** The opening of the sender's current spendable commitment. */
  readonly spendable: Opening
  /** PVK_B, the recipient's viewing public key as the contract stores it. */
  readonly recipientViewingKey: GrumpkinPoint
  /** K_aud_r: the recipient's auditor key. */
  readonly recipientAuditorKey: GrumpkinPoint
  /** K_aud_s: the sender's auditor key. */
  readonly senderAuditorKey: GrumpkinPoint
  readonly amount: bigint
}

export interface TransferWitness {
  readonly inputs: TransferInputs
  readonly publicInputs: Uint8Array
  readonly payload: TransferPayload
  /** The sender's spendable opening once the transfer lands: (v - v_tx, derive_spend_r(vk, sigma)). */
  readonly newSpendable: Opening
  /** What the recipient will recover: (v_tx, r_tx), the opening of C_tx. */
  readonly transferOpening: Opening
  /**
   * The sender's receipt of it: r_e and σ, from which (with the amount and PVK_B) R_e and v_tilde are recomputed
   * (Receipt.ts) — what lets the sender's organization check the ciphertext on chain against the amount it approved.
   */
  readonly receipt: { readonly ephemeral: bigint; readonly sigma: bigint }
}

export const transferWitness = (request: TransferRequest): TransferWitness => {
  const { keys, amount } = request
  const { value, blinding } = requireOpening(request.spendable)
  requireAmount(amount)
  if (amount > value) throw new InvalidWitness({ reason: "AmountExceedsBalance", message: "amount exceeds the balance" })
  const pvkB = requireKey(request.recipientViewingKey, "recipient viewing key")
  const kAudR = requireKey(request.recipientAuditorKey, "recipient auditor key")
  const kAudS = requireKey(request.senderAuditorKey, "sender auditor key")
  const { ephemeral: rE, sigma } = drawRandomness(request)

  const vNew = value - amount
  const cSpend = commit(value, blinding) // T3
  const rNew = P.deriveSpendR(keys.vk, sigma) // T10
  const cSpendNew = commit(vNew, rNew) // T11
  const bTilde = P.encryptBalance(vNew, keys.vk, sigma) // T12
  const rEPoint = scalarMul(rE, H) // T6
  const s = P.ecdh(rE, pvkB) // T5
  const rTx = P.deriveTxBlind(s, sigma) // T7
  const cTx = commit(amount, rTx) // T8
  const vTilde = P.encryptAmount(amount, s, sigma) // T9
  const [mVR, mRR] = P.auditorRecipientMasks(P.ecdh(rE, kAudR), sigma) // T_a1, T_a2
  const [mVS, mBS] = P.auditorSenderMasks(P.ecdh(rE, kAudS), sigma) // T_a5, T_a6
  const f = {
    vTildeAudR: Fr.add(amount, mVR), // T_a3
    rTildeAudR: Fr.add(rTx, mRR), // T_a4
    vTildeAudS: Fr.add(amount, mVS), // T_a7
    bTildeAudS: Fr.add(vNew, mBS) // T_a8
  }

  const payload: TransferPayload = {
    c_spend_new: pointToBytes(cSpendNew),
    c_tx: pointToBytes(cTx),
    r_e_point: pointToBytes(rEPoint),
    v_tilde: fieldToBytes(vTilde),
    b_tilde: fieldToBytes(bTilde),
    sigma: fieldToBytes(sigma),
    v_tilde_aud_r: fieldToBytes(f.vTildeAudR),
    r_tilde_aud_r: fieldToBytes(f.rTildeAudR),
    v_tilde_aud_s: fieldToBytes(f.vTildeAudS),
    b_tilde_aud_s: fieldToBytes(f.bTildeAudS)
  }
  // storage.rs confidential_transfer(), "PI order (DESIGN §7.6)": C_spend_A, Y_A, PVK_B, addr_f, K_aud_r, K_aud_s,
  // C_spend', C_tx, R_e, v_tilde, b_tilde, sigma, v_tilde_aud_r, r_tilde_aud_r, v_tilde_aud_s, b_tilde_aud_s.
  // The first six the contract loads from its own storage; the rest come from the payload.
  const publicInputs = concatBytes(
    pointToBytes(cSpend), pointToBytes(keys.spendingPublicKey), pointToBytes(pvkB), fieldToBytes(keys.addrF),
    pointToBytes(kAudR), pointToBytes(kAudS),
    payload.c_spend_new, payload.c_tx, payload.r_e_point, payload.v_tilde, payload.b_tilde, payload.sigma,
    payload.v_tilde_aud_r, payload.r_tilde_aud_r, payload.v_tilde_aud_s, payload.b_tilde_aud_s
  )

  const hex = fieldToHex
  const inputs: TransferInputs = {
    sk: hex(keys.sk), v: hex(value), r: hex(blinding), v_tx: hex(amount), r_e: hex(rE),
    ...pointInputs("c_spend", cSpend), ...pointInputs("y", keys.spendingPublicKey), ...pointInputs("pvk_b", pvkB),
    addr_f: hex(keys.addrF), ...pointInputs("k_aud_r", kAudR), ...pointInputs("k_aud_s", kAudS),
    ...pointInputs("c_spend_new", cSpendNew), ...pointInputs("c_tx", cTx), ...pointInputs("r_e", rEPoint),
    v_tilde: hex(vTilde), b_tilde: hex(bTilde), sigma: hex(sigma),
    v_tilde_aud_r: hex(f.vTildeAudR), r_tilde_aud_r: hex(f.rTildeAudR),
    v_tilde_aud_s: hex(f.vTildeAudS), b_tilde_aud_s: hex(f.bTildeAudS)
  }

  return {
    inputs,
    publicInputs,
    payload,
    newSpendable: { value: vNew, blinding: rNew },
    transferOpening: { value: amount, blinding: rTx },
    receipt: { ephemeral: rE, sigma }
  }
}
