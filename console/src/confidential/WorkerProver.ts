// The prover of a wallet (ConfidentialWallet's `Prover`) backed by the Web Worker (startProver): the worker runs
// noir_js and bb.js, so this page never compiles wasm. It offers what a wallet proving a statement asks for (a proof,
// a verification key); the rest stays in the worker.
import { CrsMissing, type LoadedCircuit, ProofFailed, type Prover, type ProverClient } from "@confidential-payroll/client/confidential"
import { Effect } from "effect"

/**
 * A request to the worker as a `Prover`'s Effect: its ProofFailed and CrsMissing as the typed failures a wallet
 * expects; the worker's other errors (ProverStopped, CrsRefused, VersionMismatch) travel as defects, whole, for the
 * caller to find in the cause.
 */
const viaWorker = <A>(request: () => Promise<A>): Effect.Effect<A, ProofFailed | CrsMissing> =>
  Effect.tryPromise({ try: request, catch: (error) => error }).pipe(
    Effect.catchAll((error) => (error instanceof ProofFailed || error instanceof CrsMissing ? Effect.fail(error) : Effect.die(error)))
  )

const notHere = (circuit: LoadedCircuit, what: string) =>
  Effect.fail(new ProofFailed({ circuit: circuit.name, message: `the prover worker does not ${what} for the page` }))

export const workerProver = (worker: ProverClient): Prover => ({
  execute: (circuit) => notHere(circuit, "hand out witnesses"),
  proveWitness: (circuit) => notHere(circuit, "prove a witness made elsewhere"),
  verify: (circuit) => notHere(circuit, "verify proofs"),
  prove: (circuit, inputs) =>
    Effect.map(viaWorker(() => worker.prove(circuit.name, inputs)), ({ proof, publicInputs }) => ({ proof, publicInputs })),
  verificationKey: (circuit) => viaWorker(() => worker.verificationKey(circuit.name))
})
