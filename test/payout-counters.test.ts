import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { PayoutLink } from "../src/Batches/PayoutLink.ts"
import { MigratedDatabase } from "./support/TestDatabase.ts"
import { PayoutId } from "../src/Domain/Ids.ts"

// The real migrated database (embedded, or a fresh one on the server) with the payout link on top.
layer(PayoutLink.Default.pipe(Layer.provideMerge(MigratedDatabase)), { excludeTestServices: true })("payout counters", (it) => {
  it.effect("many payouts of one batch settled concurrently keep the counters and completion in step", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const link = yield* PayoutLink
      const orgId = randomUUID()
      const batchId = randomUUID()
      const n = 40
      yield* sql`INSERT INTO orgs ${sql.insert({ id: orgId, name: "Concurrent", createdBy: "GTEST" })}`
      const contractors = Array.from({ length: n }, (_, i) => ({
        id: randomUUID(),
        orgId,
        name: `C${i}`,
        status: "ready",
        address: `G${i}`
      }))
      yield* sql`INSERT INTO contractors ${sql.insert(contractors)}`
      yield* sql`INSERT INTO batches ${sql.insert({ id: batchId, orgId, name: "Burst", status: "ready", payoutCount: n })}`
      const payouts = contractors.map((c) => ({ id: PayoutId.make(randomUUID()), batchId, orgId, contractorId: c.id, status: "ready" }))
      yield* sql`INSERT INTO payouts ${sql.insert(payouts)}`
      const now = new Date()
      for (const p of payouts) yield* sql.withTransaction(link.markSubmitted(p.id, `hash-${p.id}`, now, { type: "member", id: "GTEST" }))

      yield* Effect.forEach(
        payouts,
        (p, i) => sql.withTransaction(link.markFinal(p.id, i % 3 === 0 ? { settled: false, error: "txFailed" } : { settled: true }, now)),
        { concurrency: "unbounded", discard: true }
      )

      const [batch] = yield* sql<{ status: string; settledCount: number; failedCount: number; payoutCount: number; completedAt: Date | null }>`
        SELECT status, settled_count, failed_count, payout_count, completed_at FROM batches WHERE id = ${batchId}`
      const counts = yield* sql<{ status: string; n: number }>`
        SELECT status, count(*)::int AS n FROM payouts WHERE batch_id = ${batchId} GROUP BY status`
      const byStatus = Object.fromEntries(counts.map((c) => [c.status, c.n]))
      expect(byStatus).toEqual({ settled: 26, failed: 14 })
      expect(batch).toMatchObject({ status: "completed", settledCount: 26, failedCount: 14, payoutCount: 40 })
      expect(batch!.completedAt).not.toBeNull()
      const paid = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM contractors WHERE org_id = ${orgId} AND last_paid_at IS NOT NULL`
      expect(paid[0]!.n).toBe(26)
    }))
})
