import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Exit, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { BatchRepo, type ListQuery } from "../../src/Batches/BatchRepo.ts"
import {
  type Batch,
  BatchFromRow,
  type BatchStatus,
  type ContractorPayout,
  ContractorPayoutFromRow,
  type Payout,
  PayoutFromRow,
  type PayoutStatus
} from "../../src/Domain/Batch.ts"
import { BatchId, type ContractorId, OrgId, PayoutId } from "../../src/Domain/Ids.ts"
import { unavailableOrDie } from "../../src/Sql/Errors.ts"
import { contractorRepoOn, ContractorTable } from "./ContractorRepoTest.ts"

/** A `batches` row. */
export interface BatchRow {
  readonly id: BatchId
  readonly orgId: OrgId
  readonly name: string
  readonly status: BatchStatus
  readonly payoutCount: number
  readonly settledCount: number
  readonly failedCount: number
  readonly canceledCount: number
  readonly createdBy: string | null
  readonly readiedBy: string | null
  readonly cancelRequestedAt: Date | null
  readonly approvals: ReadonlyArray<{ readonly by: string; readonly at: string; readonly digest: string | null }>
  readonly sealedAmountsDigest: string | null
  readonly approvalsRequired: number
  readonly createdAt: Date
  readonly startedAt: Date | null
  readonly completedAt: Date | null
}

/** A `payouts` row. */
export interface PayoutRow {
  readonly id: PayoutId
  readonly batchId: BatchId
  readonly orgId: OrgId
  readonly contractorId: ContractorId
  readonly status: PayoutStatus
  readonly hash: string | null
  readonly error: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** Rows are decoded with the schemas the SQL repo decodes them with. */
const batchOf = Schema.decodeUnknownSync(BatchFromRow)
const payoutOf = Schema.decodeUnknownSync(PayoutFromRow)
const contractorPayoutOf = Schema.decodeUnknownSync(ContractorPayoutFromRow)

const byTime = (a: { readonly createdAt: Date; readonly id: string }, b: { readonly createdAt: Date; readonly id: string }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The `orgs` names, `batches` and `payouts` tables in memory, with the `contractors` table their queries join:
 * behind the `BatchRepo` and `ContractorRepo` test layers. Rows are replaced, never mutated, so that `transaction`
 * can put every table back as it was when its effect fails (as a rollback would).
 */
export class PayrollTables {
  readonly orgs = new Map<OrgId, string>()
  readonly batches = new Map<BatchId, BatchRow>()
  readonly payouts = new Map<PayoutId, PayoutRow>()

  readonly contractors: ContractorTable

  constructor(contractors: ContractorTable = new ContractorTable()) {
    this.contractors = contractors
  }

  org(name = "Acme Inc"): OrgId {
    const id = OrgId.make(randomUUID())
    this.orgs.set(id, name)
    return id
  }

  batch(id: BatchId): BatchRow | undefined {
    return this.batches.get(id)
  }

  payout(id: PayoutId): PayoutRow | undefined {
    return this.payouts.get(id)
  }

  setBatch(id: BatchId, change: Partial<Omit<BatchRow, "id">>) {
    const row = this.batches.get(id)
    if (row !== undefined) this.batches.set(id, { ...row, ...change })
  }

  setPayout(id: PayoutId, change: Partial<Omit<PayoutRow, "id">>) {
    const row = this.payouts.get(id)
    if (row !== undefined) this.payouts.set(id, { ...row, ...change })
  }

  snapshot(): () => void {
    const batches = new Map(this.batches)
    const payouts = new Map(this.payouts)
    const contractors = this.contractors.snapshot()
    return () => {
      this.batches.clear()
      this.payouts.clear()
      for (const [id, row] of batches) this.batches.set(id, row)
      for (const [id, row] of payouts) this.payouts.set(id, row)
      contractors()
    }
  }
}

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** `BatchRepo` over `tables`: each guarded UPDATE of the SQL repo is the same test on the row in memory. */
export const batchRepoOn = (tables: PayrollTables) => {
  const inOrg = (orgId: OrgId, id: BatchId) => Option.filter(Option.fromNullable(tables.batch(id)), (b) => b.orgId === orgId)
  const payoutsOfBatch = (batchId: BatchId) => [...tables.payouts.values()].filter((p) => p.batchId === batchId).sort(byTime)

  return Layer.succeed(
    BatchRepo,
    BatchRepo.make({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.suspend(() => {
          const rollback = tables.snapshot()
          const inTransaction: Effect.Effect<A, E | SqlError, R> = effect
          return inTransaction.pipe(
            Effect.onExit((exit) => Exit.isFailure(exit) ? Effect.sync(rollback) : Effect.void),
            Effect.catchTag("SqlError", unavailableOrDie)
          )
        }),
      create: (orgId: OrgId, name: string, createdBy: string) =>
        Effect.map(now, (createdAt): Batch => {
          const row: BatchRow = {
            id: BatchId.make(randomUUID()),
            orgId,
            name,
            status: "draft",
            payoutCount: 0,
            settledCount: 0,
            failedCount: 0,
            canceledCount: 0,
            createdBy,
            readiedBy: null,
            cancelRequestedAt: null,
            approvals: [],
            sealedAmountsDigest: null,
            approvalsRequired: 0,
            createdAt,
            startedAt: null,
            completedAt: null
          }
          tables.batches.set(row.id, row)
          return batchOf(row)
        }),
      find: (orgId: OrgId, id: BatchId) => Effect.sync(() => Option.map(inOrg(orgId, id), batchOf)),
      list: (orgId: OrgId, query: ListQuery) =>
        Effect.sync(() =>
          [...tables.batches.values()]
            .filter((b) =>
              b.orgId === orgId &&
              Option.match(query.status, { onNone: () => true, onSome: (status) => b.status === status }) &&
              Option.match(query.after, { onNone: () => true, onSome: (after) => byTime(b, after) < 0 })
            )
            .sort((a, b) => byTime(b, a))
            .slice(0, query.limit + 1)
            .map((row) => batchOf(row))
        ),
      ready: (orgId: OrgId, id: BatchId, by: string, at: Date) =>
        Effect.sync(() => {
          const batch = Option.filter(inOrg(orgId, id), (b) => b.status === "draft" && b.payoutCount > 0)
          if (Option.isNone(batch)) return Option.none()
          tables.setBatch(id, { status: "ready", readiedBy: by })
          for (const p of payoutsOfBatch(id)) tables.setPayout(p.id, { status: "ready", updatedAt: at })
          return Option.map(Option.fromNullable(tables.batch(id)), batchOf)
        }),
      remove: (orgId: OrgId, id: BatchId) =>
        Effect.sync(() => {
          if (Option.isNone(Option.filter(inOrg(orgId, id), (b) => b.status === "draft"))) return false
          tables.batches.delete(id)
          for (const p of payoutsOfBatch(id)) tables.payouts.delete(p.id)
          return true
        }),
      lock: (orgId: OrgId, id: BatchId) => Effect.sync(() => Option.map(inOrg(orgId, id), ({ status }) => ({ status }))),
      addPayouts: (orgId: OrgId, batchId: BatchId, contractorIds: ReadonlyArray<ContractorId>) =>
        Effect.gen(function*() {
          const at = yield* now
          const rows = contractorIds.map((contractorId): PayoutRow => ({
            id: PayoutId.make(randomUUID()),
            batchId,
            orgId,
            contractorId,
            status: "draft",
            hash: null,
            error: null,
            createdAt: at,
            updatedAt: at
          }))
          for (const row of rows) tables.payouts.set(row.id, row)
          const batch = tables.batch(batchId)
          if (batch !== undefined) tables.setBatch(batchId, { payoutCount: batch.payoutCount + rows.length })
          return rows.map((row): Payout => payoutOf(row))
        }),
      removePayout: (batchId: BatchId, payoutId: PayoutId) =>
        Effect.sync(() => {
          if (tables.payout(payoutId)?.batchId !== batchId) return false
          tables.payouts.delete(payoutId)
          const batch = tables.batch(batchId)
          if (batch !== undefined) tables.setBatch(batchId, { payoutCount: batch.payoutCount - 1 })
          return true
        }),
      payouts: (batchId: BatchId) => Effect.sync(() => payoutsOfBatch(batchId).map((row): Payout => payoutOf(row))),
      inBatch: (batchId: BatchId, ids: ReadonlyArray<ContractorId>) =>
        Effect.sync(() => payoutsOfBatch(batchId).filter((p) => ids.includes(p.contractorId)).map(({ contractorId }) => ({ contractorId }))),
      payoutsOf: (sub: string) =>
        Effect.sync(() =>
          [...tables.payouts.values()]
            .flatMap((p): Array<ContractorPayout> => {
              const contractor = tables.contractors.rows.get(p.contractorId)
              const batch = tables.batch(p.batchId)
              const company = tables.orgs.get(p.orgId)
              if (contractor === undefined || batch === undefined || company === undefined) return []
              if ((Option.getOrNull(contractor.userSub) !== sub && Option.getOrNull(contractor.address) !== sub) || batch.status === "draft") return []
              return [contractorPayoutOf({ ...p, company, batchName: batch.name })]
            })
            .sort((a, b) => b.createdAt.epochMillis - a.createdAt.epochMillis || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .slice(0, 500)
        ),
      payable: (orgId: OrgId, payoutId: string) =>
        Effect.sync(() => {
          const payout = [...tables.payouts.values()].find((p) => p.id === payoutId && p.orgId === orgId)
          const batch = payout === undefined ? undefined : tables.batch(payout.batchId)
          const contractor = payout === undefined ? undefined : tables.contractors.rows.get(payout.contractorId)
          if (payout === undefined || batch === undefined || contractor === undefined) return Option.none()
          return Option.some({
            status: payout.status,
            batchStatus: batch.status,
            canceling: batch.cancelRequestedAt !== null,
            approvals: batch.approvals.length,
            approvalsRequired: batch.approvalsRequired,
            address: Option.getOrNull(contractor.address)
          })
        }),
      submitPayout: (payoutId: string, hash: string, at: Date) =>
        Effect.sync(() => {
          const payout = [...tables.payouts.values()].find((p) => p.id === payoutId)
          if (payout === undefined || (payout.status !== "ready" && payout.status !== "failed")) return Option.none()
          tables.setPayout(payout.id, { status: "submitted", hash, error: null, updatedAt: at })
          return Option.some({ batchId: payout.batchId, previous: payout.status })
        }),
      startBatch: (batchId: BatchId, retry: boolean, at: Date) =>
        Effect.sync(() => {
          const batch = tables.batch(batchId)
          if (batch === undefined) return Option.none()
          const open = batch.status === "ready" || batch.status === "started" || (batch.status === "completed" && retry)
          if (!open || batch.cancelRequestedAt !== null) return Option.none()
          tables.setBatch(batchId, {
            status: "started",
            startedAt: batch.startedAt ?? at,
            completedAt: null,
            failedCount: batch.failedCount - (retry ? 1 : 0)
          })
          return Option.some({ orgId: batch.orgId, previous: batch.status })
        }),
      finishPayout: (payoutId: string, outcome: { readonly settled: boolean; readonly error?: string }, at: Date) =>
        Effect.sync(() => {
          const payout = [...tables.payouts.values()].find((p) => p.id === payoutId)
          if (payout === undefined || payout.status !== "submitted") return Option.none()
          tables.setPayout(payout.id, { status: outcome.settled ? "settled" : "failed", error: outcome.error ?? null, updatedAt: at })
          return Option.some({ batchId: payout.batchId, contractorId: payout.contractorId, orgId: payout.orgId })
        }),
      countFinished: (batchId: BatchId, settled: boolean, at: Date) =>
        Effect.sync(() => {
          const batch = tables.batch(batchId)
          if (batch === undefined) return Option.none()
          const settledCount = batch.settledCount + (settled ? 1 : 0)
          const failedCount = batch.failedCount + (settled ? 0 : 1)
          const done = settledCount + failedCount + batch.canceledCount >= batch.payoutCount &&
            (batch.status === "started" || batch.status === "paused")
          const status = done ? (batch.cancelRequestedAt === null ? "completed" as const : "canceled" as const) : batch.status
          tables.setBatch(batchId, { settledCount, failedCount, status, completedAt: done ? at : batch.completedAt })
          return status === batch.status ? Option.none() : Option.some({ orgId: batch.orgId, from: batch.status, to: status })
        })
    })
  )
}

/** Both repos over the same tables, as the one database serves them. */
export const payrollReposOn = (tables: PayrollTables) => Layer.merge(batchRepoOn(tables), contractorRepoOn(tables.contractors))
