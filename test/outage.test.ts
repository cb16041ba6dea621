import { describe, expect, it } from "@effect/vitest"
import type { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer, Metric, Schedule } from "effect"
import { reconcilerRounds } from "../src/Observability/Metrics.ts"
import { call } from "./support/Client.ts"
import { privateCluster } from "./support/PrivateCluster.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

interface Sample {
  readonly at: number
  readonly route: string
  readonly status: number | "hung" | "refused"
  readonly retryAfter: string | null
  readonly ms: number
}

const DB_ROUTES = new Set(["GET /me", "GET /batch/{jobId}", "POST /transfer"])

/** What each route answers while the database is up (the job polled belongs to no client: 404 after a lookup). */
const NORMAL: Record<string, number> = {
  "GET /me": 200,
  "GET /health/ready": 200,
  "GET /health/live": 200,
  "GET /batch/{jobId}": 404,
  "POST /transfer": 200
}
const UNKNOWN_JOB = "7b0c4a43-3c5e-4c5a-9c56-1f0f6f1f7d10"

/** One request with 15 s of patience: answered (its status), left hanging, or refused. */
const sample = async (app: TestAppShape, route: string, path: string, init: RequestInit): Promise<Sample> => {
  const at = Date.now()
  try {
    const response = await fetch(`${app.url}${path}`, { ...init, signal: AbortSignal.timeout(15_000) })
    await response.arrayBuffer()
    return { at, route, status: response.status, retryAfter: response.headers.get("retry-after"), ms: Date.now() - at }
  } catch (e) {
    const status = e instanceof Error && e.name === "TimeoutError" ? "hung" : "refused"
    return { at, route, status, retryAfter: null, ms: Date.now() - at }
  }
}

/** A client that keeps calling until `stop()`: its own wallet, so its transfers never race each other's sequence. */
const loadLoop = (app: TestAppShape, employer: { readonly wallet: Keypair; readonly token: string }) => {
  const samples: Array<Sample> = []
  let running = true
  const auth = { authorization: `Bearer ${employer.token}`, "content-type": "application/json" }
  const done = (async () => {
    for (let i = 0; running; i++) {
      switch (i % 5) {
        case 0:
          samples.push(await sample(app, "GET /me", "/me", { headers: auth }))
          break
        case 1:
          samples.push(await sample(app, "GET /health/ready", "/health/ready", {}))
          break
        case 2:
          samples.push(await sample(app, "GET /health/live", "/health/live", {}))
          break
        case 3:
          samples.push(await sample(app, "GET /batch/{jobId}", `/batch/${UNKNOWN_JOB}`, { headers: auth }))
          break
        case 4: {
          const signedXDR = innerTransfer(app, employer.wallet, { validFor: 60 })
          samples.push(await sample(app, "POST /transfer", "/transfer", { method: "POST", headers: auth, body: JSON.stringify({ signedXDR }) }))
          break
        }
      }
      await new Promise((r) => setTimeout(r, 25))
    }
  })()
  return { samples, stop: () => ((running = false), done) }
}

const failedRounds = Metric.value(Metric.tagged(reconcilerRounds, "result", "failed")).pipe(Effect.map((s) => s.count))

const processed = (app: TestAppShape, token: string, jobId: string) =>
  call(app, "GET", `/batch/${jobId}`, { token }).pipe(
    Effect.filterOrFail((r) => r.status === 200 && r.body.results?.length === 1, (r) => r),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds"))),
    Effect.merge
  )

const tally = (samples: ReadonlyArray<Sample>) => {
  const counts: Record<string, number> = {}
  for (const s of samples) counts[`${s.route} ${s.status}`] = (counts[`${s.route} ${s.status}`] ?? 0) + 1
  return Object.entries(counts).sort().map(([k, n]) => `${k}: ${n}`).join("; ")
}

describe("database outage (a private PostgreSQL cluster)", () => {
  it.live("PostgreSQL stopped and restarted under load: 503 with Retry-After meanwhile, never 500 or a hang; the same instance recovers; workers survive 50+ failed rounds", () =>
    Effect.gen(function*() {
      const cluster = yield* privateCluster
      const context = yield* Layer.build(TestAppLive({
        DATABASE_URL: cluster.url,
        RECONCILE_INTERVAL: "100 millis",
        WORKER_MAX_BACKOFF: "100 millis",
        BATCH_WORKER_JOBS: "2",
        TRANSFER_POLL_MARGIN: "1 second"
      }, { ledgerIntervalMs: 50 }))
      const app = Context.get(context, TestApp)

      const batchCo = yield* walletEmployer(app, "Batch Co")
      const postBatch = () =>
        call(app, "POST", "/batch", {
          token: batchCo.token,
          json: { transactions: [{ signedXDR: innerTransfer(app, batchCo.wallet, { validFor: 120 }) }] }
        })
      const warmUp = yield* postBatch()
      expect((yield* processed(app, batchCo.token, warmUp.body.jobId)).body.results[0].status).toBe("SUCCESS")

      const clients: Array<{ readonly wallet: Keypair; readonly token: string }> = []
      for (let i = 0; i < 4; i++) clients.push(yield* walletEmployer(app, `Load Co ${i}`))
      const loops = clients.map((client) => loadLoop(app, client))
      yield* Effect.sleep("1 second")

      const before = yield* postBatch()
      expect(before.status).toBe(200)
      const failedBefore = yield* failedRounds
      yield* cluster.stop
      const down = Date.now()
      yield* Effect.sleep("8 seconds")
      const failedDuringOutage = (yield* failedRounds) - failedBefore
      const restarting = Date.now()
      yield* cluster.start
      const up = Date.now()
      const recovered = yield* call(app, "GET", "/me", { token: clients[0]!.token }).pipe(
        Effect.filterOrFail((r) => r.status === 200, (r) => r),
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("30 seconds"))),
        Effect.as(Date.now()),
        Effect.orElseSucceed(() => Number.NaN)
      )
      yield* Effect.sleep("2 seconds")
      yield* Effect.promise(() => Promise.all(loops.map((l) => l.stop())))

      const beforeProcessed = yield* processed(app, batchCo.token, before.body.jobId)
      const after = yield* postBatch()
      const afterProcessed = yield* processed(app, batchCo.token, after.body.jobId)

      const samples = loops.flatMap((l) => l.samples)
      const outage = samples.filter((s) => s.at >= down + 500 && s.at < restarting)
      const settled = samples.filter((s) => s.at >= recovered + 1_000)
      const during = samples.filter((s) => s.at >= down && s.at < restarting)
      console.log(
        `[outage figures] ${((up - down) / 1000).toFixed(1)} s down; requests during the outage: ${tally(during)}; ` +
          `slowest answer during the outage ${Math.max(...during.map((s) => s.ms))} ms; ` +
          `first 200 from GET /me ${recovered - up} ms after PostgreSQL accepted connections again; ` +
          `reconciler rounds failed during the outage: ${failedDuringOutage}; all requests: ${tally(samples)}`
      )

      expect(Number.isNaN(recovered)).toBe(false)
      expect(failedDuringOutage).toBeGreaterThanOrEqual(50)
      expect(beforeProcessed.body.results[0].status).toBe("SUCCESS")
      expect(afterProcessed.body.results[0].status).toBe("SUCCESS")
      expect(outage.length).toBeGreaterThan(20)
      expect(samples.filter((s) => typeof s.status !== "number")).toEqual([])
      expect(samples.filter((s) => s.route === "GET /health/live" && s.status !== 200)).toEqual([])
      expect(outage.filter((s) => s.route === "GET /health/ready" && s.status !== 503)).toEqual([])
      expect(settled.filter((s) => s.status !== NORMAL[s.route])).toEqual([])
      expect(samples.filter((s) => s.status === 500)).toEqual([])
      expect(samples.filter((s) => s.status !== NORMAL[s.route] && s.status !== 503)).toEqual([])
      expect(outage.filter((s) => DB_ROUTES.has(s.route) && s.status !== 503)).toEqual([])
      expect(samples.filter((s) => s.status === 503 && DB_ROUTES.has(s.route) && s.retryAfter === null)).toEqual([])
    }).pipe(Effect.scoped), 180_000)
})
