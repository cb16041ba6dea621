// The page's side of the prover worker (ProverWorker.ts): requests as Promises, progress as events, cancel as the
// worker's end. Small on purpose: it imports no bb.js or noir_js (the worker does), so a page that imports it loads
// the prover only when it calls startProver. Browser-safe: no node:*.
import { Data } from "effect"
import { CrsMissing, ProofFailed, VersionMismatch } from "../Errors.ts"
import type { AnyCircuitName } from "../proving/Artifacts.ts"
import { CrsRefused } from "../proving/ProvingErrors.ts"
import type { Proved, ProverRequest, ProverResponse, ProverSetup, Ready, Stage, WireError } from "./ProverProtocol.ts"

/** The worker ended before it answered: the page cancelled (terminated it), or it crashed (an error event). */
export class ProverStopped extends Data.TaggedError("ProverStopped")<{
  readonly reason: "Cancelled" | "Crashed"
  readonly message: string
}> {}

export type ProverError = ProofFailed | CrsMissing | CrsRefused | VersionMismatch | ProverStopped

export interface ProgressEvent {
  readonly request: ProverRequest["kind"]
  readonly circuit?: string
  readonly stage: Stage
}

/** The members of a Worker used here (the project compiles without the DOM lib). */
export interface WorkerLike {
  postMessage(message: ProverRequest): void
  terminate(): void
  // Only ProverWorker.ts posts to the page, and only ProverResponse values.
  addEventListener(type: "message", listener: (event: { readonly data: ProverResponse }) => void): void
  addEventListener(type: "error", listener: (event: { readonly message?: string }) => void): void
}

export interface ProverClientOptions {
  /** dist/prover/prover-worker.js as the page serves it (same origin; the rest of dist/prover beside it). */
  readonly workerUrl: string | URL
  readonly setup: ProverSetup
  /** Every request's progress, in order. */
  readonly onProgress?: (event: ProgressEvent) => void
  /** The page's Worker constructor by default. */
  readonly makeWorker?: (url: string | URL) => WorkerLike
}

export interface ProverClient {
  /** Resolves once the worker has its circuits, its checked CRS and bb.js running. */
  readonly ready: Promise<Ready>
  readonly prove: (circuit: AnyCircuitName, inputs: Extract<ProverRequest, { kind: "prove" }>["inputs"]) => Promise<Proved>
  /** bb's binary verification key (VK_BINARY_BYTES). */
  readonly verificationKey: (circuit: AnyCircuitName) => Promise<Uint8Array>
  /** Whether `proof` verifies under `key` (bb's binary form); `circuit` only labels a failure. */
  readonly verify: (circuit: string, proof: { readonly proof: Uint8Array; readonly publicInputs: Uint8Array }, key: Uint8Array) => Promise<boolean>
  /** Terminates the worker: every pending request rejects with ProverStopped "Cancelled", and so does any later one. */
  readonly cancel: () => void
}

export const fromWire = (error: WireError): Exclude<ProverError, ProverStopped> => {
  switch (error._tag) {
    case "ProofFailed":
      return new ProofFailed({ circuit: error.circuit, message: error.message })
    case "CrsMissing":
      return new CrsMissing({ message: error.message })
    case "CrsRefused":
      return new CrsRefused({ reason: error.reason, message: error.message })
    case "VersionMismatch":
      return new VersionMismatch({ subject: error.subject, expected: error.expected, actual: error.actual, message: error.message })
  }
}

// The cast is the boundary: in a page (or a worker) the global Worker constructor is there; tsc has no DOM lib.
const pageWorker = (url: string | URL): WorkerLike =>
  new (globalThis as unknown as { Worker: new (url: string | URL, options: { type: "module" }) => WorkerLike }).Worker(url, { type: "module" })

interface Pending {
  readonly request: ProverRequest["kind"]
  readonly circuit?: string
  readonly settle: (response: ProverResponse) => void
  readonly reject: (error: ProverError) => void
}

/** Starts the worker (this is when the page fetches it) and sends it its setup at once. */
export const startProver = (options: ProverClientOptions): ProverClient => {
  const worker = (options.makeWorker ?? pageWorker)(options.workerUrl)
  const pending = new Map<number, Pending>()
  let nextId = 0
  let stopped: ProverStopped | undefined

  const stop = (error: ProverStopped) => {
    if (stopped !== undefined) return
    stopped = error
    worker.terminate()
    for (const p of pending.values()) p.reject(error)
    pending.clear()
  }

  worker.addEventListener("message", ({ data }) => {
    const p = pending.get(data.id)
    if (p === undefined) return
    if (data.kind === "progress") {
      options.onProgress?.({ request: p.request, ...(p.circuit === undefined ? {} : { circuit: p.circuit }), stage: data.stage })
      return
    }
    pending.delete(data.id)
    if (data.kind === "failed") p.reject(fromWire(data.error))
    else p.settle(data)
  })
  worker.addEventListener("error", (event) =>
    stop(new ProverStopped({ reason: "Crashed", message: `the prover worker stopped${event.message === undefined ? "" : `: ${event.message}`}` }))
  )

  const request = <A>(message: ProverRequest, pick: (response: ProverResponse) => A | undefined): Promise<A> =>
    new Promise<A>((resolve, reject) => {
      if (stopped !== undefined) return reject(stopped)
      const circuit = message.kind === "setup" ? undefined : message.circuit
      pending.set(message.id, {
        request: message.kind,
        ...(circuit === undefined ? {} : { circuit }),
        reject,
        settle: (response) => {
          const value = pick(response)
          if (value === undefined) reject(new ProofFailed({ circuit: circuit ?? "*", message: `the prover worker answered ${response.kind} to ${message.kind}` }))
          else resolve(value)
        }
      })
      worker.postMessage(message)
    })

  const ready = request({ id: nextId++, kind: "setup", setup: options.setup }, (r) => (r.kind === "ready" ? r.ready : undefined))
  // A caller that only proves sees the setup's failure there (as "not set up"); this keeps it from being unhandled.
  ready.catch(() => undefined)

  return {
    ready,
    prove: (circuit, inputs) => request({ id: nextId++, kind: "prove", circuit, inputs }, (r) => (r.kind === "proved" ? r.proved : undefined)),
    verify: (circuit, { proof, publicInputs }, key) =>
      request({ id: nextId++, kind: "verify", circuit, proof, publicInputs, key }, (r) => (r.kind === "verified" ? r.ok : undefined)),
    verificationKey: (circuit) =>
      request({ id: nextId++, kind: "verificationKey", circuit }, (r) => (r.kind === "verificationKey" ? r.key : undefined)),
    cancel: () => stop(new ProverStopped({ reason: "Cancelled", message: "the prover was cancelled" }))
  }
}
