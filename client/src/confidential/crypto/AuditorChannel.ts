// The auditor's side of the two auditor channels (OZ stellar-contracts DESIGN_cont.md §8.1 at 8af46e2c): with its
// secret k (K_aud = k·H), the auditor recomputes S = k·R_e = r_e·K_aud, s = Poseidon2(ECDH_SHARED_SECRET, S.x, S.y),
// and removes the sponge's masks that lib.nr's encryptions added. The inverses of Primitives.ts's auditor masks,
// held to OZ's lib/testdata vectors by test/unit/audit-report.test.ts.
import { Fr } from "./Field.ts"
import type { GrumpkinPoint } from "./Grumpkin.ts"
import { auditorRecipientMasks, auditorSenderMasks, ecdh } from "./Primitives.ts"

/** s_a = ECDH(k, R_e): the same scalar the prover derived as ECDH(r_e, K_aud), since k·(r_e·H) = r_e·(k·H). */
export const auditorSharedSecret = (auditorSecret: bigint, ephemeralKey: GrumpkinPoint): bigint => ecdh(auditorSecret, ephemeralKey)

/** (v_tilde_aud_s, b_tilde_aud_s) → (v_tx, v_new): lane 0 unmasks the amount, lane 1 the balance (T_a7, T_a8). */
export const unmaskAuditorSender = (vTildeAudS: bigint, bTildeAudS: bigint, sAS: bigint, sigma: bigint) => {
  const [mV, mB] = auditorSenderMasks(sAS, sigma)
  return { amount: Fr.sub(vTildeAudS, mV), balance: Fr.sub(bTildeAudS, mB) }
}

/** The inverse of lib.nr encrypt_auditor_sender_balance: a withdrawal carries the balance lane alone (W_a3, W_a4). */
export const unmaskAuditorSenderBalance = (bTildeAudS: bigint, sAS: bigint, sigma: bigint): bigint =>
  Fr.sub(bTildeAudS, auditorSenderMasks(sAS, sigma)[1])

/** (v_tilde_aud_r, r_tilde_aud_r) → (v_tx, r_tx) for the recipient's auditor (T_a3, T_a4; O_a3, O_a4). */
export const unmaskAuditorRecipient = (vTildeAudR: bigint, rTildeAudR: bigint, sAR: bigint, sigma: bigint) => {
  const [mV, mR] = auditorRecipientMasks(sAR, sigma)
  return { amount: Fr.sub(vTildeAudR, mV), blinding: Fr.sub(rTildeAudR, mR) }
}
