// Proof time and memory of the confidential client's prover (bb.js 0.87 UltraHonk, keccak, in Node), for the
// register and transfer circuits with 1 and 2 bb threads. A benchmark, not a test: it prints figures.
//
//   node_modules/.bin/node bench/proving.ts          (BENCH_RUNS=3 proofs per case; CRS_DIR, else the project's copy of Aztec Ignition's CRS)
//
// Each case runs in a child process of its own, so its peak RSS (sampled every 10 ms; bb's wasm memory lives in
// worker threads of the same process) is its own. Timings include witness execution (noir_js), not the VK.
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { cpus } from "node:os"
import * as Path from "node:path"
import { H, scalarMul } from "../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { type CircuitArtifact, type CircuitName, loadCircuit, type Manifest } from "../client/src/confidential/proving/Artifacts.ts"
import { crsDirFromEnv, loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver } from "../client/src/confidential/proving/Prover.ts"
import { registerWitness } from "../client/src/confidential/witness/Register.ts"
import { transferWitness } from "../client/src/confidential/witness/Transfer.ts"

const root = Path.resolve(import.meta.dirname, "..")
const runs = Number(process.env["BENCH_RUNS"] ?? "3")
const CASES: ReadonlyArray<readonly [CircuitName, number]> = [["register", 1], ["register", 2], ["transfer", 1], ["transfer", 2]]

interface Figures {
  readonly circuit: string
  readonly threads: number
  readonly vkMs: number
  readonly proveMs: ReadonlyArray<number>
  readonly verifyMs: number
  readonly rssStartMb: number
  readonly rssPeakMb: number
  readonly heapPeakMb: number
}

const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const sender = keysFromRawRoot(new Uint8Array(32).fill(1), { contract: CONTRACT, account: "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF" })
const recipient = keysFromRawRoot(new Uint8Array(32).fill(2), { contract: CONTRACT, account: "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO" })
const inputsFor = (circuit: CircuitName) =>
  circuit === "register"
    ? registerWitness(sender).inputs
    : transferWitness({
        keys: sender,
        spendable: { value: 1_000n, blinding: 0x2a2a2a2an },
        recipientViewingKey: recipient.viewingPublicKey,
        recipientAuditorKey: scalarMul(0xa0d17n, H),
        senderAuditorKey: scalarMul(0x5e4d3n, H),
        amount: 100n
      }).inputs

const child = async (circuitName: CircuitName, threads: number, crsDir: string): Promise<Figures> => {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
  const rssStart = process.memoryUsage().rss
  let rssPeak = rssStart
  let heapPeak = 0
  const sampler = setInterval(() => {
    const m = process.memoryUsage()
    rssPeak = Math.max(rssPeak, m.rss)
    heapPeak = Math.max(heapPeak, m.heapUsed)
  }, 10)
  const dir = Path.join(root, "client/circuits/8af46e2c")
  const manifest = JSON.parse(readFileSync(Path.join(dir, "manifest.json"), "utf8")) as Manifest
  const artifact = JSON.parse(readFileSync(Path.join(dir, `${circuitName}.json`), "utf8")) as CircuitArtifact
  const ms = (since: number) => Math.round(performance.now() - since)
  const figures = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const crs = yield* loadCrsDir(crsDir)
        const circuit = yield* loadCircuit(circuitName, artifact, manifest)
        const prover = yield* makeProver({ crs, threads })
        let t = performance.now()
        yield* prover.verificationKey(circuit)
        const vkMs = ms(t)
        const proveMs: Array<number> = []
        let last
        for (let i = 0; i < runs; i++) {
          const inputs = inputsFor(circuitName)
          t = performance.now()
          last = yield* prover.prove(circuit, inputs)
          proveMs.push(ms(t))
        }
        t = performance.now()
        if (last === undefined || !(yield* prover.verify(circuit, last))) throw new Error("the proof does not verify")
        return { vkMs, proveMs, verifyMs: ms(t) }
      })
    )
  )
  clearInterval(sampler)
  return { circuit: circuitName, threads, ...figures, rssStartMb: mb(rssStart), rssPeakMb: mb(rssPeak), heapPeakMb: mb(heapPeak) }
}

const [, , mode, circuitArg, threadsArg, crsDirArg] = process.argv
if (mode === "--child") {
  console.log(JSON.stringify(await child(circuitArg as CircuitName, Number(threadsArg), crsDirArg!)))
  process.exit(0)
}

const crsDir = crsDirFromEnv()
const crs = await Effect.runPromise(loadCrsDir(crsDir))
console.log(`CRS: Aztec Ignition's, ${crs.points} points in ${crsDir}`)
console.log(`${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, ${runs} proofs a case\n`)
console.log("circuit   threads   vk ms   prove ms (each)         verify ms   RSS start→peak MB   heap peak MB")
for (const [circuit, threads] of CASES) {
  const out = execFileSync(process.execPath, [import.meta.filename, "--child", circuit, String(threads), crsDir], { encoding: "utf8" })
  const f = JSON.parse(out.trim().split("\n").at(-1)!) as Figures
  console.log(
    `${f.circuit.padEnd(9)} ${String(f.threads).padStart(7)} ${String(f.vkMs).padStart(7)}   ${f.proveMs.join(", ").padEnd(22)} ${String(f.verifyMs).padStart(9)}   ${`${f.rssStartMb}→${f.rssPeakMb}`.padStart(17)}   ${String(f.heapPeakMb).padStart(12)}`
  )
}
