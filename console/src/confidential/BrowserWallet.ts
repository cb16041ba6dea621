// What every page that proves needs, in the browser (loaded with import() only): where the token lives and how to
// read it (the service's read-only Stellar RPC gateway, POST /stellar-rpc, since the page's CSP allows no other
// origin), the pinned circuits served beside the prover, the prover's Web Worker, and an Effect run to its value.
import { FetchHttpClient } from "@effect/platform"
import {
  ChainReader,
  type CircuitArtifact,
  type Cursor,
  fetchAccountEvents,
  IndexedDbStore,
  keysFromSigner,
  MemoryStore,
  openWallet,
  ProofFailed,
  type Prover,
  type CircuitName,
  loadCircuit,
  type LoadedCircuit,
  type Manifest,
  type OperationCircuit,
  type ProgressEvent,
  type ProverClient,
  rpc,
  startProver
} from "@confidential-payroll/client/confidential"
import { signMessage } from "@stellar/freighter-api"
import { Cause, Effect, Exit, Option } from "effect"
import { clientFor, run } from "../api/Client.ts"
import { workerProver } from "./WorkerProver.ts"

export const PROVER_BASE = `${import.meta.env.BASE_URL}prover/`
const WORKER = `${PROVER_BASE}prover-worker.js`
const CRS = { g1: "/crs/bn254_g1.dat", g2: "/crs/bn254_g2.dat" }

/** The token as the service names it, and the chain read through the service's gateway with the session. */
export const chainOf = async (session: string) => {
  // The contract's answer (auditorId too), which the client's TokenDeployment takes as it is.
  const deployment = await run(clientFor(session).crs.deployment())
  const server = new rpc.Server(`${window.location.origin}/stellar-rpc`, {
    allowHttp: window.location.protocol === "http:",
    headers: { authorization: `Bearer ${session}` }
  })
  return { deployment, server, reader: new ChainReader(server, deployment) }
}

const json = async <A>(url: string): Promise<A> => {
  const response = await fetch(url, { redirect: "error" })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  // JSON off the wire is the boundary: loadCircuit checks each artifact's ACIR against the manifest's hash.
  return (await response.json()) as A
}

const OPERATIONS: ReadonlyArray<OperationCircuit> = ["register", "transfer", "withdraw"]

/** The pinned circuits as the service serves them beside the prover, each checked against the manifest. */
export const loadCircuits = async () => {
  const manifest = await json<Manifest>(`${PROVER_BASE}circuits/manifest.json`)
  const artifacts = await Promise.all(OPERATIONS.map((name) => json<CircuitArtifact>(`${PROVER_BASE}circuits/${name}.json`)))
  const loaded = await Promise.all(OPERATIONS.map((name, i) => Effect.runPromise(loadCircuit(name, artifacts[i]!, manifest))))
  const circuits = Object.fromEntries(OPERATIONS.map((name, i) => [name, loaded[i]!])) as Record<OperationCircuit, LoadedCircuit>
  const artifactOf = (name: OperationCircuit) => artifacts[OPERATIONS.indexOf(name)]!
  return { manifest, circuits, artifactOf }
}

/** The prover's worker for `proves` (the circuits it loads), checking the same-origin CRS against Ignition's pins. */
export const startWorker = (
  circuits: Awaited<ReturnType<typeof loadCircuits>>,
  proves: ReadonlyArray<OperationCircuit>,
  onProgress: (event: ProgressEvent) => void
): ProverClient =>
  startProver({
    workerUrl: WORKER,
    setup: {
      manifest: { value: circuits.manifest },
      circuits: Object.fromEntries(proves.map((name) => [name, { value: circuits.artifactOf(name) }])) as Partial<Record<CircuitName, { value: CircuitArtifact }>>,
      crs: CRS
    },
    onProgress
  })

/** A wallet that only reads (balances, received amounts) proves nothing. */
const noProver: Prover = (() => {
  const refuse = (circuit: { readonly name: string }) => Effect.fail(new ProofFailed({ circuit: circuit.name, message: "this page reads the wallet; it does not prove" }))
  return { execute: refuse, prove: refuse, proveWitness: refuse, verify: refuse, verificationKey: refuse }
})()

/** An Effect run to its value; a failure or a defect (the worker's own errors travel as defects) thrown whole. */
export const settle = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Option.getOrElse(Option.orElse(Cause.failureOption(exit.cause), () => Cause.dieOption(exit.cause)), () => Cause.squash(exit.cause))
}

/** How many times the openings are rebuilt while the archive catches up with the chain (a second apart). */
const ARCHIVE_ATTEMPTS = 10

/** Where a wallet opening is, for the page to say. */
export type OpenStage = "loading" | "keys" | "prover" | "syncing"

/** The openings a wallet keeps in this browser (sealed with a key from its confidential secret). */
export const walletStore = () => new IndexedDbStore("payroll-wallet")

export interface OpenOptions {
  readonly account: string
  readonly session: string
  /** The circuits the worker loads: only those this page proves (none: no worker, reading only). */
  readonly proves: ReadonlyArray<OperationCircuit>
  readonly onStage: (stage: OpenStage, note?: string) => void
  readonly onProgress?: (event: ProgressEvent) => void
}

/**
 * The signed-in wallet's confidential wallet in this browser: keys from Freighter's signMessage, the openings from
 * IndexedDB caught up from the service's archive — rebuilt from every event when they disagree with the chain (another
 * device paid, or this browser never held them). `close` ends the prover's worker.
 */
export const openBrowserWallet = async (options: OpenOptions) => {
  const { account, session } = options
  options.onStage("loading")
  const { deployment, reader, server } = await chainOf(session)
  const circuits = await loadCircuits()
  options.onStage("keys")
  const prover = options.proves.length === 0
    ? undefined
    : startWorker(circuits, options.proves, options.onProgress ?? (() => undefined))
  try {
    // The keys the account registered with let one signature do (withSignerRoot): 1 request instead of 2.
    const registered = await reader.account(account)
    const keys = await keysFromSigner({
      signer: { signMessage },
      account,
      contract: deployment.contract,
      networkPassphrase: deployment.networkPassphrase,
      ...(registered === undefined ? {} : { registered })
    })
    if (prover !== undefined) {
      options.onStage("prover")
      const ready = await prover.ready
      options.onStage("prover", `on ${ready.threads} thread${ready.threads === 1 ? "" : "s"}`)
    }
    const setup = { prover: prover === undefined ? noProver : workerProver(prover), circuits: circuits.circuits, version: circuits.manifest.commit }
    const wallet = await settle(openWallet({ keys, account, reader, setup, store: walletStore() }))
    options.onStage("syncing")
    const events = (after: Cursor | undefined) =>
      settle(fetchAccountEvents(window.location.origin, deployment.contract, account, after).pipe(Effect.provide(FetchHttpClient.layer)))
    await settle(wallet.sync((await events(wallet.state.cursor)).events))
    const balances = await settle(Effect.either(wallet.balances()))
    /** Every event of the account replayed from its registration: what "Rebuild from chain" does. */
    const rebuild = async () => {
      await settle(wallet.rebuild((await events(undefined)).events))
      return await settle(wallet.balances())
    }
    if (balances._tag === "Left" && balances.left._tag !== "StateMismatch") throw balances.left
    if (balances._tag === "Left") {
      // The archive trails the ledger by a poll or two: a transfer that landed a moment ago is on chain and not yet in
      // the events, and the rebuilt openings disagree with the chain until it is. Rebuilt again, a few times.
      for (let attempt = 1; ; attempt++) {
        const rebuilt = await Effect.runPromise(Effect.either(Effect.tryPromise({ try: rebuild, catch: (e) => e })))
        if (rebuilt._tag === "Right") break
        const mismatch = typeof rebuilt.left === "object" && rebuilt.left !== null && (rebuilt.left as { _tag?: unknown })._tag === "StateMismatch"
        if (!mismatch || attempt === ARCHIVE_ATTEMPTS) throw rebuilt.left
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    }
    return { wallet, deployment, reader, server, rebuild, events, close: () => prover?.cancel() }
  } catch (error) {
    prover?.cancel()
    throw error
  }
}

export type BrowserWallet = Awaited<ReturnType<typeof openBrowserWallet>>

export type Chain = Awaited<ReturnType<typeof chainOf>>

export interface RegisterProofOptions {
  /** "keys" as Freighter is asked, "prover" as the worker starts, then "prover" again with its threads as a note. */
  readonly onStage: (stage: "keys" | "prover", note?: string) => void
  readonly onProgress: (event: ProgressEvent) => void
  /** The worker as soon as it exists, so that the caller can end it (a cancel); it is ended here once proven. */
  readonly onWorker: (prover: ProverClient) => void
}

/**
 * `register`'s data for `account`: its keys from Freighter's signMessage (asked twice: nothing registered yet to
 * compare with), the register proof made in a worker started for it — the circuit, the CRS and bb load while the
 * wallet signs. Registering needs no openings (both balances start at zero).
 */
export const proveRegistration = async (chain: Chain, account: string, options: RegisterProofOptions): Promise<Uint8Array> => {
  const { deployment, reader } = chain
  const circuits = await loadCircuits()
  options.onStage("keys")
  const prover = startWorker(circuits, ["register"], options.onProgress)
  options.onWorker(prover)
  try {
    const keys = await keysFromSigner({ signer: { signMessage }, account, contract: deployment.contract, networkPassphrase: deployment.networkPassphrase })
    options.onStage("prover")
    const ready = await prover.ready
    options.onStage("prover", `on ${ready.threads} thread${ready.threads === 1 ? "" : "s"}`)
    const setup = { prover: workerProver(prover), circuits: circuits.circuits, version: circuits.manifest.commit }
    const wallet = await settle(openWallet({ keys, account, reader, setup, store: new MemoryStore() }))
    return await settle(wallet.proveRegister())
  } finally {
    prover.cancel()
  }
}
