// The page script of the browser prover's suite and bench (bundled by ProverBrowser.ts, run in Chromium): builds the
// register and transfer witnesses on the page (keysFromRawRoot, the witness builders), proves them in the worker
// (browser/ProverClient.ts) and counts the page's own timer ticks and frames meanwhile. Browser code: no node:*.
import { bytesToHex } from "@noble/hashes/utils.js"
import type { ProgressEvent } from "../../client/src/confidential/browser/ProverClient.ts"
import { startProver } from "../../client/src/confidential/browser/ProverClient.ts"
import type { ProverSetup, Ready } from "../../client/src/confidential/browser/ProverProtocol.ts"
import { H, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot } from "../../client/src/confidential/crypto/KeyDerivation.ts"
import { registerWitness } from "../../client/src/confidential/witness/Register.ts"
import { transferWitness } from "../../client/src/confidential/witness/Transfer.ts"

export type PagedCircuit = "register" | "transfer"

export interface PageOptions {
  /** Proofs per circuit. */
  readonly runs: number
  /** The worker's default (hardwareConcurrency when isolated, else 1) when absent. */
  readonly threads?: number
}

export interface PageProof {
  readonly circuit: PagedCircuit
  readonly proof: string
  readonly publicInputs: string
  /** The witness builder's public inputs: what the contract would assemble. */
  readonly expected: string
  /** In the worker: execution + proof. */
  readonly ms: number
  readonly executeMs: number
  /** On the page, from postMessage to the answer. */
  readonly pageMs: number
  /** The page's 5 ms timer ticks and animation frames while the worker proved. */
  readonly ticks: number
  readonly frames: number
  /** The longest wait between two timer ticks meanwhile: how long the page's main thread was ever busy. */
  readonly longestGapMs: number
}

export interface PageResult {
  readonly ready: Ready
  readonly hardwareConcurrency: number
  /** From startProver to ready, on the page. */
  readonly setupMs: number
  readonly keys: Readonly<Record<PagedCircuit, string>>
  readonly keyMs: Readonly<Record<PagedCircuit, number>>
  readonly proofs: ReadonlyArray<PageProof>
  readonly progress: ReadonlyArray<ProgressEvent>
}

export interface PageFailures {
  /** A register artifact that is another circuit's: the worker's VersionMismatch, rebuilt on the page. */
  readonly swappedArtifact: string
  /** A proof cancelled while it runs. */
  readonly cancelled: string
  readonly cancelledAt: string
}

export interface PageApi {
  readonly prove: (options: PageOptions) => Promise<PageResult>
  readonly failures: () => Promise<PageFailures>
}

/** The members of the page's global scope used here (the project compiles without the DOM lib). */
interface PageScope {
  readonly navigator: { readonly hardwareConcurrency: number }
  requestAnimationFrame(callback: () => void): number
  proverPage?: PageApi
}
// The cast is the boundary: on a page `globalThis` is the Window.
const page = globalThis as unknown as PageScope

const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const sender = keysFromRawRoot(new Uint8Array(32).fill(1), { contract: CONTRACT, account: "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF" })
const recipient = keysFromRawRoot(new Uint8Array(32).fill(2), { contract: CONTRACT, account: "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO" })

const witnessOf = (circuit: PagedCircuit) =>
  circuit === "register"
    ? registerWitness(sender)
    : transferWitness({
        keys: sender,
        spendable: { value: 1_000n, blinding: 0x2a2a2a2an },
        recipientViewingKey: recipient.viewingPublicKey,
        recipientAuditorKey: scalarMul(0xa0d17n, H),
        senderAuditorKey: scalarMul(0x5e4d3n, H),
        amount: 100n
      })

const setupFor = (threads: number | undefined, register = "/circuits/register.json"): ProverSetup => ({
  manifest: { url: "/circuits/manifest.json" },
  circuits: { register: { url: register }, transfer: { url: "/circuits/transfer.json" } },
  crs: { g1: "/crs/bn254_g1.dat", g2: "/crs/bn254_g2.dat" },
  ...(threads === undefined ? {} : { threads })
})

const WORKER_URL = "/prover/prover-worker.js"

/** The page's own pulse: a 5 ms timer and animation frames, counted while the worker proves. */
const pulse = () => {
  const state = { ticks: 0, frames: 0, last: performance.now(), longestGap: 0 }
  setInterval(() => {
    const now = performance.now()
    state.longestGap = Math.max(state.longestGap, now - state.last)
    state.last = now
    state.ticks++
  }, 5)
  const frame = () => {
    state.frames++
    page.requestAnimationFrame(frame)
  }
  page.requestAnimationFrame(frame)
  return state
}

const prove = async (options: PageOptions): Promise<PageResult> => {
  const beat = pulse()
  const progress: Array<ProgressEvent> = []
  const started = performance.now()
  const prover = startProver({ workerUrl: WORKER_URL, setup: setupFor(options.threads), onProgress: (e) => progress.push(e) })
  try {
    const ready = await prover.ready
    const setupMs = Math.round(performance.now() - started)
    const keys: Record<PagedCircuit, string> = { register: "", transfer: "" }
    const keyMs: Record<PagedCircuit, number> = { register: 0, transfer: 0 }
    const proofs: Array<PageProof> = []
    for (const circuit of ["register", "transfer"] as const) {
      const t = performance.now()
      keys[circuit] = bytesToHex(await prover.verificationKey(circuit))
      keyMs[circuit] = Math.round(performance.now() - t)
      for (let i = 0; i < options.runs; i++) {
        const witness = witnessOf(circuit)
        const before = { ticks: beat.ticks, frames: beat.frames }
        // The gap counts from here: building the witness above ran on this thread, before the worker's turn.
        beat.longestGap = 0
        beat.last = performance.now()
        const sent = performance.now()
        const proved = await prover.prove(circuit, witness.inputs)
        proofs.push({
          circuit,
          proof: bytesToHex(proved.proof),
          publicInputs: bytesToHex(proved.publicInputs),
          expected: bytesToHex(witness.publicInputs),
          ms: proved.ms,
          executeMs: proved.executeMs,
          pageMs: Math.round(performance.now() - sent),
          ticks: beat.ticks - before.ticks,
          frames: beat.frames - before.frames,
          longestGapMs: Math.round(beat.longestGap)
        })
      }
    }
    return {
      ready,
      hardwareConcurrency: page.navigator.hardwareConcurrency,
      setupMs,
      keys,
      keyMs,
      proofs,
      progress
    }
  } finally {
    prover.cancel()
  }
}

const tagOf = (error: unknown) => (typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : `untagged: ${String(error)}`)

const failures = async (): Promise<PageFailures> => {
  const swapped = startProver({ workerUrl: WORKER_URL, setup: setupFor(1, "/circuits/withdraw.json") })
  const swappedArtifact = await swapped.ready.then(() => "ready", tagOf)
  swapped.cancel()

  let cancelledAt = "never"
  const prover = startProver({
    workerUrl: WORKER_URL,
    setup: setupFor(1),
    // Cancel as soon as the proof itself starts: bb is busy in its worker, and the page ends it.
    onProgress: (event) => {
      if (event.request === "prove" && event.stage === "proving") {
        cancelledAt = event.stage
        prover.cancel()
      }
    }
  })
  const cancelled = await prover.prove("register", witnessOf("register").inputs).then(() => "proved", tagOf)
  return { swappedArtifact, cancelled, cancelledAt }
}

page.proverPage = { prove, failures }
