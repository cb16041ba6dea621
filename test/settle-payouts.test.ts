import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { SettlementHooksLive } from "../src/Server/App.ts"
import { PayoutLink } from "../src/Batches/PayoutLink.ts"
import { FaucetRepo } from "../src/Funding/FaucetRepo.ts"
import { type OrgId, PayoutId } from "../src/Domain/Ids.ts"
import { PollOutcome } from "../src/Transfers/Network.ts"
import { Settle } from "../src/Transfers/Settle.ts"
import { SubmissionRepo } from "../src/Transfers/SubmissionRepo.ts"
import { MigratedDatabase } from "./support/TestDatabase.ts"

/** Settle and the repositories it writes, on the real migrated database (embedded, or a fresh one on the server). */
const SettleOnDatabase = Settle.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(SettlementHooksLive),
  Layer.provideMerge(Layer.mergeAll(SubmissionRepo.Default, PayoutLink.Default, FaucetRepo.Default)),
  Layer.provideMerge(MigratedDatabase),
  Layer.merge(Logger.minimumLogLevel(LogLevel.Warning))
)

const hex = () => randomBytes(32).toString("hex")

layer(SettleOnDatabase, { excludeTestServices: true })("settlement moves payouts", (it) => {
  it.effect("expired by ledger time: quota back, payout failed; paid again: settled, counters and completion follow", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* SubmissionRepo
      const link = yield* PayoutLink
      const settle = yield* Settle
      const orgId = randomUUID() as OrgId
      const batchId = randomUUID()
      const contractorId = randomUUID()
      const payoutId = PayoutId.make(randomUUID())
      const source = "GSOURCE"
      yield* sql`INSERT INTO orgs ${sql.insert({ id: orgId, name: "Settle Co", createdBy: source })}`
      yield* sql`INSERT INTO contractors ${sql.insert({ id: contractorId, orgId, name: "Ada", status: "ready", address: "GADA" })}`
      yield* sql`INSERT INTO batches ${sql.insert({ id: batchId, orgId, name: "June", status: "ready", payoutCount: 1 })}`
      yield* sql`INSERT INTO payouts ${sql.insert({ id: payoutId, batchId, orgId, contractorId, status: "ready" })}`

      const submit = (now: Date) =>
        Effect.gen(function*() {
          const innerHash = hex()
          const outerHash = hex()
          const created = yield* repo.create(
            {
              innerHash,
              outerHash,
              envelope: "",
              source,
              sessionSub: source,
              orgId,
              payoutId,
              maxTime: new Date(now.getTime() + 60_000),
              leaseUntil: now,
              sequence: "1"
            },
            { limit: 10, since: new Date(now.getTime() - 3_600_000), now },
            link.markSubmitted(payoutId, outerHash, now, { type: "member", id: "GTEST" })
          )
          expect(created).toBe("created")
          return Option.getOrThrow(yield* repo.find(innerHash))
        })
      const state = Effect.gen(function*() {
        const [batch] = yield* sql<{ status: string; settledCount: number; failedCount: number; completedAt: Date | null }>`
          SELECT status, settled_count, failed_count, completed_at FROM batches WHERE id = ${batchId}`
        const [payout] = yield* sql<{ status: string; error: string | null }>`SELECT status, error FROM payouts WHERE id = ${payoutId}`
        const [quota] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM sponsor_quota WHERE source = ${source}`
        const [paid] = yield* sql<{ lastPaidAt: Date | null }>`SELECT last_paid_at FROM contractors WHERE id = ${contractorId}`
        return {
          batch: batch!.status,
          settled: batch!.settledCount,
          failed: batch!.failedCount,
          completed: batch!.completedAt !== null,
          payout: payout!.status,
          error: payout!.error,
          quota: quota!.n,
          paid: paid!.lastPaidAt !== null
        }
      })

      const first = yield* submit(new Date())
      expect(yield* state).toMatchObject({ batch: "started", payout: "submitted", quota: 1 })
      yield* settle.afterPoll(first, PollOutcome.NotYet())
      expect(yield* state).toMatchObject({ payout: "submitted", quota: 1 })
      yield* settle.afterPoll(first, PollOutcome.Gone({ latestLedgerCloseTime: 0 }))
      expect(yield* state).toEqual({
        batch: "completed", settled: 0, failed: 1, completed: true, payout: "failed", error: "txTooLate", quota: 0, paid: false
      })
      expect(Option.getOrThrow(yield* repo.find(first.innerHash)).state).toBe("expired")

      const second = yield* submit(new Date())
      expect(yield* state).toMatchObject({ batch: "started", completed: false, payout: "submitted", quota: 1 })
      yield* settle.afterPoll(second, PollOutcome.Landed({ ledger: 42 }))
      expect(yield* state).toEqual({
        batch: "completed", settled: 1, failed: 0, completed: true, payout: "settled", error: null, quota: 1, paid: true
      })
      yield* settle.afterPoll(second, PollOutcome.Failed({ code: "txFailed", ledger: 43 }))
      expect(yield* state).toMatchObject({ settled: 1, failed: 0, payout: "settled" })
    }))
})
