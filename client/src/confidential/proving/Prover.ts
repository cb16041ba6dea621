// The only code that knows bb.js. Proofs as OZ's circuits/vks/README.md (OpenZeppelin/stellar-contracts at 8af46e2c)
// pins them: bb 0.87 UltraHonk, keccak transcript, not zk; witnesses from noir_js.
//
// bb.js's UltraHonkBackend fetches its CRS itself (Node: Crs reads crsPath and downloads from crs.aztec.network what
// is short; browser: CachedNetCrs reads IndexedDB, else downloads). This prover never lets it: it drives the same
// Barretenberg calls UltraHonkBackend makes (dest/node/barretenberg/backend.js, 0.87.0) and hands bb the checked CRS
// bytes through srsInitSrs, so Node and the browser load the CRS one way and no code path can reach the network.
import type * as BbJs from "@aztec/bb.js"
import { type InputMap, Noir } from "@noir-lang/noir_js"
import { Effect, type Scope } from "effect"
import { CrsMissing, ProofFailed } from "../Errors.ts"
import { compiledCircuit, gunzip, type LoadedCircuit } from "./Artifacts.ts"
import type { CheckedCrs } from "./Crs.ts"
import { CRS_DIR_VARIABLE } from "./Crs.ts"
import { PAIRING_POINTS, parseBinaryVk, VK_BINARY_BYTES } from "./VerificationKey.ts"

/** 456 fields: bb 0.87's non-zk UltraKeccak proof with its 16 pairing-point fields, what the Soroban verifier takes. */
export const PROOF_BYTES = 14_592

export type BbModule = Pick<typeof BbJs, "Barretenberg" | "RawBuffer">

export interface ProverOptions {
  readonly crs: CheckedCrs
  /** bb's worker threads (1 by default; more need SharedArrayBuffer, i.e. a cross-origin-isolated page). */
  readonly threads?: number
  /** A page supplies bb.js itself when its bundler must own the worker URLs (OZ SDK.md §8.3). */
  readonly loadBb?: () => Promise<BbModule>
  /**
   * Browser only: where bb.js 0.87's browser build fetches its wasm (`…/barretenberg.wasm.gz`; it swaps in
   * `barretenberg-threads.wasm.gz` when the page is cross-origin isolated). Without it the build imports a chunk with
   * the wasm inlined as base64. Node's build reads its own file and ignores it.
   */
  readonly wasmPath?: string
}

export interface Proof {
  /** PROOF_BYTES bytes. */
  readonly proof: Uint8Array
  /** 32 bytes a public input, in the circuit's order (which storage.rs assembles on chain). */
  readonly publicInputs: Uint8Array
}

export interface Prover {
  /** The compressed witness stack noir_js produces: fails when the circuit rejects the inputs. */
  readonly execute: (circuit: LoadedCircuit, inputs: InputMap) => Effect.Effect<Uint8Array, ProofFailed>
  readonly prove: (circuit: LoadedCircuit, inputs: InputMap) => Effect.Effect<Proof, ProofFailed | CrsMissing>
  /** `prove` after `execute`: the compressed witness stack `execute` gave (a caller that reports the two steps apart). */
  readonly proveWitness: (circuit: LoadedCircuit, witness: Uint8Array) => Effect.Effect<Proof, ProofFailed | CrsMissing>
  readonly verify: (circuit: LoadedCircuit, proof: Proof) => Effect.Effect<boolean, ProofFailed | CrsMissing>
  /**
   * `proof` against a binary key the caller holds (a committed key, not one computed from an ACIR): a verifier that
   * trusts its key set (SELECTIVE_DISCLOSURE.md §5) needs no circuit. `name` only labels a failure. Optional, so a
   * stand-in prover (one that only reads) need not have it.
   */
  readonly verifyWithKey?: (name: string, proof: Proof, key: Uint8Array) => Effect.Effect<boolean, ProofFailed>
  /** bb's binary key (VK_BINARY_BYTES), keccak flavour, as the Soroban verifier stores it. */
  readonly verificationKey: (circuit: LoadedCircuit) => Effect.Effect<Uint8Array, ProofFailed | CrsMissing>
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** Only the circuit's own assertion strings (its ABI's error types) may reach a message: never an input value. */
const rejection = (circuit: LoadedCircuit, error: unknown): ProofFailed => {
  const known = Object.values(circuit.artifact.abi.error_types).flatMap((e) => (e !== undefined && e.error_kind === "string" ? [e.string] : []))
  const said = error instanceof Error ? known.find((text) => error.message === `Circuit execution failed: ${text}`) : undefined
  return new ProofFailed({ circuit: circuit.name, message: `the ${circuit.name} circuit rejects the witness${said === undefined ? "" : `: ${said}`}` })
}

export const makeProver = (options: ProverOptions): Effect.Effect<Prover, ProofFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const { crs } = options
    const failed = (circuit: string, what: string) => () => new ProofFailed({ circuit, message: `bb.js could not ${what}` })
    const bb = yield* Effect.tryPromise({ try: () => (options.loadBb ?? (() => import("@aztec/bb.js")))(), catch: failed("*", "load") })
    const api = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => bb.Barretenberg.new({ threads: options.threads ?? 1, ...(options.wasmPath === undefined ? {} : { wasmPath: options.wasmPath }) }),
        catch: failed("*", "start")
      }),
      (api) => Effect.promise(() => api.destroy())
    )
    yield* Effect.tryPromise({
      try: () => api.srsInitSrs(new bb.RawBuffer(crs.g1), crs.points, new bb.RawBuffer(crs.g2)),
      catch: failed("*", "load the CRS")
    })
    // bb's wasm runs one call at a time; a semaphore keeps two fibers from interleaving theirs.
    const lock = yield* Effect.makeSemaphore(1)
    const call = <A>(circuit: LoadedCircuit, what: string, run: () => Promise<A>) =>
      lock.withPermits(1)(Effect.tryPromise({ try: run, catch: failed(circuit.name, what) }))

    const sized = new Set<string>()
    const fits = (circuit: LoadedCircuit) =>
      Effect.gen(function* () {
        if (sized.has(circuit.name)) return
        const [, size] = yield* call(circuit, "size the circuit", () => api.acirGetCircuitSizes(circuit.acir, false, true))
        if (size + 1 > crs.points) {
          return yield* new CrsMissing({
            message: `${circuit.name} needs ${size + 1} CRS points and the CRS has ${crs.points}: give ${CRS_DIR_VARIABLE} a longer one`
          })
        }
        sized.add(circuit.name)
      })

    const keys = new Map<string, Uint8Array>()
    const verificationKey = (circuit: LoadedCircuit) =>
      Effect.gen(function* () {
        const cached = keys.get(circuit.name)
        if (cached !== undefined) return cached
        yield* fits(circuit)
        const vk = yield* call(circuit, "compute the verification key", () => api.acirWriteVkUltraKeccakHonk(circuit.acir))
        if (vk.length !== VK_BINARY_BYTES) return yield* failed(circuit.name, `make a ${VK_BINARY_BYTES}-byte key (got ${vk.length})`)()
        keys.set(circuit.name, vk)
        return vk
      })

    const execute = (circuit: LoadedCircuit, inputs: InputMap) =>
      Effect.tryPromise({
        try: async () => (await new Noir(compiledCircuit(circuit.artifact)).execute(inputs)).witness,
        catch: (error) => rejection(circuit, error)
      }).pipe(Effect.withSpan("Confidential.execute", { attributes: { circuit: circuit.name } }))

    const proveWitness = (circuit: LoadedCircuit, compressed: Uint8Array) =>
      Effect.gen(function* () {
        const vk = yield* verificationKey(circuit)
        const publicBytes = (parseBinaryVk(vk).numPublicInputs - PAIRING_POINTS) * 32
        const witness = yield* Effect.tryPromise({ try: () => gunzip(compressed), catch: failed(circuit.name, "read the witness") })
        const both = yield* call(circuit, "prove", () => api.acirProveUltraKeccakHonk(circuit.acir, witness))
        const proof = both.slice(publicBytes)
        if (proof.length !== PROOF_BYTES) return yield* failed(circuit.name, `make a ${PROOF_BYTES}-byte proof (got ${proof.length})`)()
        return { proof, publicInputs: both.slice(0, publicBytes) } satisfies Proof
      })

    const prove = (circuit: LoadedCircuit, inputs: InputMap) =>
      Effect.flatMap(execute(circuit, inputs), (witness) => proveWitness(circuit, witness)).pipe(
        Effect.withSpan("Confidential.prove", { attributes: { circuit: circuit.name } })
      )

    const verify = (circuit: LoadedCircuit, proof: Proof) =>
      Effect.gen(function* () {
        const vk = yield* verificationKey(circuit)
        return yield* call(circuit, "verify", () => api.acirVerifyUltraKeccakHonk(concat(proof.publicInputs, proof.proof), new bb.RawBuffer(vk)))
      }).pipe(Effect.withSpan("Confidential.verify", { attributes: { circuit: circuit.name } }))

    const verifyWithKey = (name: string, proof: Proof, key: Uint8Array) =>
      lock.withPermits(1)(Effect.tryPromise({
        try: () => api.acirVerifyUltraKeccakHonk(concat(proof.publicInputs, proof.proof), new bb.RawBuffer(key)),
        catch: failed(name, "verify")
      })).pipe(Effect.withSpan("Confidential.verifyWithKey", { attributes: { circuit: name } }))

    return { execute, prove, proveWitness, verify, verifyWithKey, verificationKey } satisfies Prover
  })
