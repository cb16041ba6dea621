// The Poseidon2 sponge of circuits/lib/src/lib.nr (`sponge`, `poseidon_with_domain`, `sponge_squeeze_2`) over
// @zkpassport/poseidon2's t = 4 BN254 permutation, the one Noir's std::hash::poseidon2_permutation and Barretenberg use
// (the fixtures in circuits/lib/testdata pin it).
import { permute } from "@zkpassport/poseidon2"
import { Fr } from "./Field.ts"

const RATE = 3
const IV_BASE = 1n << 64n

/** Rate 3, capacity 1, IV = len·2^64 in the capacity lane; absorb three at a time, permute, squeeze state[0]. */
export const sponge = (inputs: ReadonlyArray<bigint>): bigint => {
  let state = [0n, 0n, 0n, BigInt(inputs.length) * IV_BASE]
  // A trailing partial block is permuted too; an empty input still permutes once (lib.nr's `M == 0` branch).
  const blocks = Math.max(1, Math.ceil(inputs.length / RATE))
  for (let block = 0; block < blocks; block++) {
    for (let lane = 0; lane < RATE; lane++) state[lane] = Fr.add(state[lane]!, inputs[block * RATE + lane] ?? 0n)
    state = permute(state)
  }
  return state[0]!
}

/** The single entry point: the domain tag is the first absorbed element (lib.nr poseidon_with_domain). */
export const poseidonWithDomain = (domain: bigint, inputs: ReadonlyArray<bigint>): bigint => sponge([domain, ...inputs])

/** One absorb of (d, s, sigma) and the first two lanes of the permuted state (lib.nr sponge_squeeze_2). */
export const spongeSqueeze2 = (domain: bigint, s: bigint, sigma: bigint): readonly [bigint, bigint] => {
  const state = permute([domain, s, sigma, 3n * IV_BASE])
  return [state[0]!, state[1]!]
}
