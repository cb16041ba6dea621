// The audit trail's own cost (issue 22): what one audit row adds to the transaction it is written in, and what
// linking it into its organization's hash chain costs afterwards, in CPU (this process + the database's), per row.
//
// The service's own layers (src/Sql/AuditTrail.ts's writer, src/Audit/AuditRepo.ts's sealer, migrations and all) on
// a fresh database, embedded by default (BENCH_DB=postgres: a fresh database on the server, whose CPU is not
// measured). Rounds alternate, so drift on a shared machine falls on both sides:
// - bare: BENCH_ROWS transactions, each an UPDATE of one row of a table shaped like `payouts` (the stand-in for the
//   payout-linked transfer's own statements);
// - audited: the same transactions, each also appending one audit row through AuditTrail.append;
// - sealing: the audited round's rows linked by the sealer (AuditRepo.seal), a round at a time until none is left.
// The row's cost is audited − bare; the chain's is sealing ÷ rows. A payout-linked POST /transfer writes two rows.
// It is a benchmark, not a test: it prints figures and asserts nothing.
import { Reactivity } from "@effect/experimental"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { cpus } from "node:os"
import { AuditRepo, SEAL_BATCH } from "../src/Audit/AuditRepo.ts"
import type { OrgId } from "../src/Domain/Ids.ts"
import { AuditTrail } from "../src/Sql/AuditTrail.ts"
import { DatabaseLive } from "../src/Sql/Migrations.ts"
import { clusterCpuMs, envNumber, fixed, freshDatabase, table } from "./support.ts"

const settings = {
  rows: envNumber("BENCH_ROWS", 2000),
  rounds: envNumber("BENCH_ROUNDS", 5),
  orgs: envNumber("BENCH_ORGS", 64),
  serverUrl: process.env.BENCH_DB === "postgres" ? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test" : undefined
}

const db = await freshDatabase("audit", settings.serverUrl)
const config = new Map([["DATA_DIR", db.dataDir], ...(db.url === undefined ? [] : [["DATABASE_URL", db.url] as const])])
// Tracing off, as the service runs without an exporter (src/Observability/Tracing.ts).
const Live = Layer.mergeAll(AuditTrail.Default, AuditRepo.Default).pipe(
  Layer.provideMerge(DatabaseLive),
  Layer.provide(Layer.setTracerEnabled(false)),
  Layer.provide(Reactivity.layer),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(config)))
)
const runtime = ManagedRuntime.make(Live)

const orgs = Array.from({ length: settings.orgs }, () => randomUUID() as OrgId)

const setUp = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE bench_payouts (
    id uuid PRIMARY KEY, org_id uuid NOT NULL, status text NOT NULL, hash text, updated_at timestamptz NOT NULL)`
  yield* sql`CREATE INDEX bench_payouts_org ON bench_payouts (org_id, updated_at)`
  yield* sql`INSERT INTO bench_payouts (id, org_id, status, updated_at)
    SELECT gen_random_uuid(), (${orgs}::uuid[])[1 + i % ${orgs.length}], 'ready', now() FROM generate_series(1, 10000) AS i`
  return (yield* sql<{ readonly id: string; readonly orgId: OrgId }>`SELECT id, org_id FROM bench_payouts`).map((r) => ({ ...r }))
})

const transactions = (payouts: ReadonlyArray<{ readonly id: string; readonly orgId: OrgId }>, audited: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const trail = yield* AuditTrail
    for (let i = 0; i < settings.rows; i++) {
      const payout = payouts[i % payouts.length]!
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`UPDATE bench_payouts SET status = 'submitted', hash = ${randomUUID()}, updated_at = now() WHERE id = ${payout.id}`
        if (audited) {
          yield* trail.append({
            orgId: payout.orgId,
            actor: { type: "system", id: "ledger" },
            action: "payout.settled",
            subject: { type: "payout", id: payout.id },
            from: "submitted",
            to: "settled"
          })
        }
      }))
    }
  })

/**
 * Links `rows` rows: rounds until they are all linked (a transaction that writes and is still running, e.g. an
 * autoanalyze, holds the sealer's bound back a moment; the pause between rounds costs no CPU).
 */
const sealAll = (rows: number) =>
  Effect.gen(function*() {
    const repo = yield* AuditRepo
    let sealed = 0
    while (sealed < rows) {
      const round = yield* repo.seal(true)
      sealed += round.sealed
      if (round.sealed < SEAL_BATCH && sealed < rows) yield* Effect.sleep("10 millis")
    }
    return sealed
  })

/** CPU (ms) of this process and of the embedded cluster while `effect` runs. */
const measured = async <A>(effect: Effect.Effect<A, unknown, AuditTrail | AuditRepo | SqlClient.SqlClient>) => {
  const node0 = process.cpuUsage()
  const pg0 = await clusterCpuMs(db)
  const start = performance.now()
  const value = await runtime.runPromise(effect)
  const wall = performance.now() - start
  const node = process.cpuUsage(node0)
  const pg1 = await clusterCpuMs(db)
  return { value, wall, node: (node.user + node.system) / 1000, pg: pg0 === undefined || pg1 === undefined ? undefined : pg1 - pg0 }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

try {
  console.log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? "unknown"}), load ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  console.log(`database: ${db.url === undefined ? "embedded PostgreSQL (its CPU measured from /proc)" : "PostgreSQL server (its CPU not measured)"}`)
  console.log(`${settings.rounds} rounds of ${settings.rows} transactions over ${settings.orgs} organizations, bare and audited alternating\n`)
  const payouts = await runtime.runPromise(setUp)
  // Warm-up: one of each, not counted.
  await runtime.runPromise(Effect.zipRight(transactions(payouts, false), transactions(payouts, true)))
  await runtime.runPromise(sealAll(settings.rows))
  const bare: Array<{ node: number; pg: number | undefined }> = []
  const audited: Array<{ node: number; pg: number | undefined }> = []
  const sealing: Array<{ node: number; pg: number | undefined }> = []
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false]
    for (const withAudit of order) {
      const run = await measured(transactions(payouts, withAudit))
      ;(withAudit ? audited : bare).push(run)
    }
    const sealed = await measured(sealAll(settings.rows))
    if (sealed.value !== settings.rows) throw new Error(`sealed ${sealed.value} rows, expected ${settings.rows}`)
    sealing.push(sealed)
  }
  const perRow = (runs: ReadonlyArray<{ node: number; pg: number | undefined }>, part: "node" | "pg") =>
    runs.some((r) => r[part] === undefined) ? undefined : median(runs.map((r) => r[part]! / settings.rows))
  const ms = (value: number | undefined) => value === undefined ? "-" : fixed(value * 1000, 1)
  const rows = ([["bare transaction", bare], ["audited transaction", audited], ["sealing, per row", sealing]] as const).map(
    ([label, runs]) => [label, ms(perRow(runs, "node")), ms(perRow(runs, "pg"))]
  )
  console.log(table(["medians over the rounds", "node µs", "pg µs"], rows))
  const rowNode = perRow(audited, "node")! - perRow(bare, "node")!
  const rowPg = perRow(audited, "pg") === undefined ? undefined : perRow(audited, "pg")! - perRow(bare, "pg")!
  const sealNode = perRow(sealing, "node")!
  const sealPg = perRow(sealing, "pg")
  console.log(`\none audit row: appended ${ms(rowNode)} + ${ms(rowPg)} µs (node + pg), linked ${ms(sealNode)} + ${ms(sealPg)} µs`)
  const total = rowNode + sealNode + (rowPg ?? 0) + (sealPg ?? 0)
  console.log(`a payout-linked POST /transfer (two rows): ${fixed(2 * total * 1000, 0)} µs of CPU`)
} finally {
  await runtime.dispose()
  await db.drop()
}
