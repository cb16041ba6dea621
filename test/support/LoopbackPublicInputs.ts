// The public inputs the token hands its verifier, assembled exactly as OpenZeppelin/stellar-contracts at 8af46e2c
// does (packages/tokens/src/confidential/storage.rs: `register`, `withdraw`, `confidential_transfer`, and
// `append_point` / `append_field` / `append_amount`): 32-byte big-endian chunks, concatenated in the order each
// function appends them, every chunk checked canonical (< r) first — NonCanonicalEncoding (3514) otherwise.
import { FIELD_BYTES, POINT_BYTES } from "./ConfidentialTokenVersion.ts"

/** BN254's scalar field order r (the `Bn254Fr` modulus; Grumpkin's base field). */
const R = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n

const toBigInt = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`)

/** `Grumpkin::is_canonical_field` / `is_canonical_point`: every 32-byte chunk below r. */
export const canonical = (bytes: Uint8Array): boolean => {
  for (let i = 0; i < bytes.length; i += FIELD_BYTES) if (toBigInt(bytes.subarray(i, i + FIELD_BYTES)) >= R) return false
  return true
}

export class NonCanonical extends Error {}

class Blob {
  readonly #chunks: Array<Uint8Array> = []
  point(p: Uint8Array): this {
    if (p.length !== POINT_BYTES || !canonical(p)) throw new NonCanonical()
    this.#chunks.push(p)
    return this
  }
  field(f: Uint8Array): this {
    if (f.length !== FIELD_BYTES || !canonical(f)) throw new NonCanonical()
    this.#chunks.push(f)
    return this
  }
  /** `append_amount`: an i128 (non-negative here) as a 32-byte big-endian field. */
  amount(a: bigint): this {
    this.#chunks.push(Buffer.from(a.toString(16).padStart(64, "0"), "hex"))
    return this
  }
  bytes(): Uint8Array {
    return Buffer.concat(this.#chunks)
  }
}

/** storage.rs `register`: Y, PVK, addr_f, acct_f. */
export const registerInputs = (p: { y: Uint8Array; pvk: Uint8Array; addrF: Uint8Array; acctF: Uint8Array }) =>
  new Blob().point(p.y).point(p.pvk).field(p.addrF).field(p.acctF).bytes()

/** storage.rs `withdraw`: C_spend, Y, addr_f, K_aud_s, a, C_spend', sigma, b_tilde, R_e, b_tilde_aud_s. */
export const withdrawInputs = (p: {
  spendable: Uint8Array; y: Uint8Array; addrF: Uint8Array; kAudS: Uint8Array; amount: bigint
  payload: ReadonlyMap<string, Uint8Array>
}) =>
  new Blob().point(p.spendable).point(p.y).field(p.addrF).point(p.kAudS).amount(p.amount)
    .point(p.payload.get("c_spend_new")!).field(p.payload.get("sigma")!).field(p.payload.get("b_tilde")!)
    .point(p.payload.get("r_e_point")!).field(p.payload.get("b_tilde_aud_s")!).bytes()

/**
 * storage.rs `confidential_transfer`: C_spend_A, Y_A, PVK_B, addr_f, K_aud_r, K_aud_s, C_spend', C_tx, R_e, v_tilde,
 * b_tilde, sigma, v_tilde_aud_r, r_tilde_aud_r, v_tilde_aud_s, b_tilde_aud_s.
 */
export const transferInputs = (p: {
  spendable: Uint8Array; y: Uint8Array; pvkB: Uint8Array; addrF: Uint8Array; kAudR: Uint8Array; kAudS: Uint8Array
  payload: ReadonlyMap<string, Uint8Array>
}) => {
  const f = (name: string) => p.payload.get(name)!
  return new Blob().point(p.spendable).point(p.y).point(p.pvkB).field(p.addrF).point(p.kAudR).point(p.kAudS)
    .point(f("c_spend_new")).point(f("c_tx")).point(f("r_e_point")).field(f("v_tilde")).field(f("b_tilde"))
    .field(f("sigma")).field(f("v_tilde_aud_r")).field(f("r_tilde_aud_r")).field(f("v_tilde_aud_s"))
    .field(f("b_tilde_aud_s")).bytes()
}
