// The proving side of the confidential client: the compiled artifacts against their manifest, the CRS check, bb.js
// proving the register circuit over Aztec Ignition's CRS as the package carries it (offline), and verification keys
// in bb's binary and OZ's fields forms.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { UltraHonkBackend } from "@aztec/bb.js"
import { bn254 } from "@noble/curves/bn254.js"
import { Noir } from "@noir-lang/noir_js"
import { Effect, Exit, Scope } from "effect"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { CrsMissing, VersionMismatch } from "../../client/src/confidential/Errors.ts"
import { acirBytes, CIRCUITS, compiledCircuit, type CircuitArtifact, gzippedBytecode, loadCircuit, type LoadedCircuit, type Manifest, publicInputCount, sha256Hex } from "../../client/src/confidential/proving/Artifacts.ts"
import { type CheckedCrs, checkCrs, IGNITION_G2, IGNITION_G2_SHA256, IGNITION_POINTS } from "../../client/src/confidential/proving/Crs.ts"
import { BUNDLED_CRS_DIR, loadCrsDir, readCrsDir } from "../../client/src/confidential/proving/CrsFiles.ts"
import { makeProver, PROOF_BYTES, type Prover } from "../../client/src/confidential/proving/Prover.ts"
import { CrsRefused } from "../../client/src/confidential/proving/ProvingErrors.ts"
import { assertSameVk, parseBinaryVk, parseFieldsVk, toBinaryVk, toFieldsVk, VK_BINARY_BYTES } from "../../client/src/confidential/proving/VerificationKey.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const CIRCUITS_DIR = Path.join(root, "client/circuits/8af46e2c")
const json = <A>(path: string) => JSON.parse(readFileSync(path, "utf8")) as A
const manifest = json<Manifest>(Path.join(CIRCUITS_DIR, "manifest.json"))
const artifact = (name: string) => json<CircuitArtifact>(Path.join(CIRCUITS_DIR, `${name}.json`))
const ozVk = (name: string) => json<unknown>(Path.join(CIRCUITS_DIR, "vks", `${name}.vk.json`))
const testdata = (name: string) => json<{ vectors: ReadonlyArray<{ output: { x: string; y: string } }> }>(Path.join(root, "test/fixtures/oz-8af46e2c/testdata", `${name}.json`))
const field32 = (hex: string) => Buffer.from(BigInt(hex).toString(16).padStart(64, "0"), "hex")

// A register witness from OZ's lib/testdata (README inputs sk = 0xdead, addr_f = 0xbeef): Y = sk·H from
// scalar_mul.json, PVK = vk·H from pvk_from_vk.json. _acct_f is unconstrained by the circuit.
const Y = testdata("scalar_mul").vectors[0]!.output
const PVK = testdata("pvk_from_vk").vectors[0]!.output
const registerInputs = { sk: "0xdead", y_x: Y.x, y_y: Y.y, pvk_x: PVK.x, pvk_y: PVK.y, addr_f: "0xbeef", _acct_f: "0x1234" }

const originalFetch = globalThis.fetch
const fetched: Array<string> = []
const scope = Effect.runSync(Scope.make())
let crs: CheckedCrs
let prover: Prover
let register: LoadedCircuit

beforeAll(async () => {
  globalThis.fetch = async (input) => {
    fetched.push(String(input instanceof Request ? input.url : input))
    throw new Error("no network in this test")
  }
  crs = await Effect.runPromise(loadCrsDir())
  register = await Effect.runPromise(loadCircuit("register", artifact("register"), manifest))
  prover = await Effect.runPromise(Scope.extend(makeProver({ crs, threads: 1 }), scope))
}, 180_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  globalThis.fetch = originalFetch
})

describe("the compiled circuits", () => {
  it("match their manifest: ACIR and bytecode hashes, public inputs, parameters, OZ's VK header", async () => {
    expect(manifest.commit).toBe("8af46e2c3ba3501ff6ddd0a5d72290e410ace9ca")
    expect(Object.keys(manifest.circuits)).toEqual([...CIRCUITS])
    for (const name of CIRCUITS) {
      const a = artifact(name)
      const pinned = manifest.circuits[name]!
      expect(sha256Hex(await acirBytes(a))).toBe(pinned.acirSha256)
      expect(sha256Hex(gzippedBytecode(a))).toBe(pinned.bytecodeSha256)
      expect(publicInputCount(a.abi)).toBe(pinned.publicInputs)
      expect(a.abi.parameters.map((p) => p.name)).toEqual(pinned.parameters)
      expect(pinned.ozVk.numPublicInputs).toBe(pinned.publicInputs + 16)
      expect(pinned.ozVk.circuitSize).toBe(pinned.circuitSize)
    }
  })

  it("carry no debug symbols, file map or Noir source", () => {
    for (const name of CIRCUITS) {
      const text = readFileSync(Path.join(CIRCUITS_DIR, `${name}.json`), "utf8")
      expect(Object.keys(JSON.parse(text) as object).sort()).toEqual(["abi", "bytecode", "hash", "noir_version"])
      for (const marker of ["file_map", "debug_symbols", "fn main", "assert(", "use stellar_confidential_lib", "let ", ".nr"]) {
        expect(text).not.toContain(marker)
      }
    }
  })

  it("leave the browser's proving modules free of node:* (files are CrsFiles.ts's, in Node only)", () => {
    for (const file of ["Artifacts.ts", "Crs.ts", "Prover.ts", "VerificationKey.ts", "ProvingErrors.ts", "../Errors.ts"]) {
      expect(readFileSync(Path.join(root, "client/src/confidential/proving", file), "utf8")).not.toMatch(/from "node:/)
    }
  })

  it("refuses an artifact whose ACIR is not the pinned one", async () => {
    const swapped = { ...artifact("register"), bytecode: artifact("withdraw").bytecode }
    const exit = await Effect.runPromiseExit(loadCircuit("register", swapped, manifest))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "VersionMismatch", subject: "circuit register" } } })
  })
})

describe("the CRS check", () => {
  const tamper = (bytes: Uint8Array, at: number) => {
    const copy = bytes.slice()
    copy[at] = copy[at]! ^ 1
    return copy
  }
  const refusal = async (g1: Uint8Array, g2: Uint8Array) => {
    const exit = await Effect.runPromiseExit(checkCrs({ g1, g2 }))
    return Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof CrsRefused ? exit.cause.error : undefined
  }

  it("takes the package's copy of Ignition's prefix: G1[0] is the generator, and the first pairing holds", () => {
    expect(crs.points).toBe(IGNITION_POINTS)
    expect(crs.g1.subarray(0, 64)).toEqual(new Uint8Array([...field32("0x1"), ...field32("0x2")]))
    // e(G1[1], G2) = e(G1[0], [τ]G2): the G2 file is the τ of the G1 points (client/crs/README.md's check).
    const point = (i: number) => bn254.G1.Point.fromAffine({ x: BigInt(`0x${Buffer.from(crs.g1.subarray(i * 64, i * 64 + 32)).toString("hex")}`), y: BigInt(`0x${Buffer.from(crs.g1.subarray(i * 64 + 32, i * 64 + 64)).toString("hex")}`) })
    const be = (at: number) => BigInt(`0x${Buffer.from(crs.g2.subarray(at, at + 32)).toString("hex")}`)
    const tauG2 = bn254.G2.Point.fromAffine({ x: { c0: be(0), c1: be(32) }, y: { c0: be(64), c1: be(96) } })
    expect(bn254.fields.Fp12.eql(bn254.pairing(point(1), bn254.G2.Point.BASE), bn254.pairing(point(0), tauG2))).toBe(true)
    expect(bn254.fields.Fp12.eql(bn254.pairing(point(2), bn254.G2.Point.BASE), bn254.pairing(point(0), tauG2))).toBe(false)
  })

  it("refuses a flipped bit in a far G1 point and in G2, naming the file; a file not in bb's layout", async () => {
    expect(await refusal(tamper(crs.g1, 20_000 * 64 + 63), crs.g2)).toMatchObject({ reason: "NotIgnition", message: expect.stringMatching(/^bn254_g1\.dat/) })
    expect(await refusal(crs.g1, tamper(crs.g2, 100))).toMatchObject({ reason: "NotIgnition", message: expect.stringMatching(/^bn254_g2\.dat/) })
    expect((await refusal(crs.g1.subarray(0, 100), crs.g2))?.reason).toBe("Malformed")
  }, 60_000)

  it("pins Ignition's G2 point: the 128 bytes hash to the pin and lie on the twist", () => {
    expect(sha256Hex(IGNITION_G2)).toBe(IGNITION_G2_SHA256)
    const be = (at: number) => BigInt(`0x${Buffer.from(IGNITION_G2.subarray(at, at + 32)).toString("hex")}`)
    expect(() => bn254.G2.Point.fromAffine({ x: { c0: be(0), c1: be(32) }, y: { c0: be(64), c1: be(96) } }).assertValidity()).not.toThrow()
  })

  it("reports a directory without the files as CrsMissing naming CRS_DIR", async () => {
    const exit = await Effect.runPromiseExit(readCrsDir(Path.join(root, "client/no-crs-here")))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "CrsMissing" } } })
    expect(JSON.stringify(exit)).toContain("CRS_DIR")
  })
})

describe("proving with bb.js", () => {
  it("proves register: a 14,592-byte proof that verifies, its public inputs the circuit's, offline", async () => {
    const proof = await Effect.runPromise(prover.prove(register, registerInputs))
    expect(proof.proof.length).toBe(PROOF_BYTES)
    const expected = ["y_x", "y_y", "pvk_x", "pvk_y", "addr_f", "_acct_f"].map((k) => field32(registerInputs[k as keyof typeof registerInputs]))
    expect(proof.publicInputs).toEqual(new Uint8Array(Buffer.concat(expected)))
    expect(await Effect.runPromise(prover.verify(register, proof))).toBe(true)

    const flipped = proof.publicInputs.slice()
    flipped[5 * 32 + 31] = flipped[5 * 32 + 31]! ^ 1
    expect(await Effect.runPromise(prover.verify(register, { ...proof, publicInputs: flipped }))).toBe(false)
    expect(fetched).toEqual([])
  }, 120_000)

  it("fails with ProofFailed when the circuit rejects the witness, and says nothing of the inputs", async () => {
    const exit = await Effect.runPromiseExit(prover.prove(register, { ...registerInputs, sk: "0xdeae" }))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ProofFailed", circuit: "register" } } })
    expect(JSON.stringify(exit)).not.toMatch(/dea[de]/i)
  }, 60_000)

  it("makes the key and the proof bb.js's own UltraHonkBackend makes from crsPath (the package's CRS directory)", async () => {
    const ours = await Effect.runPromise(prover.prove(register, registerInputs))
    const backend = new UltraHonkBackend(artifact("register").bytecode, { threads: 1, crsPath: BUNDLED_CRS_DIR })
    try {
      expect(await backend.getVerificationKey({ keccak: true })).toEqual(await Effect.runPromise(prover.verificationKey(register)))
      // Non-zk UltraHonk proofs are deterministic, so the two paths must agree byte for byte.
      const { witness } = await new Noir(compiledCircuit(artifact("register"))).execute(registerInputs)
      const theirs = await backend.generateProof(witness, { keccak: true })
      expect(new Uint8Array(theirs.proof)).toEqual(ours.proof)
      expect(theirs.publicInputs).toEqual(Array.from({ length: 6 }, (_, i) => `0x${Buffer.from(ours.publicInputs.subarray(i * 32, i * 32 + 32)).toString("hex")}`))
    } finally {
      await backend.destroy()
    }
    expect(fetched).toEqual([])
  }, 60_000)

  it("fails with CrsMissing when the CRS is shorter than the circuit needs", async () => {
    const short = { ...crs, points: 16_385, g1: crs.g1.subarray(0, 16_385 * 64) }
    const withdraw = await Effect.runPromise(loadCircuit("withdraw", artifact("withdraw"), manifest))
    const exit = await Effect.runPromiseExit(Effect.scoped(Effect.flatMap(makeProver({ crs: short }), (p) => p.verificationKey(withdraw))))
    expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof CrsMissing).toBe(true)
  }, 60_000)
})

describe("verification keys", () => {
  it("parses bb's 1,760-byte binary key and converts it to the fields form and back unchanged", async () => {
    const binary = await Effect.runPromise(prover.verificationKey(register))
    expect(binary.length).toBe(VK_BINARY_BYTES)
    const vk = parseBinaryVk(binary)
    expect([vk.circuitSize, vk.logCircuitSize, vk.numPublicInputs, vk.pubInputsOffset]).toEqual([16_384, 14, 22, 1])
    expect(toBinaryVk(vk)).toEqual(binary)
    expect(parseFieldsVk(toFieldsVk(vk))).toEqual(vk)
    expect(toBinaryVk(parseFieldsVk(toFieldsVk(vk)))).toEqual(binary)
  })

  it("parses OZ's committed keys: their headers are the manifest's, their points lie on BN254, they re-serialise exactly", () => {
    for (const name of CIRCUITS) {
      const fields = ozVk(name)
      const vk = parseFieldsVk(fields)
      const { circuitSize, numPublicInputs, pubInputsOffset } = manifest.circuits[name]!.ozVk
      expect({ circuitSize: vk.circuitSize, numPublicInputs: vk.numPublicInputs, pubInputsOffset: vk.pubInputsOffset }).toEqual({ circuitSize, numPublicInputs, pubInputsOffset })
      for (const p of vk.commitments) expect(() => bn254.G1.Point.fromAffine(p).assertValidity()).not.toThrow()
      expect(toFieldsVk(vk)).toEqual(fields)
    }
  })

  it("makes OZ's register key: the deployment check of SDK.md §8.2 passes (all six: test/crs-tree.test.ts)", async () => {
    const ours = parseBinaryVk(await Effect.runPromise(prover.verificationKey(register)))
    await Effect.runPromise(assertSameVk("register", "8af46e2c", ours, parseFieldsVk(ozVk("register"))))
    const exit = await Effect.runPromiseExit(assertSameVk("register", "8af46e2c", ours, parseFieldsVk(ozVk("withdraw"))))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "VersionMismatch" } } })
  })

  it("refuses a tampered key: another public-input count, a moved point, a wrong length", async () => {
    const binary = await Effect.runPromise(prover.verificationKey(register))
    const ours = parseBinaryVk(binary)
    const fewer = { ...ours, numPublicInputs: ours.numPublicInputs - 1 }
    const moved = { ...ours, commitments: ours.commitments.map((p, i) => (i === 26 ? ours.commitments[0]! : p)) }
    for (const [tampered, what] of [[fewer, "public inputs"], [moved, "commitment 26"]] as const) {
      const exit = await Effect.runPromiseExit(assertSameVk("register", "8af46e2c", tampered, ours))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "VersionMismatch", subject: `register verification key (${what})` } } })
    }
    expect(() => parseBinaryVk(binary.subarray(0, 1_764 - 8))).toThrow(VersionMismatch)
    expect(() => parseFieldsVk([...toFieldsVk(ours), "0x00"])).toThrow(VersionMismatch)
  })
})
