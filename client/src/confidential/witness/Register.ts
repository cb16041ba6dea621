// The Register circuit's witness (circuits/register/src/main.nr at 8af46e2c) and what storage.rs register() takes.
import { concatBytes } from "@noble/curves/utils.js"
import { fieldToBytes, fieldToHex } from "../crypto/Field.ts"
import { pointInputs, pointToBytes } from "../crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"

/** main()'s parameters in declaration order; the public ones are the verifier's public inputs, in that order. */
export const REGISTER_PARAMETERS = ["sk", "y_x", "y_y", "pvk_x", "pvk_y", "addr_f", "_acct_f"] as const

export type RegisterInputs = { readonly [K in (typeof REGISTER_PARAMETERS)[number]]: string }

/** storage.rs RegisterPayload: points as 64 bytes. */
export interface RegisterPayload {
  readonly y: Uint8Array
  readonly pvk: Uint8Array
}

export interface RegisterWitness {
  readonly inputs: RegisterInputs
  readonly publicInputs: Uint8Array
  readonly payload: RegisterPayload
}

/** R1-R5 hold by construction of the keys (sk in [1, r), vk != 0, Y = sk·H, PVK = vk·H). */
export const registerWitness = (keys: ConfidentialKeys): RegisterWitness => {
  const payload = { y: pointToBytes(keys.spendingPublicKey), pvk: pointToBytes(keys.viewingPublicKey) }
  return {
    inputs: {
      sk: fieldToHex(keys.sk),
      ...pointInputs("y", keys.spendingPublicKey),
      ...pointInputs("pvk", keys.viewingPublicKey),
      addr_f: fieldToHex(keys.addrF),
      _acct_f: fieldToHex(keys.acctF)
    },
    // storage.rs register(): Y, PVK, addr_f, acct_f; the contract computes acct_f from the caller's address itself.
    publicInputs: concatBytes(payload.y, payload.pvk, fieldToBytes(keys.addrF), fieldToBytes(keys.acctF)),
    payload
  }
}
