// The prover's worker as a disclosure needs it (loaded with import() only): the holder's proofs over the disclosure
// circuits the service ships beside the prover (/app/prover/circuits/disclose_*.json, pinned by
// disclosure-manifest.json), and the verifier's UltraHonk checks under the committed keys (disclose_*.vk.json, each
// held to the manifest's sha256 before use). The CRS is the service's, checked against Ignition's pins in the worker.
import {
  checkProofWith,
  type CheckProof,
  CrsMissing,
  DISCLOSURE_CIRCUITS,
  type DisclosureCircuitName,
  type DisclosureManifest,
  disclosureKeys,
  ProofFailed,
  type ProgressEvent,
  type ProveDisclosure,
  type ProverClient,
  startProver
} from "@confidential-payroll/client/confidential"
import { Effect } from "effect"
import { PROVER_BASE } from "../confidential/BrowserWallet.ts"

const CRS = { g1: "/crs/bn254_g1.dat", g2: "/crs/bn254_g2.dat" }
const WORKER = `${PROVER_BASE}prover-worker.js`
const MANIFEST = `${PROVER_BASE}circuits/disclosure-manifest.json`

const text = async (url: string) => {
  const response = await fetch(url, { redirect: "error" })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.text()
}

/** Failures the worker reports other than ProofFailed and CrsMissing travel as defects, whole. */
const viaWorker = <A>(request: () => Promise<A>): Effect.Effect<A, ProofFailed | CrsMissing> =>
  Effect.tryPromise({ try: request, catch: (error) => error }).pipe(
    Effect.catchAll((error) => (error instanceof ProofFailed || error instanceof CrsMissing ? Effect.fail(error) : Effect.die(error)))
  )

/** A worker that proves `circuits` (none: it only verifies). */
export const startDisclosureWorker = (circuits: ReadonlyArray<DisclosureCircuitName>, onProgress?: (event: ProgressEvent) => void): ProverClient =>
  startProver({
    workerUrl: WORKER,
    setup: {
      manifest: { url: `${PROVER_BASE}circuits/manifest.json` },
      circuits: {},
      disclosure: {
        manifest: { url: MANIFEST },
        circuits: Object.fromEntries(circuits.map((name) => [name, { url: `${PROVER_BASE}circuits/${name}.json` }]))
      },
      crs: CRS
    },
    ...(onProgress === undefined ? {} : { onProgress })
  })

export const workerProve = (worker: ProverClient): ProveDisclosure => (circuit, inputs) =>
  Effect.map(viaWorker(() => worker.prove(circuit, inputs)), ({ proof, publicInputs }) => ({ proof, publicInputs }))

/** The committed keys, each checked against the disclosure manifest, and step 5 over the worker's bb.js. */
export const workerCheck = async (worker: ProverClient): Promise<CheckProof> => {
  const manifest = JSON.parse(await text(MANIFEST)) as DisclosureManifest
  const bodies = new Map(await Promise.all(DISCLOSURE_CIRCUITS.map(async (name) => [name, await text(`${PROVER_BASE}circuits/${name}.vk.json`)] as const)))
  const keys = await Effect.runPromise(disclosureKeys(manifest, (name) => bodies.get(name)!))
  return checkProofWith(keys, (name, proof, key) =>
    Effect.tryPromise({
      try: () => worker.verify(name, proof, key),
      catch: (error) => new ProofFailed({ circuit: name, message: error instanceof Error ? error.message : "the worker could not verify" })
    }))
}
