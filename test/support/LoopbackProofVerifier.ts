// A proof verifier the loopback's contract handlers can call synchronously (they run inside a ledger close), over
// bb.js, which only verifies asynchronously: bb.js runs in a worker thread and the caller blocks on Atomics.wait
// until the worker has answered (receiveMessageOnPort then reads the answer). The ledger stalls for one
// verification (tens of milliseconds), as a validator does while it runs a contract.
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads"
import type { VerifierAnswer } from "./ProofVerifierWorker.ts"

const START_TIMEOUT_MS = 120_000
const VERIFY_TIMEOUT_MS = 60_000

export class LoopbackProofVerifier {
  readonly #worker: Worker
  readonly #port: MessageChannel["port1"]
  readonly #signal: Int32Array
  /** The verification key of each circuit, in bb's binary form, as the verifier contract holds it. */
  readonly vks: Readonly<Record<string, Uint8Array>>

  private constructor(worker: Worker, port: MessageChannel["port1"], signal: Int32Array, vks: Readonly<Record<string, Uint8Array>>) {
    this.#worker = worker
    this.#port = port
    this.#signal = signal
    this.vks = vks
  }

  /** Starts the worker with each circuit's key as the verifier registry holds it, and the CRS in `crsDir` (bb's two files). */
  static async start(options: { readonly crsDir: string; readonly vks: Readonly<Record<string, Uint8Array>> }): Promise<LoopbackProofVerifier> {
    const signal = new Int32Array(new SharedArrayBuffer(4))
    const { port1, port2 } = new MessageChannel()
    const worker = new Worker(new URL("./ProofVerifierWorker.ts", import.meta.url), {
      workerData: { crsDir: options.crsDir, vks: options.vks, signal, port: port2 },
      transferList: [port2]
    })
    worker.unref()
    const first = await new Promise<VerifierAnswer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the proof verifier did not start in time")), START_TIMEOUT_MS)
      port1.once("message", (m: VerifierAnswer) => {
        clearTimeout(timer)
        resolve(m)
      })
      worker.once("error", reject)
    })
    if (first.kind !== "ready") {
      await worker.terminate()
      throw new Error(`the proof verifier could not start: ${first.kind === "error" ? first.message : first.kind}`)
    }
    Atomics.store(signal, 0, 0)
    port1.unref()
    return new LoopbackProofVerifier(worker, port1, signal, options.vks)
  }

  /** UltraHonk (Keccak transcript) verification of `proof` against `publicInputs` (32-byte fields, concatenated). */
  verify(circuit: string, publicInputs: Uint8Array, proof: Uint8Array): boolean {
    const before = Atomics.load(this.#signal, 0)
    this.#port.postMessage({ circuit, publicInputs, proof })
    if (Atomics.wait(this.#signal, 0, before, VERIFY_TIMEOUT_MS) === "timed-out" && Atomics.load(this.#signal, 0) === before) {
      throw new Error("the proof verifier did not answer in time")
    }
    const received = receiveMessageOnPort(this.#port)
    const answer = received?.message as VerifierAnswer | undefined
    if (answer?.kind !== "verified") throw new Error(`the proof verifier failed: ${answer?.kind === "error" ? answer.message : "no answer"}`)
    return answer.valid
  }

  async stop(): Promise<void> {
    await this.#worker.terminate()
  }
}
