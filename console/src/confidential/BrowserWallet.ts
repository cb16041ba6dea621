// What every page that proves needs, in the browser (loaded with import() only): where the token lives and how to
// read it (the service's read-only Stellar RPC gateway, POST /stellar-rpc, since the page's CSP allows no other
// origin), the pinned circuits served beside the prover, the prover's Web Worker, and an Effect run to its value.
import {
  ChainReader,
  type CircuitArtifact,
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
import { Cause, Effect, Exit, Option } from "effect"
import { clientFor, run } from "../api/Client.ts"

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

/** The prover's worker for `proves` (the circuits it loads), checking the same-origin CRS for the network. */
export const startWorker = (
  circuits: Awaited<ReturnType<typeof loadCircuits>>,
  proves: ReadonlyArray<OperationCircuit>,
  networkPassphrase: string,
  onProgress: (event: ProgressEvent) => void
): ProverClient =>
  startProver({
    workerUrl: WORKER,
    setup: {
      manifest: { value: circuits.manifest },
      circuits: Object.fromEntries(proves.map((name) => [name, { value: circuits.artifactOf(name) }])) as Partial<Record<CircuitName, { value: CircuitArtifact }>>,
      crs: CRS,
      networkPassphrase
    },
    onProgress
  })

/** An Effect run to its value; a failure or a defect (the worker's own errors travel as defects) thrown whole. */
export const settle = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Option.getOrElse(Option.orElse(Cause.failureOption(exit.cause), () => Cause.dieOption(exit.cause)), () => Cause.squash(exit.cause))
}
