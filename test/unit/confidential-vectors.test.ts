import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { fieldFromHex, fieldToHex } from "../../client/src/confidential/crypto/Field.ts"
import { G, H, commit, coordinates, scalarMul, type GrumpkinPoint } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { poseidonWithDomain, spongeSqueeze2 } from "../../client/src/confidential/crypto/Poseidon2.ts"
import * as P from "../../client/src/confidential/crypto/Primitives.ts"

// OZ's cross-language fixtures (circuits/lib/testdata at 8af46e2c), read rather than transcribed (SDK.md §6.1): every
// output of every file must come out byte for byte. Inputs are those the file names; README.md documents them.
const DIR = fileURLToPath(new URL("../fixtures/oz-8af46e2c/testdata/", import.meta.url))

type Json = string | number | boolean | null | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Inputs = { readonly [key: string]: Json }
interface Fixture {
  readonly primitive: string
  readonly vectors: ReadonlyArray<{ readonly inputs: Inputs; readonly output: Json }>
}

const text = (inputs: Inputs, name: string): string => {
  const value = inputs[name]
  if (typeof value !== "string") throw new Error(`input ${name} is missing`)
  return value
}
const field = (inputs: Inputs, name: string): bigint => fieldFromHex(text(inputs, name), name)
const point = (inputs: Inputs, name: string): GrumpkinPoint => {
  const named: Record<string, GrumpkinPoint> = { G, H }
  const p = named[text(inputs, name)]
  if (p === undefined) throw new Error(`input ${name} names no generator`)
  return p
}
const hexPoint = (p: GrumpkinPoint) => {
  const { x, y } = coordinates(p)
  return { x: fieldToHex(x), y: fieldToHex(y) }
}

/** Each primitive, computed by the client from the fixture's named inputs, in the fixture's output shape. */
const PRIMITIVES: Record<string, (inputs: Inputs) => Json> = {
  commit: (i) => hexPoint(commit(field(i, "value"), field(i, "randomness"))),
  scalar_mul: (i) => hexPoint(scalarMul(field(i, "scalar"), point(i, "point"))),
  pvk_from_vk: (i) => hexPoint(P.pvkFromVk(field(i, "vk"))),
  ecdh: (i) => fieldToHex(P.ecdh(field(i, "scalar"), point(i, "point"))),
  // The file names the second input `wrap` (the contract-address field, addr_f in lib.nr).
  vk_from_sk: (i) => fieldToHex(P.vkFromSk(field(i, "sk"), field(i, "wrap"))),
  dvk_from_vk_op: (i) => fieldToHex(P.dvkFromVkOp(field(i, "vk"), field(i, "op_i"))),
  poseidon_with_domain: (i) => {
    const rest = i["inputs"]
    if (!Array.isArray(rest)) throw new Error("inputs is not a list")
    return fieldToHex(poseidonWithDomain(field(i, "domain"), rest.map((v: Json) => fieldFromHex(String(v)))))
  },
  sponge_squeeze_2: (i) => spongeSqueeze2(field(i, "d"), field(i, "s_x"), field(i, "sigma")).map(fieldToHex),
  derive_spend_r: (i) => fieldToHex(P.deriveSpendR(field(i, "vk"), field(i, "sigma"))),
  derive_allow_r: (i) => fieldToHex(P.deriveAllowR(field(i, "dvk"), field(i, "sigma_a"))),
  derive_tx_blind: (i) => fieldToHex(P.deriveTxBlind(field(i, "s"), field(i, "sigma"))),
  encrypt_amount: (i) => fieldToHex(P.encryptAmount(field(i, "v_tx"), field(i, "s"), field(i, "sigma"))),
  encrypt_balance: (i) => fieldToHex(P.encryptBalance(field(i, "v_new"), field(i, "vk"), field(i, "sigma"))),
  encrypt_allowance: (i) => fieldToHex(P.encryptAllowance(field(i, "v_a"), field(i, "dvk"), field(i, "sigma_a"))),
  encrypt_esc_dvk: (i) => fieldToHex(P.encryptEscDvk(field(i, "dvk"), field(i, "s"), field(i, "op_i"))),
  encrypt_auditor_sender_balance: (i) =>
    fieldToHex(P.encryptAuditorSenderBalance(field(i, "v_new"), field(i, "s_a_s_x"), field(i, "sigma")))
}

const files = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort()
const fixture = (file: string): Fixture => JSON.parse(readFileSync(DIR + file, "utf8")) as Fixture

describe("OZ's primitive fixtures (circuits/lib/testdata at 8af46e2c)", () => {
  it("are all here, one primitive per file, each one the client implements", () => {
    expect(files.length).toBe(16)
    for (const file of files) {
      const { primitive, vectors } = fixture(file)
      expect(file).toBe(`${primitive}.json`)
      expect(Object.keys(PRIMITIVES)).toContain(primitive)
      expect(vectors.length).toBeGreaterThan(0)
    }
  })

  it.each(files)("%s: every output byte for byte", (file) => {
    const { primitive, vectors } = fixture(file)
    const compute = PRIMITIVES[primitive]!
    for (const { inputs, output } of vectors) expect(compute(inputs)).toEqual(output)
  })

  it("lane 0 of sponge_squeeze_2 is poseidon_with_domain over the same inputs (lib.nr)", () => {
    for (const { inputs } of fixture("sponge_squeeze_2.json").vectors) {
      const [d, s, sigma] = [field(inputs, "d"), field(inputs, "s_x"), field(inputs, "sigma")]
      expect(spongeSqueeze2(d, s, sigma)[0]).toBe(poseidonWithDomain(d, [s, sigma]))
    }
  })
})
