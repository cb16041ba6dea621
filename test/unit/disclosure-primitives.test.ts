import { describe, expect, it } from "@effect/vitest"
import { compile_program, createFileManager } from "@noir-lang/noir_wasm"
import { Noir, type CompiledCircuit, type InputMap } from "@noir-lang/noir_js"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { gunzipSync } from "node:zlib"
import { deriveEphemeralScalar, EPHEMERAL_KEY } from "../../client/src/confidential/crypto/EphemeralScalar.ts"
import { Fr, fieldFromHex, fieldToHex, R } from "../../client/src/confidential/crypto/Field.ts"
import { H, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { poseidonWithDomain } from "../../client/src/confidential/crypto/Poseidon2.ts"
import { DISCLOSURE_CIRCUITS, type DisclosureManifest } from "../../client/src/confidential/disclosure/DisclosureCircuits.ts"
import { DISCLOSURE } from "../../client/src/confidential/disclosure/Domain.ts"
import { openSeal, seal } from "../../client/src/confidential/disclosure/Seal.ts"

// The disclosure library (circuits/disclosure/lib) compiled here with the project's noir_wasm and run with noir_js:
// its Noir #[test]s (through the lib_tests program, there being no nargo), its primitives on OZ's cross-language
// vectors (circuits/lib/testdata at 8af46e2c, read from test/fixtures), and the primitives OZ has no vector for against
// the client's TypeScript. Last, the committed artifacts are what the sources compile to.
const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const SOURCES = Path.join(ROOT, "circuits/disclosure")
const VECTORS = Path.join(ROOT, "test/fixtures/oz-8af46e2c/testdata")

const compile = async (crate: string) =>
  (await compile_program(createFileManager(SOURCES), Path.join(SOURCES, crate), () => {}, () => {})).program
const program = (compiled: { abi: CompiledCircuit["abi"]; bytecode: string }) =>
  new Noir({ abi: compiled.abi, bytecode: compiled.bytecode, debug_symbols: "", file_map: {} })

type Json = string | ReadonlyArray<Json> | { readonly [k: string]: Json }
interface Vector {
  readonly inputs: Readonly<Record<string, Json>>
  readonly output: Json
}
const vectors = (primitive: string): ReadonlyArray<Vector> =>
  (JSON.parse(readFileSync(Path.join(VECTORS, `${primitive}.json`), "utf8")) as { vectors: ReadonlyArray<Vector> }).vectors
const field = (v: Json) => fieldFromHex(v as string)

describe("the disclosure library", { timeout: 120_000 }, () => {
  const harness = compile("primitives").then(program)
  /** The harness's 14 outputs for (a, b, c, P); P is H unless given. */
  const outputs = async (a: bigint, b: bigint, c: bigint, p = H): Promise<ReadonlyArray<bigint>> => {
    const { x, y } = p.toAffine()
    const inputs: InputMap = { a: fieldToHex(a), b: fieldToHex(b), c: fieldToHex(c), p_x: fieldToHex(x), p_y: fieldToHex(y) }
    const { returnValue } = await (await harness).execute(inputs)
    return (returnValue as ReadonlyArray<string>).map((v) => BigInt(v))
  }
  const point = (out: ReadonlyArray<bigint>, at: number) => ({ x: fieldToHex(out[at]!), y: fieldToHex(out[at + 1]!) })

  it("passes its own #[test]s (lib/src/tests.nr), run as the lib_tests program", async () => {
    const tests = program(await compile("lib_tests"))
    await tests.execute({ run: "0x01" })
  })

  it("reproduces OZ's vectors: scalar_mul, pvk_from_vk, ecdh, vk_from_sk, poseidon_with_domain", async () => {
    for (const { inputs, output } of vectors("scalar_mul")) {
      expect(inputs.point).toBe("H")
      expect(point(await outputs(field(inputs.scalar!), 0n, 0n), 0)).toEqual(output)
    }
    for (const { inputs, output } of vectors("pvk_from_vk")) expect(point(await outputs(field(inputs.vk!), 0n, 0n), 2)).toEqual(output)
    for (const { inputs, output } of vectors("ecdh")) expect(fieldToHex((await outputs(field(inputs.scalar!), 0n, 0n))[4]!)).toBe(output)
    for (const { inputs, output } of vectors("vk_from_sk")) {
      expect(fieldToHex((await outputs(field(inputs.sk!), field(inputs.wrap!), 0n))[5]!)).toBe(output)
    }
    for (const { inputs, output } of vectors("poseidon_with_domain")) {
      const rest = inputs.inputs as ReadonlyArray<Json>
      expect(rest.length).toBe(2)
      expect(fieldToHex((await outputs(field(inputs.domain!), field(rest[0]!), field(rest[1]!)))[6]!)).toBe(output)
    }
  })

  it("reproduces OZ's vectors: encrypt_amount (read back), sponge_squeeze_2, encrypt_auditor_sender_balance (lane 1)", async () => {
    for (const { inputs, output } of vectors("encrypt_amount")) {
      expect((await outputs(field(output), field(inputs.s!), field(inputs.sigma!)))[7]).toBe(field(inputs.v_tx!))
    }
    for (const { inputs, output } of vectors("sponge_squeeze_2")) {
      const out = await outputs(field(inputs.d!), field(inputs.s_x!), field(inputs.sigma!))
      expect([out[8], out[9]].map((v) => fieldToHex(v!))).toEqual(output)
    }
    for (const { inputs, output } of vectors("encrypt_auditor_sender_balance")) {
      const out = await outputs(11n, field(inputs.s_a_s_x!), field(inputs.sigma!))
      expect(Fr.sub(field(output), out[9]!)).toBe(field(inputs.v_new!))
    }
  })

  it("seals and derives r_e as the client does (Seal.ts, EphemeralScalar.ts), and the recipient opens the seal", async () => {
    const scalar = fc.bigInt({ min: 1n, max: R - 1n })
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: 0n, max: (1n << 127n) - 1n }), scalar, scalar, scalar, async (value, rDisc, rR, nonce) => {
        const request = { recipientKey: scalarMul(rR, H), nonce }
        const out = await outputs(value, rDisc, nonce, request.recipientKey)
        const sealed = seal(DISCLOSURE, value, rDisc, request)
        expect(point(out, 10)).toEqual({ x: fieldToHex(sealed.rDisc.toAffine().x), y: fieldToHex(sealed.rDisc.toAffine().y) })
        expect(out[12]).toBe(sealed.vTildeDisc)
        expect(openSeal(DISCLOSURE, rR, sealed, nonce, 1n << 127n)).toBe(value)
        expect(out[13]).toBe(deriveEphemeralScalar(value, rDisc))
      }),
      { numRuns: 8 }
    )
  })
})

describe("the deterministic ephemeral scalar (S7, S15.2)", () => {
  it("is Poseidon2(16, vk, sigma): the same for the same pair, another for another sigma or vk", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: R - 1n }), fc.bigInt({ min: 0n, max: R - 1n }), (vk, sigma) => {
        const rE = deriveEphemeralScalar(vk, sigma)
        expect(rE).toBe(poseidonWithDomain(EPHEMERAL_KEY, [vk, sigma]))
        expect(deriveEphemeralScalar(vk, sigma)).toBe(rE)
        expect(deriveEphemeralScalar(vk, Fr.add(sigma, 1n))).not.toBe(rE)
        expect(deriveEphemeralScalar(Fr.add(vk, 1n), sigma)).not.toBe(rE)
      }),
      { numRuns: 50 }
    )
  })
})

describe("client/circuits/disclosure", () => {
  it("holds what circuits/disclosure compiles to, ACIR for ACIR", { timeout: 300_000 }, async () => {
    const dir = Path.join(ROOT, "client/circuits/disclosure")
    const manifest = JSON.parse(readFileSync(Path.join(dir, "manifest.json"), "utf8")) as DisclosureManifest
    const noirWasm = JSON.parse(readFileSync(Path.join(ROOT, "node_modules/@noir-lang/noir_wasm/package.json"), "utf8")) as { version: string }
    expect(manifest.compiler).toBe(`@noir-lang/noir_wasm@${noirWasm.version}`)
    expect(Object.keys(manifest.circuits)).toEqual([...DISCLOSURE_CIRCUITS])
    for (const name of DISCLOSURE_CIRCUITS) {
      const compiled = await compile(name)
      const committed = JSON.parse(readFileSync(Path.join(dir, `${name}.json`), "utf8")) as { bytecode: string }
      const acir = gunzipSync(Buffer.from(compiled.bytecode, "base64"))
      expect(createHash("sha256").update(acir).digest("hex")).toBe(manifest.circuits[name].acirSha256)
      expect(committed.bytecode).toBe(compiled.bytecode)
      const vk = readFileSync(Path.join(dir, "vks", `${name}.vk.json`), "utf8")
      expect(createHash("sha256").update(vk).digest("hex")).toBe(manifest.circuits[name].vkSha256)
    }
  })
})
