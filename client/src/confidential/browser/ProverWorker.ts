// The prover's Web Worker (module worker; bundled by scripts/build-prover.ts into dist/prover/prover-worker.js). It
// loads and checks the circuits (loadCircuit) and the CRS (fetchCrs), starts bb.js (makeProver) and answers the
// page's requests (ProverProtocol.ts). Its wasm (noir_js's two, bb's) comes from beside the bundle, same origin, so
// nothing is fetched from anywhere else. Browser-only; imports no node:*.
import * as acvm from "@noir-lang/acvm_js"
import * as noirc from "@noir-lang/noirc_abi"
import { Cause, Effect, Exit, Option, Scope } from "effect"
import { type CrsMissing, ProofFailed, VersionMismatch } from "../Errors.ts"
import type { DisclosureManifest } from "../disclosure/DisclosureCircuits.ts"
import { type AnyCircuitName, type CircuitArtifact, type CircuitName, type LoadedCircuit, loadCircuit, type Manifest } from "../proving/Artifacts.ts"
import { fetchCrs } from "../proving/Crs.ts"
import { makeProver, type Prover } from "../proving/Prover.ts"
import type { CrsRefused } from "../proving/ProvingErrors.ts"
import type { ProverRequest, ProverResponse, ProverSetup, Ready, Source, Stage, WireError } from "./ProverProtocol.ts"
import { transferables } from "./ProverProtocol.ts"

/** The members of a dedicated worker's global scope used here (the project compiles without the WebWorker lib). */
interface WorkerScope {
  readonly crossOriginIsolated: boolean
  readonly navigator: { readonly hardwareConcurrency: number }
  postMessage(message: ProverResponse, transfer: ReadonlyArray<ArrayBuffer>): void
  // Only ProverClient.ts posts to this worker, and only ProverRequest values.
  addEventListener(type: "message", listener: (event: { readonly data: ProverRequest }) => void): void
}

// The cast is the boundary: in a dedicated worker `globalThis` is the DedicatedWorkerGlobalScope.
const worker = globalThis as unknown as WorkerScope

/** A file the build puts beside this bundle. */
const beside = (file: string) => new URL(file, import.meta.url).href

const send = (response: ProverResponse) => worker.postMessage(response, transferables(response))
const progress = (id: number, stage: Stage) => send({ id, kind: "progress", stage })

type Failure = ProofFailed | VersionMismatch | CrsMissing | CrsRefused

interface Loaded {
  readonly prover: Prover
  readonly circuits: ReadonlyMap<AnyCircuitName, LoadedCircuit>
  readonly keyed: Set<AnyCircuitName>
  readonly ready: Ready
}

// bb.js lives as long as the worker: the page ends both with terminate(), so this scope is never closed.
const lifetime = Effect.runSync(Scope.make())
let loaded: Promise<Exit.Exit<Loaded, Failure>> | undefined

const fetchJson = <A>(source: Source<A>, what: string, fail: (actual: string) => Failure) =>
  "value" in source
    ? Effect.succeed(source.value)
    : Effect.tryPromise({
        try: async () => {
          const response = await fetch(source.url, { redirect: "error" })
          if (!response.ok) throw new Error(`HTTP ${response.status}`)
          // JSON off the wire is the boundary: loadCircuit checks an artifact's ACIR against the manifest's hash.
          return (await response.json()) as A
        },
        catch: (error) => fail(`${what} did not load from ${source.url} (${error instanceof Error ? error.message : "unknown"})`)
      })

const missing = (subject: string) => (actual: string) =>
  new VersionMismatch({ subject, expected: "a file the worker can load", actual, message: actual })

/** A wasm-bindgen web build's default export: fetches and instantiates its wasm once. */
type WasmInit = (input: { readonly module_or_path: string }) => Promise<unknown>
// tsc reads these packages' .d.ts as CommonJS (their package.json has no "type"), so it sees the default export one
// level down; the bundle takes their ESM "module" build (web/*.js), whose default export is the init function.
const initOf = (module: object) => (module as { readonly default: WasmInit }).default

/** noir_js's wasm (acvm_js, noirc_abi): initialised here from beside the bundle, so Noir's own init finds it ready. */
const initNoir = Effect.tryPromise({
  try: () =>
    Promise.all([
      initOf(acvm)({ module_or_path: beside("acvm_js_bg.wasm") }),
      initOf(noirc)({ module_or_path: beside("noirc_abi_wasm_bg.wasm") })
    ]),
  catch: () => new ProofFailed({ circuit: "*", message: "noir_js could not load its wasm" })
})

const setUp = (id: number, setup: ProverSetup) =>
  Effect.gen(function* () {
    const started = performance.now()
    progress(id, "loading-circuits")
    const manifest = yield* fetchJson<Manifest>(setup.manifest, "the circuit manifest", missing("circuit manifest"))
    const circuits = new Map<AnyCircuitName, LoadedCircuit>()
    // Object.entries widens the keys to string; they are ProverSetup's CircuitName keys.
    for (const [name, source] of Object.entries(setup.circuits) as Array<[CircuitName, Source<CircuitArtifact>]>) {
      const artifact = yield* fetchJson<CircuitArtifact>(source, `the ${name} circuit`, missing(`circuit ${name}`))
      circuits.set(name, yield* loadCircuit(name, artifact, manifest))
    }
    if (setup.disclosure !== undefined) {
      const pins = yield* fetchJson<DisclosureManifest>(setup.disclosure.manifest, "the disclosure manifest", missing("disclosure manifest"))
      for (const [name, source] of Object.entries(setup.disclosure.circuits) as Array<[AnyCircuitName, Source<CircuitArtifact>]>) {
        const artifact = yield* fetchJson<CircuitArtifact>(source, `the ${name} circuit`, missing(`circuit ${name}`))
        circuits.set(name, yield* loadCircuit(name, artifact, pins))
      }
    }
    progress(id, "loading-crs")
    const crs = yield* fetchCrs(setup.crs)
    progress(id, "starting-prover")
    yield* initNoir
    // What bb 0.87 will run (fetchModuleAndThreads): one thread without shared memory, at most the cores and 32.
    const cores = worker.crossOriginIsolated ? Math.min(worker.navigator.hardwareConcurrency, 32) : 1
    const threads = Math.max(1, Math.min(setup.threads ?? cores, cores))
    const prover = yield* Scope.extend(makeProver({ crs, threads, wasmPath: beside("barretenberg.wasm.gz") }), lifetime)
    const ready: Ready = {
      threads,
      crossOriginIsolated: worker.crossOriginIsolated,
      crs: { points: crs.points },
      circuits: [...circuits.keys()],
      ms: Math.round(performance.now() - started)
    }
    return { prover, circuits, keyed: new Set<AnyCircuitName>(), ready } satisfies Loaded
  })

const notSetUp = (circuit: string) => new ProofFailed({ circuit, message: "the prover worker was not set up (or its setup failed)" })

const withLoaded = <A>(circuit: AnyCircuitName, use: (loaded: Loaded, target: LoadedCircuit) => Effect.Effect<A, Failure>) =>
  Effect.gen(function* () {
    if (loaded === undefined) return yield* notSetUp(circuit)
    const current = loaded
    const exit = yield* Effect.promise(() => current)
    if (Exit.isFailure(exit)) return yield* notSetUp(circuit)
    const target = exit.value.circuits.get(circuit)
    if (target === undefined) return yield* new ProofFailed({ circuit, message: `the prover worker was not given the ${circuit} circuit` })
    return yield* use(exit.value, target)
  })

/** A proof against the page's own key: bb only, no circuit (a disclosure verifier's committed keys). */
const verifyWithKey = (request: Extract<ProverRequest, { kind: "verify" }>) =>
  Effect.gen(function* () {
    if (loaded === undefined) return yield* notSetUp(request.circuit)
    const current = loaded
    const exit = yield* Effect.promise(() => current)
    if (Exit.isFailure(exit) || exit.value.prover.verifyWithKey === undefined) return yield* notSetUp(request.circuit)
    const started = performance.now()
    const ok = yield* exit.value.prover.verifyWithKey(request.circuit, { proof: request.proof, publicInputs: request.publicInputs }, request.key)
    return { ok, ms: Math.round(performance.now() - started) }
  })

const keyFor = (id: number, { prover, keyed }: Loaded, circuit: LoadedCircuit) =>
  Effect.gen(function* () {
    if (!keyed.has(circuit.name)) progress(id, "verification-key")
    const key = yield* prover.verificationKey(circuit)
    keyed.add(circuit.name)
    return key
  })

const prove = (id: number, circuitName: AnyCircuitName, inputs: Extract<ProverRequest, { kind: "prove" }>["inputs"]) =>
  withLoaded(circuitName, (state, circuit) =>
    Effect.gen(function* () {
      const started = performance.now()
      progress(id, "executing-witness")
      const witness = yield* state.prover.execute(circuit, inputs)
      const executeMs = Math.round(performance.now() - started)
      yield* keyFor(id, state, circuit)
      progress(id, "proving")
      const { proof, publicInputs } = yield* state.prover.proveWitness(circuit, witness)
      return { proof, publicInputs, ms: Math.round(performance.now() - started), executeMs }
    })
  )

/** Only the typed errors' own fields cross; a defect (a bug, bb's worker dying) becomes a ProofFailed naming no value. */
const toWire = (circuit: string, cause: Cause.Cause<Failure>): WireError =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => ({ _tag: "ProofFailed", circuit, message: "the prover worker failed unexpectedly" }),
    onSome: (error): WireError => {
      switch (error._tag) {
        case "ProofFailed":
          return { _tag: "ProofFailed", circuit: error.circuit, message: error.message }
        case "VersionMismatch":
          return { _tag: "VersionMismatch", subject: error.subject, expected: error.expected, actual: error.actual, message: error.message }
        case "CrsMissing":
          return { _tag: "CrsMissing", message: error.message }
        case "CrsRefused":
          return { _tag: "CrsRefused", reason: error.reason, message: error.message }
      }
    }
  })

const answer = async <A>(id: number, circuit: string, effect: Effect.Effect<A, Failure>, ok: (a: A) => ProverResponse) => {
  const exit = await Effect.runPromiseExit(effect)
  send(Exit.isSuccess(exit) ? ok(exit.value) : { id, kind: "failed", error: toWire(circuit, exit.cause) })
}

const handle = async (request: ProverRequest): Promise<void> => {
  switch (request.kind) {
    case "setup": {
      if (loaded !== undefined) {
        return send({ id: request.id, kind: "failed", error: { _tag: "ProofFailed", circuit: "*", message: "the prover worker is set up already" } })
      }
      const current = Effect.runPromiseExit(setUp(request.id, request.setup))
      loaded = current
      const exit = await current
      return send(Exit.isSuccess(exit) ? { id: request.id, kind: "ready", ready: exit.value.ready } : { id: request.id, kind: "failed", error: toWire("*", exit.cause) })
    }
    case "prove":
      return answer(request.id, request.circuit, prove(request.id, request.circuit, request.inputs), (proved) => ({ id: request.id, kind: "proved", proved }))
    case "verify":
      return answer(request.id, request.circuit, verifyWithKey(request), ({ ok, ms }) => ({ id: request.id, kind: "verified", ok, ms }))
    case "verificationKey":
      return answer(
        request.id,
        request.circuit,
        withLoaded(request.circuit, (state, circuit) => keyFor(request.id, state, circuit)),
        // A copy: the prover caches its key, and the answer's buffer is transferred away.
        (key) => ({ id: request.id, kind: "verificationKey", key: key.slice() })
      )
  }
}

worker.addEventListener("message", (event) => void handle(event.data))
