// The worker behind LoopbackProofVerifier.ts: bb.js (the prover's own verifier, Barretenberg 0.87) verifies proofs
// against the verification keys it is handed (OZ's published ones) with the Keccak transcript, as the token's verifier
// (NethermindEth/rs-soroban-ultrahonk, reproducing bb's `--oracle_hash keccak`) does. Verifying needs the CRS's first
// G1 point and its G2 point only.
import { Barretenberg, RawBuffer, reconstructHonkProof } from "@aztec/bb.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type MessagePort, workerData } from "node:worker_threads"

interface Init {
  readonly crsDir: string
  readonly vks: Readonly<Record<string, Uint8Array>> // name -> bb's binary verification key
  readonly signal: Int32Array
  readonly port: MessagePort
}

export type VerifierRequest = { readonly circuit: string; readonly publicInputs: Uint8Array; readonly proof: Uint8Array }
export type VerifierAnswer =
  | { readonly kind: "ready" }
  | { readonly kind: "verified"; readonly valid: boolean }
  | { readonly kind: "error"; readonly message: string }

const { crsDir, vks, signal, port } = workerData as Init

const answer = (message: VerifierAnswer) => {
  port.postMessage(message)
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
}

const start = async () => {
  const api = await Barretenberg.new({ threads: 1 })
  // The CRS bytes handed in directly, as the client's prover does (proving/Prover.ts): bb never looks for files of its
  // own nor downloads what is short.
  const g1 = readFileSync(join(crsDir, "bn254_g1.dat")).subarray(0, 64)
  await api.srsInitSrs(new RawBuffer(g1), 1, new RawBuffer(readFileSync(join(crsDir, "bn254_g2.dat"))))
  port.on("message", (request: VerifierRequest) => {
    const vk = vks[request.circuit]
    if (vk === undefined) return answer({ kind: "error", message: `no verification key for ${request.circuit}` })
    api.acirVerifyUltraKeccakHonk(reconstructHonkProof(request.publicInputs, request.proof), new RawBuffer(vk)).then(
      (valid) => answer({ kind: "verified", valid }),
      // bb throws on a proof it cannot even parse (a wrong length): the verifier's `false`
      () => answer({ kind: "verified", valid: false })
    )
  })
  answer({ kind: "ready" })
}

start().catch((e: unknown) => answer({ kind: "error", message: e instanceof Error ? e.message : String(e) }))
