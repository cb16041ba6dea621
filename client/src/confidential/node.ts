// The confidential-token client for Node (`@confidential-payroll/client/confidential/node`): everything index.ts
// exports, the Node-only pieces (the CRS as bb's files, a wallet store in a directory), and the circuits the package
// carries (client/circuits/8af46e2c: bytecode, ABI and manifest) loaded and checked against their manifest.
import { Effect, type Scope } from "effect"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type { OperationCircuit, ProvingSetup } from "./Circuits.ts"
import { type CrsMissing, type ProofFailed, VersionMismatch } from "./Errors.ts"
import { type CircuitArtifact, type LoadedCircuit, loadCircuit, type Manifest } from "./proving/Artifacts.ts"
import { loadCrsDir } from "./proving/CrsFiles.ts"
import { makeProver } from "./proving/Prover.ts"
import type { CrsRefused } from "./proving/ProvingErrors.ts"

export * from "./index.ts"
export {
  BUNDLED_CRS_DIR,
  crsDirFromEnv,
  G1_FILE,
  G2_FILE,
  loadCrsDir,
  readCrsDir,
  STANDALONE_PASSPHRASE
} from "./proving/CrsFiles.ts"
export { FileStore } from "./state/FileStore.ts"

/** The OpenZeppelin/stellar-contracts commit the packaged circuits were compiled from (its first 8 hex digits). */
export const CIRCUITS_VERSION = "8af46e2c"

const OPERATIONS: ReadonlyArray<OperationCircuit> = ["register", "transfer", "withdraw"]

/**
 * The package's own circuits folder. Built, this file is dist/client/src/confidential/node.js, four folders below the
 * package root; run from source (this repository's tests), it is client/src/confidential/node.ts, two below.
 */
export const packagedCircuitsDir = (): string => {
  const [built, source] = [`../../../../circuits/${CIRCUITS_VERSION}/`, `../../circuits/${CIRCUITS_VERSION}/`]
    .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  return existsSync(Path.join(built!, "manifest.json")) ? built! : source!
}

const unreadable = (file: string, subject: string) =>
  new VersionMismatch({
    subject,
    expected: `${file}, as the package carries it`,
    actual: "missing or not JSON",
    message: `${file} is missing or unreadable: the circuits this client pins cannot be loaded`
  })

const readJson = <A>(file: string, subject: string) =>
  Effect.tryPromise({ try: async () => JSON.parse(await readFile(file, "utf8")) as A, catch: () => unreadable(file, subject) })

/**
 * The circuits a wallet proves with (register, transfer, withdraw) and the version they name in a VersionMismatch:
 * each artifact read from `dir` (the packaged circuits by default) and checked against the manifest's ACIR hash.
 */
export const loadCircuits = (dir: string = packagedCircuitsDir()): Effect.Effect<Pick<ProvingSetup, "circuits" | "version">, VersionMismatch> =>
  Effect.gen(function*() {
    const manifest = yield* readJson<Manifest>(Path.join(dir, "manifest.json"), "circuit manifest")
    const loaded = yield* Effect.forEach(OPERATIONS, (name) =>
      Effect.flatMap(readJson<CircuitArtifact>(Path.join(dir, `${name}.json`), `circuit ${name}`), (artifact) => loadCircuit(name, artifact, manifest)))
    const circuits = Object.fromEntries(loaded.map((c) => [c.name, c])) as Record<OperationCircuit, LoadedCircuit>
    return { circuits, version: manifest.commit }
  })

export interface ProvingSetupOptions {
  /** A directory with Aztec Ignition's bn254_g1.dat and bn254_g2.dat; by default the package's own (`crsDirFromEnv()` reads CRS_DIR). */
  readonly crsDir?: string
  /** bb's worker threads (1 by default). */
  readonly threads?: number
  /** Circuits other than the packaged ones (a folder laid out as the package's circuits/8af46e2c). */
  readonly circuitsDir?: string
}

/**
 * A ProvingSetup for openWallet: the CRS read from `crsDir` and checked against Ignition's pins, the packaged circuits
 * checked against their manifest, and bb.js started with them; bb.js stops when the scope closes.
 */
export const openProvingSetup = (
  options: ProvingSetupOptions = {}
): Effect.Effect<ProvingSetup, CrsMissing | CrsRefused | VersionMismatch | ProofFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const crs = yield* loadCrsDir(options.crsDir)
    const { circuits, version } = yield* loadCircuits(options.circuitsDir)
    const prover = yield* makeProver({ crs, threads: options.threads ?? 1 })
    return { prover, circuits, version } satisfies ProvingSetup
  })
