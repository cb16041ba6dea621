// Proof time and memory of the selective-disclosure circuits (client/circuits/disclosure; bb.js 0.87 UltraHonk, keccak,
// in Node, one bb thread), each single-event circuit and each aggregate at its size with every slot used, and the
// verifier's check of one proof under the committed key (what the verifier's step 5 costs). A benchmark, not a test.
//
//   node_modules/.bin/node bench/disclosure.ts        (BENCH_RUNS=3 proofs per circuit; CRS_DIR, else client/crs)
//
// bench/disclosure-browser.ts proves the same witnesses (witnessOf) in Chromium's prover worker.
//
// Each circuit runs in a child process of its own, so that its peak RSS (sampled every 10 ms; bb's wasm memory lives in
// worker threads of the same process) is its own. Timings include witness execution (noir_js) and, for the first
// proof, bb's proving key; an aggregate's time does not depend on how many of its slots are used (unused ones are zero
// events the circuit still evaluates).
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { cpus, loadavg } from "node:os"
import type { TransferCiphertext } from "../client/src/confidential/crypto/Decrypt.ts"
import { deriveEphemeralScalar } from "../client/src/confidential/crypto/EphemeralScalar.ts"
import { fieldFromBytes } from "../client/src/confidential/crypto/Field.ts"
import { H, pointFromBytes, scalarMul } from "../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { discloseReceivedTotalWitness, discloseSentTotalWitness } from "../client/src/confidential/disclosure/Aggregate.ts"
import { discloseAuditorWitness } from "../client/src/confidential/disclosure/Auditor.ts"
import { DISCLOSURE_CIRCUITS, type DisclosureCircuitName } from "../client/src/confidential/disclosure/DisclosureCircuits.ts"
import { loadDisclosureCircuits, loadDisclosureKeys } from "../client/src/confidential/disclosure/DisclosureFiles.ts"
import type { DisclosureWitness } from "../client/src/confidential/disclosure/Inputs.ts"
import { discloseRecipientWitness } from "../client/src/confidential/disclosure/Recipient.ts"
import { discloseSenderWitness } from "../client/src/confidential/disclosure/Sender.ts"
import { crsDirFromEnv, loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver } from "../client/src/confidential/proving/Prover.ts"
import { transferWitness } from "../client/src/confidential/witness/Transfer.ts"

const runs = Number(process.env["BENCH_RUNS"] ?? "3")
const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const company = keysFromRawRoot(new Uint8Array(32).fill(1), { contract: CONTRACT, account: "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF" })
const contractor = keysFromRawRoot(new Uint8Array(32).fill(2), { contract: CONTRACT, account: "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO" })
const AUDITOR = 0x5e4d3n
const request = { recipientKey: scalarMul(0xb4a4en, H), nonce: 0x4e0e5n }

/** A payout as the token emits it (the project's transfer witness, r_e derived as the wallet now derives it). */
const payout = (i: number) => {
  const sigma = BigInt(0x6a1 + i * 0x100)
  const { payload } = transferWitness({
    keys: company, spendable: { value: 1_000_000n, blinding: 0x2a2a2a2an }, recipientViewingKey: contractor.viewingPublicKey,
    recipientAuditorKey: scalarMul(0xa0d17n, H), senderAuditorKey: scalarMul(AUDITOR, H), amount: BigInt(1_000 + i), sigma,
    ephemeral: deriveEphemeralScalar(company.vk, sigma)
  })
  const event: TransferCiphertext = { ephemeralKey: pointFromBytes(payload.r_e_point), vTilde: fieldFromBytes(payload.v_tilde), sigma }
  return { event, audS: fieldFromBytes(payload.v_tilde_aud_s) }
}

export const witnessOf = (name: DisclosureCircuitName): DisclosureWitness => {
  const [first] = [payout(0)]
  const slots = name.endsWith("_24") ? 24 : name.endsWith("_8") ? 8 : 1
  const events = Array.from({ length: slots }, (_, i) => payout(i).event)
  const toContractor = { recipientViewingKey: contractor.viewingPublicKey }
  switch (name) {
    case "disclose_recipient":
      return discloseRecipientWitness({ keys: contractor, event: first.event, request })
    case "disclose_sender":
      return discloseSenderWitness({ keys: company, event: first.event, ...toContractor, request })
    case "disclose_auditor":
      return discloseAuditorWitness({ auditorSecret: AUDITOR, channel: "sender", event: { ...first.event, vTildeAud: first.audS }, request })
    case "disclose_recipient_8":
    case "disclose_recipient_24":
      return discloseReceivedTotalWitness({ keys: contractor, events, size: slots as 8 | 24, request })
    case "disclose_sender_8":
    case "disclose_sender_24":
      return discloseSentTotalWitness({ keys: company, events, size: slots as 8 | 24, ...toContractor, request })
  }
}

export interface Figures {
  readonly circuit: DisclosureCircuitName
  readonly proveMs: ReadonlyArray<number>
  readonly verifyMs: number
  readonly rssStartMb: number
  readonly rssPeakMb: number
}

const child = async (name: DisclosureCircuitName, crsDir: string): Promise<Figures> => {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
  const rssStart = process.memoryUsage().rss
  let rssPeak = rssStart
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
  }, 10)
  const ms = (since: number) => Math.round(performance.now() - since)
  const figures = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const prover = yield* makeProver({ crs: yield* loadCrsDir(crsDir), threads: 1 })
    const circuit = (yield* loadDisclosureCircuits())[name]
    const key = (yield* loadDisclosureKeys())[name]
    const proveMs: Array<number> = []
    let last
    for (let i = 0; i < runs; i++) {
      const inputs = witnessOf(name).inputs
      const t = performance.now()
      last = yield* prover.prove(circuit, inputs)
      proveMs.push(ms(t))
    }
    const t = performance.now()
    if (last === undefined || !(yield* prover.verifyWithKey!(name, last, key))) throw new Error(`the ${name} proof does not verify under its committed key`)
    return { proveMs, verifyMs: ms(t) }
  })))
  clearInterval(sampler)
  return { circuit: name, ...figures, rssStartMb: mb(rssStart), rssPeakMb: mb(rssPeak) }
}

// Imported (by bench/disclosure-browser.ts for witnessOf), this file runs nothing.
if (import.meta.main) {
  const [, , mode, nameArg, crsDirArg] = process.argv
  if (mode === "--child") {
    console.log(JSON.stringify(await child(nameArg as DisclosureCircuitName, crsDirArg!)))
    process.exit(0)
  }

  const crsDir = crsDirFromEnv()
  console.log(`${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, ${runs} proofs a circuit, 1 bb thread, load ${loadavg()[0]!.toFixed(1)}\n`)
  console.log("circuit                 prove ms (each)           verify ms   RSS start→peak MB")
  for (const name of DISCLOSURE_CIRCUITS) {
    const out = execFileSync(process.execPath, [import.meta.filename, "--child", name, crsDir], { encoding: "utf8" })
    const f = JSON.parse(out.trim().split("\n").at(-1)!) as Figures
    console.log(`${f.circuit.padEnd(22)}  ${f.proveMs.join(", ").padEnd(24)} ${String(f.verifyMs).padStart(9)}   ${`${f.rssStartMb}→${f.rssPeakMb}`.padStart(17)}`)
  }
}
