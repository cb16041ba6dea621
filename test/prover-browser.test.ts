// The confidential client's prover in Chromium, off the page's main thread (issue 30 §2, §4). The prover bundle
// (scripts/ProverBundle.ts) and a page script (support/ProverPage.ts) are built afresh and served from 127.0.0.1 with
// the circuits and Aztec Ignition's CRS, once without and once with cross-origin isolation (COOP + COEP). The page builds a
// register and a transfer witness itself and proves both in the worker; the proofs come back to Node, where bb.js
// verifies them against OZ's published keys (a proof counts only then). Timings are recorded, never asserted.
//
// Requests: Playwright's request events record every URL the page and its workers ask for (bb's nested workers too);
// all must be the page's own origin. Chromium also runs behind a proxy that records and refuses whatever would leave
// 127.0.0.1: the only requests it may see are Chromium's own background services, which it makes with no page open.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { hexToBytes } from "@noble/hashes/utils.js"
import { Effect, Exit, Scope } from "effect"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import * as Path from "node:path"
import { type CircuitArtifact, type LoadedCircuit, loadCircuit, type Manifest } from "../client/src/confidential/proving/Artifacts.ts"
import { BUNDLED_CRS_DIR, loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver, PROOF_BYTES, type Prover } from "../client/src/confidential/proving/Prover.ts"
import { VK_BINARY_BYTES } from "../client/src/confidential/proving/VerificationKey.ts"
import { ozVerificationKey } from "./support/ConfidentialProving.ts"
import type { PageResult, PagedCircuit } from "./support/ProverPage.ts"
import {
  type Built, buildAll, type Chromium, CIRCUITS_DIR, failuresPage, launchChromium, type PageRun, provePage, serveSite, type Site,
  startTrap, type Trap
} from "./support/ProverBrowser.ts"

/** Chromium's own services (component updates, GAIA), which it calls even on about:blank with every background switch off. */
const CHROMIUM_SERVICES = ["update.googleapis.com", "accounts.google.com"]

const scope = Effect.runSync(Scope.make())
let built: Built
let plain: Site
let isolated: Site
let trap: Trap
let chromium: Chromium
let prover: Prover
let circuits: Record<PagedCircuit, LoadedCircuit>
let nodeKeys: Record<PagedCircuit, Uint8Array>
const figures: Array<string> = []

beforeAll(async () => {
  const json = <A>(file: string) => JSON.parse(readFileSync(Path.join(CIRCUITS_DIR, file), "utf8")) as A
  const manifest = json<Manifest>("manifest.json")
  const setup = Effect.gen(function* () {
    const crs = yield* loadCrsDir()
    const load = (name: PagedCircuit) => loadCircuit(name, json<CircuitArtifact>(`${name}.json`), manifest)
    circuits = { register: yield* load("register"), transfer: yield* load("transfer") }
    prover = yield* makeProver({ crs, threads: 1 })
    nodeKeys = { register: ozVerificationKey("register"), transfer: ozVerificationKey("transfer") }
  })
  await Effect.runPromise(Scope.extend(setup, scope))
  built = await buildAll()
  plain = await serveSite(built, BUNDLED_CRS_DIR, false)
  isolated = await serveSite(built, BUNDLED_CRS_DIR, true)
  trap = await startTrap()
  chromium = await launchChromium(trap)
}, 240_000)

afterAll(async () => {
  await chromium?.close()
  await Promise.all([plain?.close(), isolated?.close(), trap?.close()])
  await built?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  if (figures.length > 0) console.log(`[browser proving figures] load average ${loadavg()[0]!.toFixed(1)}; ${figures.join("; ")}`)
})

/**
 * Every proof: 14,592 bytes, the witness's public inputs, accepted by bb.js in Node against OZ's published keys, which
 * are the keys the page computed; the page kept ticking meanwhile.
 */
const checkRun = async (run: PageRun<PageResult>, site: Site) => {
  const { result } = run
  expect(result.ready).toMatchObject({ crossOriginIsolated: site.isolated, crs: { points: 32_769 }, circuits: ["register", "transfer"] })
  for (const circuit of ["register", "transfer"] as const) {
    expect(hexToBytes(result.keys[circuit]).length).toBe(VK_BINARY_BYTES)
    expect(result.keys[circuit]).toBe(Buffer.from(nodeKeys[circuit]).toString("hex"))
  }
  expect(result.proofs.map((p) => p.circuit)).toEqual(["register", "transfer"])
  for (const p of result.proofs) {
    const proof = { proof: hexToBytes(p.proof), publicInputs: hexToBytes(p.publicInputs) }
    expect(proof.proof.length).toBe(PROOF_BYTES)
    expect(p.publicInputs).toBe(p.expected)
    expect(await Effect.runPromise(prover.verify(circuits[p.circuit], proof))).toBe(true)
    // The page's main thread ran its 5 ms timer and drew frames while the worker proved.
    expect(p.ticks).toBeGreaterThan(0)
    expect(p.frames).toBeGreaterThan(0)
  }
  const proveStages = result.progress.filter((e) => e.request === "prove" && e.circuit === "register").map((e) => e.stage)
  expect(proveStages).toEqual(["executing-witness", "proving"])
  expect(result.progress.filter((e) => e.request === "setup").map((e) => e.stage)).toEqual(["loading-circuits", "loading-crs", "starting-prover"])
  expect(run.requested.length).toBeGreaterThan(0)
  expect(run.requested.filter((url) => !url.startsWith(`${site.origin}/`))).toEqual([])
  expect(run.consoleErrors).toEqual([])
}

const describeRun = (label: string, run: PageRun<PageResult>) => {
  const ms = (circuit: PagedCircuit) => run.result.proofs.filter((p) => p.circuit === circuit).map((p) => p.ms).join("/")
  const gap = Math.max(...run.result.proofs.map((p) => p.longestGapMs))
  return `${label} (${run.result.ready.threads} thread${run.result.ready.threads === 1 ? "" : "s"}): setup ${run.result.ready.ms} ms, ` +
    `register ${ms("register")} ms, transfer ${ms("transfer")} ms, longest main-thread gap ${gap} ms, ` +
    `renderer PSS ${run.memory.rendererStartMb}→${run.memory.rendererPeakMb} MB (all Chromium's peak ${run.memory.totalPeakMb} MB)`
}

describe("the prover in Chromium", () => {
  it("proves register and transfer in a worker without cross-origin isolation, on one thread", async () => {
    const run = await provePage(chromium, plain, { runs: 1 })
    expect(run.result.ready.threads).toBe(1)
    await checkRun(run, plain)
    figures.push(describeRun("not isolated", run))
  }, 300_000)

  it("proves on navigator.hardwareConcurrency threads when cross-origin isolated", async () => {
    const run = await provePage(chromium, isolated, { runs: 1 })
    expect(run.result.ready.threads).toBe(run.result.hardwareConcurrency)
    await checkRun(run, isolated)
    figures.push(describeRun("isolated", run))
  }, 300_000)

  it("rebuilds the worker's typed errors on the page, and cancels a running proof by ending the worker", async () => {
    const run = await failuresPage(chromium, plain)
    expect(run.result).toEqual({ swappedArtifact: "VersionMismatch", cancelled: "ProverStopped", cancelledAt: "proving" })
    expect(run.requested.filter((url) => !url.startsWith(`${plain.origin}/`))).toEqual([])
  }, 300_000)

  it("sends nothing beyond 127.0.0.1 but Chromium's own background services", () => {
    const hosts = trap.foreign.map((line) => {
      const target = line.split(" ")[1] ?? ""
      return target.includes("://") ? new URL(target).hostname : target.split(":")[0]
    })
    expect(hosts.filter((host) => host === undefined || !CHROMIUM_SERVICES.includes(host))).toEqual([])
  })
})
