// The messages between a page (ProverClient.ts) and the prover's Web Worker (ProverWorker.ts). Plain postMessage:
// every request carries an id, every answer names the id it answers (progress events too), and the bytes a proof or
// key comes back as travel as transferred ArrayBuffers. Browser-safe: types only, no node:*.
import type { InputMap } from "@noir-lang/noir_js"
import type { DisclosureCircuitName, DisclosureManifest } from "../disclosure/DisclosureCircuits.ts"
import type { AnyCircuitName, CircuitArtifact, CircuitName, Manifest } from "../proving/Artifacts.ts"
import type { CrsRefused } from "../proving/Crs.ts"

/** A value given in the message, or a URL (same origin) the worker fetches it from. */
export type Source<A> = { readonly url: string } | { readonly value: A }

export interface ProverSetup {
  /**
   * The manifest that pins each circuit's ACIR (client/circuits/<commit>/manifest.json). A pin is as good as where it
   * comes from: given as a value from the page's own bundle, it holds even when the server's artifacts change.
   */
  readonly manifest: Source<Manifest>
  /** The circuits this worker will prove, each checked against the manifest before use. */
  readonly circuits: Partial<Record<CircuitName, Source<CircuitArtifact>>>
  /** The selective-disclosure circuits (client/circuits/disclosure), pinned by their own manifest. */
  readonly disclosure?: {
    readonly manifest: Source<DisclosureManifest>
    readonly circuits: Partial<Record<DisclosureCircuitName, Source<CircuitArtifact>>>
  }
  /** bn254_g1.dat and bn254_g2.dat: the worker fetches and checks them (fetchCrs); bb never downloads one. */
  readonly crs: { readonly g1: string; readonly g2: string }
  /**
   * bb's threads: by default navigator.hardwareConcurrency when the page is cross-origin isolated, else 1. Threads
   * share memory, so without isolation bb runs on one whatever this says.
   */
  readonly threads?: number
}

/** What the worker is doing for a request, in order. */
export type Stage = "loading-circuits" | "loading-crs" | "starting-prover" | "verification-key" | "executing-witness" | "proving"

export type ProverRequest =
  | { readonly id: number; readonly kind: "setup"; readonly setup: ProverSetup }
  | { readonly id: number; readonly kind: "prove"; readonly circuit: AnyCircuitName; readonly inputs: InputMap }
  | { readonly id: number; readonly kind: "verificationKey"; readonly circuit: AnyCircuitName }
  /** A proof against a key the page holds (a disclosure verifier's committed key): no circuit needed. */
  | { readonly id: number; readonly kind: "verify"; readonly circuit: string; readonly proof: Uint8Array; readonly publicInputs: Uint8Array; readonly key: Uint8Array }

export interface Ready {
  /** The threads bb runs on. */
  readonly threads: number
  readonly crossOriginIsolated: boolean
  readonly crs: { readonly points: number }
  readonly circuits: ReadonlyArray<AnyCircuitName>
  /** Setup's wall time in the worker (circuits, CRS fetch and check, bb's start). */
  readonly ms: number
}

export interface Proved {
  /** PROOF_BYTES bytes. */
  readonly proof: Uint8Array
  /** 32 bytes a public input, in the circuit's order. */
  readonly publicInputs: Uint8Array
  /** The request's time in the worker: witness execution and proof (and the circuit's key, the first time). */
  readonly ms: number
  /** Of `ms`, noir_js executing the witness. */
  readonly executeMs: number
}

/** A failure as it crosses the boundary: the fields of the typed errors in ../Errors.ts, by tag. */
export type WireError =
  | { readonly _tag: "ProofFailed"; readonly circuit: string; readonly message: string }
  | { readonly _tag: "CrsMissing"; readonly message: string }
  | { readonly _tag: "CrsRefused"; readonly reason: CrsRefused["reason"]; readonly message: string }
  | { readonly _tag: "VersionMismatch"; readonly subject: string; readonly expected: string; readonly actual: string; readonly message: string }

export type ProverResponse =
  | { readonly id: number; readonly kind: "progress"; readonly stage: Stage }
  | { readonly id: number; readonly kind: "ready"; readonly ready: Ready }
  | { readonly id: number; readonly kind: "proved"; readonly proved: Proved }
  | { readonly id: number; readonly kind: "verificationKey"; readonly key: Uint8Array }
  | { readonly id: number; readonly kind: "verified"; readonly ok: boolean; readonly ms: number }
  | { readonly id: number; readonly kind: "failed"; readonly error: WireError }

/** The buffers of an answer, to transfer instead of copy. */
export const transferables = (response: ProverResponse): Array<ArrayBuffer> => {
  // Each buffer once (postMessage refuses a list that names one twice), and never a SharedArrayBuffer.
  const buffers = (...arrays: ReadonlyArray<Uint8Array>) => [...new Set(arrays.flatMap((a) => (a.buffer instanceof ArrayBuffer ? [a.buffer] : [])))]
  switch (response.kind) {
    case "proved":
      return buffers(response.proved.proof, response.proved.publicInputs)
    case "verificationKey":
      return buffers(response.key)
    default:
      return []
  }
}
