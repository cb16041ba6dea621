// The derivations of circuits/lib/src/lib.nr at 8af46e2c, one function each, under the same names in camelCase.
// Every Poseidon2 call goes through poseidonWithDomain, as lib.nr requires of the circuits.
import { InvalidWitness } from "../Errors.ts"
import { Fr } from "./Field.ts"
import { H, scalarMul, type GrumpkinPoint } from "./Grumpkin.ts"
import { poseidonWithDomain, spongeSqueeze2 } from "./Poseidon2.ts"

/** lib.nr `mod domain` (DESIGN_cont.md §13): the cross-language contract, first element of every absorb. */
export const Domain = {
  ADDRESS: 1n,
  VIEWING_KEY: 2n,
  DELEGATION_VIEWING_KEY: 3n,
  SPEND_RANDOMNESS: 4n,
  TX_BLINDING: 5n,
  TX_AMOUNT: 6n,
  ENCRYPTED_BALANCE: 7n,
  ENCRYPTED_ALLOWANCE: 8n,
  ALLOWANCE_RANDOMNESS: 9n,
  ESCROWED_DELEGATION_VIEWING_KEY: 10n,
  AUDITOR_SENDER: 11n,
  AUDITOR_RECIPIENT: 12n,
  ECDH_SHARED_SECRET: 13n
} as const

/** vk = Poseidon2(VIEWING_KEY, sk, addr_f): bound to one contract. */
export const vkFromSk = (sk: bigint, addrF: bigint): bigint => poseidonWithDomain(Domain.VIEWING_KEY, [sk, addrF])

/** PVK = vk·H. */
export const pvkFromVk = (vk: bigint): GrumpkinPoint => scalarMul(vk, H)

export const dvkFromVkOp = (vk: bigint, opI: bigint): bigint =>
  poseidonWithDomain(Domain.DELEGATION_VIEWING_KEY, [vk, opI])

/**
 * s = Poseidon2(ECDH_SHARED_SECRET, S.x, S.y) with S = scalar·P. A zero scalar or the identity would make S the
 * identity and every derived pad public (the circuits' r_e != 0, assert_on_curve_non_identity): refused here.
 */
export const ecdh = (scalar: bigint, point: GrumpkinPoint): bigint => {
  if (scalar === 0n) throw new InvalidWitness({ reason: "ZeroEphemeral", message: "ECDH scalar is zero" })
  if (point.is0()) throw new InvalidWitness({ reason: "IdentityPoint", message: "ECDH point is the identity" })
  const { x, y } = scalarMul(scalar, point).toAffine()
  return poseidonWithDomain(Domain.ECDH_SHARED_SECRET, [x, y])
}

/** r' = Poseidon2(SPEND_RANDOMNESS, vk, sigma): the blinding of the new spendable commitment. */
export const deriveSpendR = (vk: bigint, sigma: bigint): bigint => poseidonWithDomain(Domain.SPEND_RANDOMNESS, [vk, sigma])

export const deriveAllowR = (dvk: bigint, sigmaA: bigint): bigint =>
  poseidonWithDomain(Domain.ALLOWANCE_RANDOMNESS, [dvk, sigmaA])

/** r_tx = Poseidon2(TX_BLINDING, s, sigma): the transfer commitment's blinding, recoverable by the recipient. */
export const deriveTxBlind = (s: bigint, sigma: bigint): bigint => poseidonWithDomain(Domain.TX_BLINDING, [s, sigma])

const amountPad = (s: bigint, sigma: bigint) => poseidonWithDomain(Domain.TX_AMOUNT, [s, sigma])
const balancePad = (vk: bigint, sigma: bigint) => poseidonWithDomain(Domain.ENCRYPTED_BALANCE, [vk, sigma])
const allowancePad = (dvk: bigint, sigmaA: bigint) => poseidonWithDomain(Domain.ENCRYPTED_ALLOWANCE, [dvk, sigmaA])

/** v_tilde = v_tx + Poseidon2(TX_AMOUNT, s, sigma), in Fr. */
export const encryptAmount = (vTx: bigint, s: bigint, sigma: bigint): bigint => Fr.add(vTx, amountPad(s, sigma))
export const unmaskAmount = (vTilde: bigint, s: bigint, sigma: bigint): bigint => Fr.sub(vTilde, amountPad(s, sigma))

/** b_tilde = v_new + Poseidon2(ENCRYPTED_BALANCE, vk, sigma), in Fr. */
export const encryptBalance = (vNew: bigint, vk: bigint, sigma: bigint): bigint => Fr.add(vNew, balancePad(vk, sigma))
export const unmaskBalance = (bTilde: bigint, vk: bigint, sigma: bigint): bigint => Fr.sub(bTilde, balancePad(vk, sigma))

export const encryptAllowance = (vA: bigint, dvk: bigint, sigmaA: bigint): bigint => Fr.add(vA, allowancePad(dvk, sigmaA))
export const unmaskAllowance = (aTilde: bigint, dvk: bigint, sigmaA: bigint): bigint =>
  Fr.sub(aTilde, allowancePad(dvk, sigmaA))

/** escrowed_dvk = dvk + Poseidon2(ESCROWED_DELEGATION_VIEWING_KEY, s, op_i). */
export const encryptEscDvk = (dvk: bigint, s: bigint, opI: bigint): bigint =>
  Fr.add(dvk, poseidonWithDomain(Domain.ESCROWED_DELEGATION_VIEWING_KEY, [s, opI]))

/** Recipient-auditor masks (lane 0: amount, lane 1: r_tx), transfer T_a2. */
export const auditorRecipientMasks = (sAR: bigint, sigma: bigint): readonly [bigint, bigint] =>
  spongeSqueeze2(Domain.AUDITOR_RECIPIENT, sAR, sigma)

/** Sender-auditor masks (lane 0: amount, lane 1: balance), transfer T_a6 and withdraw W_a3. */
export const auditorSenderMasks = (sAS: bigint, sigma: bigint): readonly [bigint, bigint] =>
  spongeSqueeze2(Domain.AUDITOR_SENDER, sAS, sigma)

/** b_tilde_aud_s = v_new + SpongeSqueeze_2(AUDITOR_SENDER, s, sigma)[1] (lib.nr encrypt_auditor_sender_balance). */
export const encryptAuditorSenderBalance = (vNew: bigint, sAS: bigint, sigma: bigint): bigint =>
  Fr.add(vNew, auditorSenderMasks(sAS, sigma)[1])
