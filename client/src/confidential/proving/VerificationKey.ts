// An UltraHonk verification key of bb 0.87 in its two forms, compared by content.
//
// Binary (what UltraHonkBackend.getVerificationKey({ keccak: true }) returns, 1,760 bytes, and what the Soroban
// verifier NethermindEth/rs-soroban-ultrahonk parses in crates/ultrahonk-soroban-verifier/src/utils.rs
// `load_vk_from_bytes`): circuit_size, log_circuit_size, num_public_inputs, pub_inputs_offset as big-endian u64,
// then 27 G1 points of 64 bytes (x ‖ y, big-endian) in bb's PrecomputedEntities order.
//
// Fields (OZ's circuits/vks/<name>.vk.json, `bb write_vk --output_format fields`, OpenZeppelin/stellar-contracts
// at 8af46e2c): circuit_size, num_public_inputs, pub_inputs_offset, the pairing points' start index, then each point
// as 4 field elements: x low 136 bits, x high bits, y low 136 bits, y high bits. OZ wrote them without
// `--oracle_hash keccak`, so its key is UltraFlavor's; the commitments depend on the circuit and the CRS only, so
// the contents compare all the same.
import { Effect } from "effect"
import { VersionMismatch } from "../Errors.ts"

export const PAIRING_POINTS = 16
export const VK_COMMITMENTS = 27
export const VK_BINARY_BYTES = 4 * 8 + VK_COMMITMENTS * 64
const VK_FIELDS = 4 + VK_COMMITMENTS * 4
const LIMB_BITS = 136n
const LIMB_MASK = (1n << LIMB_BITS) - 1n

export interface Point {
  readonly x: bigint
  readonly y: bigint
}

export interface VerificationKey {
  readonly circuitSize: number
  readonly logCircuitSize: number
  /** Including bb's 16 pairing-point fields. */
  readonly numPublicInputs: number
  readonly pubInputsOffset: number
  readonly commitments: ReadonlyArray<Point>
}

const bytesToBigint = (bytes: Uint8Array): bigint => bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n)

const bigintToBytes = (value: bigint, length: number): Uint8Array => {
  const out = new Uint8Array(length)
  for (let i = length - 1, v = value; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn)
  return out
}

/** Thrown by the parsers (and failed with by the decoders): a key of another layout is another bb version's. */
const malformed = (form: string, why: string) =>
  new VersionMismatch({
    subject: `verification key (${form} form)`,
    expected: "bb 0.87's UltraHonk layout",
    actual: why,
    message: `not a bb 0.87 UltraHonk verification key in ${form} form: ${why}`
  })

const checkHeader = (vk: VerificationKey, form: string): VerificationKey => {
  if (vk.circuitSize !== 2 ** vk.logCircuitSize || vk.logCircuitSize < 1 || vk.logCircuitSize > 28) throw malformed(form, "circuit size")
  if (vk.numPublicInputs < PAIRING_POINTS || vk.pubInputsOffset > vk.circuitSize) throw malformed(form, "public inputs")
  return vk
}

export const parseBinaryVk = (bytes: Uint8Array): VerificationKey => {
  if (bytes.length !== VK_BINARY_BYTES) throw malformed("binary", `${bytes.length} bytes, not ${VK_BINARY_BYTES}`)
  const word = (i: number) => Number(bytesToBigint(bytes.subarray(i * 8, i * 8 + 8)))
  const commitments = Array.from({ length: VK_COMMITMENTS }, (_, i) => {
    const at = 32 + i * 64
    return { x: bytesToBigint(bytes.subarray(at, at + 32)), y: bytesToBigint(bytes.subarray(at + 32, at + 64)) }
  })
  return checkHeader({ circuitSize: word(0), logCircuitSize: word(1), numPublicInputs: word(2), pubInputsOffset: word(3), commitments }, "binary")
}

export const toBinaryVk = (vk: VerificationKey): Uint8Array => {
  const out = new Uint8Array(VK_BINARY_BYTES)
  ;[vk.circuitSize, vk.logCircuitSize, vk.numPublicInputs, vk.pubInputsOffset].forEach((v, i) => out.set(bigintToBytes(BigInt(v), 8), i * 8))
  vk.commitments.forEach((p, i) => {
    out.set(bigintToBytes(p.x, 32), 32 + i * 64)
    out.set(bigintToBytes(p.y, 32), 64 + i * 64)
  })
  return out
}

export const parseFieldsVk = (json: unknown): VerificationKey => {
  if (!Array.isArray(json) || json.length !== VK_FIELDS || !json.every((f) => typeof f === "string" && /^0x[0-9a-f]{1,64}$/i.test(f))) {
    throw malformed("fields", `not an array of ${VK_FIELDS} hex field elements`)
  }
  const fields = (json as ReadonlyArray<string>).map((f) => BigInt(f))
  const at = (i: number) => fields[i] ?? 0n
  const coordinate = (i: number) => {
    if (at(i) > LIMB_MASK) throw malformed("fields", `limb ${i} is wider than ${LIMB_BITS} bits`)
    return at(i) | (at(i + 1) << LIMB_BITS)
  }
  const commitments = Array.from({ length: VK_COMMITMENTS }, (_, i) => ({ x: coordinate(4 + i * 4), y: coordinate(6 + i * 4) }))
  const circuitSize = Number(at(0))
  const numPublicInputs = Number(at(1))
  if (at(3) !== BigInt(numPublicInputs - PAIRING_POINTS)) throw malformed("fields", "the pairing points are not the last public inputs")
  return checkHeader({ circuitSize, logCircuitSize: Math.log2(circuitSize), numPublicInputs, pubInputsOffset: Number(at(2)), commitments }, "fields")
}

const hex = (v: bigint) => `0x${v.toString(16).padStart(64, "0")}`

/** The form `bb write_vk --output_format fields` writes. */
export const toFieldsVk = (vk: VerificationKey): ReadonlyArray<string> => [
  hex(BigInt(vk.circuitSize)),
  hex(BigInt(vk.numPublicInputs)),
  hex(BigInt(vk.pubInputsOffset)),
  hex(BigInt(vk.numPublicInputs - PAIRING_POINTS)),
  ...vk.commitments.flatMap((p) => [p.x & LIMB_MASK, p.x >> LIMB_BITS, p.y & LIMB_MASK, p.y >> LIMB_BITS].map(hex))
]

const asMismatch = (error: unknown): VersionMismatch =>
  error instanceof VersionMismatch ? error : malformed("unknown", "unreadable")

export const decodeBinaryVk = (bytes: Uint8Array): Effect.Effect<VerificationKey, VersionMismatch> =>
  Effect.try({ try: () => parseBinaryVk(bytes), catch: asMismatch })

export const decodeFieldsVk = (json: unknown): Effect.Effect<VerificationKey, VersionMismatch> =>
  Effect.try({ try: () => parseFieldsVk(json), catch: asMismatch })

/** The first difference between two keys, or undefined when they are the same key. */
export const vkDifference = (ours: VerificationKey, theirs: VerificationKey): { readonly what: string; readonly ours: string; readonly theirs: string } | undefined => {
  const header = [
    ["circuit size", ours.circuitSize, theirs.circuitSize],
    ["public inputs", ours.numPublicInputs, theirs.numPublicInputs],
    ["public-input offset", ours.pubInputsOffset, theirs.pubInputsOffset]
  ] as const
  for (const [what, a, b] of header) if (a !== b) return { what, ours: String(a), theirs: String(b) }
  for (let i = 0; i < VK_COMMITMENTS; i++) {
    const a = ours.commitments[i]
    const b = theirs.commitments[i]
    if (a?.x !== b?.x || a?.y !== b?.y) return { what: `commitment ${i}`, ours: a === undefined ? "none" : hex(a.x), theirs: b === undefined ? "none" : hex(b.x) }
  }
  return undefined
}

/** Fails when the deployment's key is not the one our artifact implies (OZ SDK.md §8.2). */
export const assertSameVk = Effect.fn("Confidential.assertSameVk")(function* (
  circuit: string,
  version: string,
  ours: VerificationKey,
  theirs: VerificationKey
) {
  const difference = vkDifference(ours, theirs)
  if (difference === undefined) return
  return yield* new VersionMismatch({
    subject: `${circuit} verification key (${difference.what})`,
    expected: difference.theirs,
    actual: difference.ours,
    message: `the ${circuit} verification key of ${version} differs from the deployment's in its ${difference.what}`
  })
})
