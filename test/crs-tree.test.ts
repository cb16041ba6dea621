// The tree holds together: the six circuits the project carries (client/circuits/8af46e2c), compiled from OZ's
// 8af46e2c, and Aztec Ignition's CRS it carries (client/crs) give, through bb.js 0.87.0, exactly the verification keys
// OZ published for its verifier registry (client/circuits/8af46e2c/vks, OZ's `circuits/vks/*.vk.json`): byte for byte
// in bb's 1,760-byte binary form and field for field in OZ's. So a proof the client makes is one a registry holding
// OZ's keys accepts, and the loopback's verifier, which holds those files, checks what a real deployment checks.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { type CircuitArtifact, CIRCUITS, loadCircuit, type Manifest } from "../client/src/confidential/proving/Artifacts.ts"
import { loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver, type Prover } from "../client/src/confidential/proving/Prover.ts"
import { parseBinaryVk, parseFieldsVk, toBinaryVk, toFieldsVk, VK_BINARY_BYTES } from "../client/src/confidential/proving/VerificationKey.ts"

const CIRCUITS_DIR = Path.resolve(import.meta.dirname, "../client/circuits/8af46e2c")
const json = <A>(file: string) => JSON.parse(readFileSync(Path.join(CIRCUITS_DIR, file), "utf8")) as A
const manifest = json<Manifest>("manifest.json")

const scope = Effect.runSync(Scope.make())
let prover: Prover

beforeAll(async () => {
  prover = await Effect.runPromise(Scope.extend(Effect.flatMap(loadCrsDir(), (crs) => makeProver({ crs, threads: 1 })), scope))
}, 120_000)

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

describe("the keys of the tree's circuits over the tree's CRS", () => {
  it.each([...CIRCUITS])("%s: bb.js's keccak key equals OZ's published key, byte for byte", async (name) => {
    const circuit = await Effect.runPromise(loadCircuit(name, json<CircuitArtifact>(`${name}.json`), manifest))
    const ours = await Effect.runPromise(prover.verificationKey(circuit))
    const published = json<ReadonlyArray<string>>(`vks/${name}.vk.json`)
    expect(ours.length).toBe(VK_BINARY_BYTES)
    expect(Buffer.from(ours).toString("hex")).toBe(Buffer.from(toBinaryVk(parseFieldsVk(published))).toString("hex"))
    expect(toFieldsVk(parseBinaryVk(ours))).toEqual(published)
  }, 120_000)
})
