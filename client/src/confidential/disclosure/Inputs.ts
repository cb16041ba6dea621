// How a disclosure witness is laid out: noir_js's input map (named as main()'s parameters) and the public inputs in
// the circuit's order, which is the vector a verifier builds from the chain and its own request (§5.3 step 4).
import type { InputMap } from "@noir-lang/noir_js"
import { fieldToHex } from "../crypto/Field.ts"
import { coordinates, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import type { TransferCiphertext } from "../crypto/Decrypt.ts"
import type { Sealed } from "./Seal.ts"

export interface DisclosureWitness {
  readonly inputs: InputMap
  /** The public inputs in the circuit's order (without bb's pairing points). */
  readonly publicInputs: ReadonlyArray<bigint>
  /** What the recipient learns on opening the seal: the amount, or an aggregate's total. */
  readonly value: bigint
  readonly sealed: Sealed
}

export const hex = fieldToHex

export const xy = (p: GrumpkinPoint): readonly [bigint, bigint] => {
  const { x, y } = coordinates(p)
  return [x, y]
}

/** An event's recipient-channel fields in the order of lib's `Event` struct; all zero for an unused slot. */
export const eventFields = (event: TransferCiphertext | undefined): readonly [bigint, bigint, bigint, bigint] =>
  event === undefined ? [0n, 0n, 0n, 0n] : [...xy(event.ephemeralKey), event.sigma, event.vTilde]

export const eventInput = (fields: ReadonlyArray<bigint>): InputMap => ({
  r_e_x: hex(fields[0]!),
  r_e_y: hex(fields[1]!),
  sigma_e: hex(fields[2]!),
  v_tilde: hex(fields[3]!)
})

/** Names each of `values` after `names`, as hex fields. */
export const named = (names: ReadonlyArray<string>, values: ReadonlyArray<bigint>): InputMap =>
  Object.fromEntries(names.map((name, i) => [name, hex(values[i]!)]))

/** The seal's public half, R_disc then v_tilde_disc, as every circuit ends. */
export const sealFields = (sealed: Sealed): ReadonlyArray<bigint> => [...xy(sealed.rDisc), sealed.vTildeDisc]
