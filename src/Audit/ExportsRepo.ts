import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { BatchStatus, PayoutStatus } from "../Domain/Batch.ts"
import { ContractorStatus } from "../Domain/Contractor.ts"
import { BatchId, OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import { findAllTrusted } from "../Sql/TrustedRows.ts"
import * as Spans from "../Observability/Spans.ts"

/** Rows a page: the most an export holds in memory at once. */
export const PAGE_SIZE = 1_000

/** A half-open range of times, `[from, to)`; an absent end is open. */
export interface Range {
  readonly from: Option.Option<Date>
  readonly to: Option.Option<Date>
}

/** The last row of a page in `(created_at, id)` order: the next page starts after it. */
export interface After {
  readonly createdAt: Date
  readonly id: string
}

// Export rows are the service's own writes, read a thousand at a time: taken as they come (`findAllTrusted`), so their
// schemas hold plain columns only (text, literals, `Date`s), whose type and encoding are the same.
export const PayoutRow = Schema.Struct({
  id: Schema.String,
  batchId: Schema.String,
  batchName: Schema.String,
  contractorId: Schema.String,
  contractorName: Schema.String,
  contractorAddress: Schema.NullOr(Schema.String),
  status: PayoutStatus,
  hash: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  settledAt: Schema.NullOr(Schema.DateFromSelf)
})
export type PayoutRow = typeof PayoutRow.Type

export const ContractorRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  status: ContractorStatus,
  rateAmount: Schema.NullOr(Schema.String),
  rateCurrency: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  lastPaidAt: Schema.NullOr(Schema.DateFromSelf)
})
export type ContractorRow = typeof ContractorRow.Type

export const AuditRow = Schema.Struct({
  /** bigserial, which the driver reads as text: only ever handed back as the next page's cursor. */
  seq: Schema.String,
  id: Schema.String,
  at: Schema.DateFromSelf,
  actorType: Schema.String,
  actorId: Schema.String,
  action: Schema.String,
  subjectType: Schema.String,
  subjectId: Schema.String,
  fromState: Schema.NullOr(Schema.String),
  toState: Schema.NullOr(Schema.String),
  requestId: Schema.NullOr(Schema.String)
})
export type AuditRow = typeof AuditRow.Type

const Time = Schema.NullOr(Schema.DateFromSelf)
const Span = { orgId: OrgId, from: Time, to: Time }
const Position = Schema.NullOr(Schema.Struct({ createdAt: Schema.DateFromSelf, id: Schema.String }))

const Settle = Schema.Struct({ count: Schema.Int, p50: Schema.NullOr(Schema.Number), p95: Schema.NullOr(Schema.Number) })
export type Settle = typeof Settle.Type

const PAYOUT = `p.id, p.batch_id, b.name AS batch_name, p.contractor_id, c.name AS contractor_name,
  c.address AS contractor_address, p.status, p.hash, p.error, p.created_at, p.updated_at, s.closed_at AS settled_at`
const CONTRACTOR = `id, name, email, address, status, rate->>'amount' AS rate_amount, rate->>'currency' AS rate_currency,
  created_at, updated_at, last_paid_at`
const AUDIT = "seq, id, at, actor_type, actor_id, action, subject_type, subject_id, from_state, to_state, request_id"

/**
 * What the exports and the statistics read, every query scoped to one organization. Exports come a page at a time in
 * a stable order (keyset, never OFFSET), so that a download of any size holds one page. Queries are built once; the
 * conditions a request leaves out are left out of its statement.
 */
export class ExportsRepo extends Effect.Service<ExportsRepo>()("Audit/ExportsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** `column` within `[from, to)`, as conditions. */
    const within = (column: string, span: { readonly from: Date | null; readonly to: Date | null }): Array<Fragment> => [
      ...(span.from === null ? [] : [sql`${sql.literal(column)} >= ${span.from}`]),
      ...(span.to === null ? [] : [sql`${sql.literal(column)} < ${span.to}`])
    ]
    /** Rows after `after` in `(created_at, id)` order. */
    const following = (after: typeof Position.Type): Array<Fragment> =>
      after === null ? [] : [sql`(created_at, id) > (${after.createdAt}, ${after.id})`]

    // The page is chosen from `payouts` alone, so that the joins run for its rows only.
    const payoutPage = findAllTrusted({
      Request: Schema.Struct({ ...Span, batchId: Schema.NullOr(BatchId), after: Position }),
      Result: PayoutRow,
      execute: (q) =>
        sql`
          SELECT ${sql.literal(PAYOUT)}
          FROM (
            SELECT * FROM payouts
            WHERE ${
          sql.and([
            sql`org_id = ${q.orgId}`,
            ...(q.batchId === null ? [] : [sql`batch_id = ${q.batchId}`]),
            ...within("created_at", q),
            ...following(q.after)
          ])
        }
            ORDER BY created_at, id LIMIT ${PAGE_SIZE}
          ) p
          JOIN batches b ON b.id = p.batch_id
          JOIN contractors c ON c.id = p.contractor_id
          LEFT JOIN LATERAL (
            SELECT max(closed_at) AS closed_at FROM submissions WHERE payout_id = p.id AND state = 'success'
          ) s ON true
          ORDER BY p.created_at, p.id`
    })
    /** One page of payouts, oldest first, with their batch's name, their contractor, and when they settled. */
    const payouts = (orgId: OrgId, filter: Range & { readonly batchId: Option.Option<BatchId> }, after: Option.Option<After>) =>
      payoutPage({
        orgId,
        from: Option.getOrNull(filter.from),
        to: Option.getOrNull(filter.to),
        batchId: Option.getOrNull(filter.batchId),
        after: Option.getOrNull(after)
      }).pipe(orUnavailable, Spans.withSpan("ExportsRepo.payouts"))

    const contractorPage = findAllTrusted({
      Request: Schema.Struct({ orgId: OrgId, after: Position }),
      Result: ContractorRow,
      execute: (q) =>
        sql`
          SELECT ${sql.literal(CONTRACTOR)} FROM contractors
          WHERE ${sql.and([sql`org_id = ${q.orgId}`, ...following(q.after)])}
          ORDER BY created_at, id LIMIT ${PAGE_SIZE}`
    })
    /** One page of the directory, oldest first. */
    const contractors = (orgId: OrgId, after: Option.Option<After>) =>
      contractorPage({ orgId, after: Option.getOrNull(after) }).pipe(orUnavailable, Spans.withSpan("ExportsRepo.contractors"))

    const auditPage = findAllTrusted({
      Request: Schema.Struct({ ...Span, afterSeq: Schema.NullOr(Schema.String) }),
      Result: AuditRow,
      execute: (q) =>
        sql`
          SELECT ${sql.literal(AUDIT)} FROM audit_log
          WHERE ${
          sql.and([
            sql`org_id = ${q.orgId}`,
            ...within("at", q),
            ...(q.afterSeq === null ? [] : [sql`seq > ${q.afterSeq}`])
          ])
        }
          ORDER BY seq LIMIT ${PAGE_SIZE}`
    })
    /** One page of the audit trail in the order it was appended (`seq`), after the `seq` given. */
    const audit = (orgId: OrgId, range: Range, afterSeq: Option.Option<string>) =>
      auditPage({ orgId, from: Option.getOrNull(range.from), to: Option.getOrNull(range.to), afterSeq: Option.getOrNull(afterSeq) })
        .pipe(orUnavailable, Spans.withSpan("ExportsRepo.audit"))

    const SpanRequest = Schema.Struct(Span)
    const spanOf = (orgId: OrgId, range: Range) => ({ orgId, from: Option.getOrNull(range.from), to: Option.getOrNull(range.to) })

    /** How many rows of `table` created in the range are in each status (statuses without any are left out). */
    const statusCounts = <S extends Schema.Schema.Any>(table: "payouts" | "batches", status: S, span: string) => {
      const count = SqlSchema.findAll({
        Request: SpanRequest,
        Result: Schema.Struct({ status, count: Schema.Int }),
        execute: (q) =>
          sql`
            SELECT status, count(*)::int AS count FROM ${sql(table)}
            WHERE ${sql.and([sql`org_id = ${q.orgId}`, ...within("created_at", q)])}
            GROUP BY status`
      })
      return (orgId: OrgId, range: Range) => count(spanOf(orgId, range)).pipe(orUnavailable, Spans.withSpan(span))
    }
    const payoutCounts = statusCounts("payouts", PayoutStatus, "ExportsRepo.payoutCounts")
    const batchCounts = statusCounts("batches", BatchStatus, "ExportsRepo.batchCounts")

    const settleTimes = SqlSchema.single({
      Request: SpanRequest,
      Result: Settle,
      execute: (q) =>
        sql`
          SELECT count(*)::int AS count,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY greatest(0, extract(epoch FROM closed_at - created_at))::float8) AS p50,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY greatest(0, extract(epoch FROM closed_at - created_at))::float8) AS p95
          FROM submissions
          WHERE ${sql.and([sql`org_id = ${q.orgId}`, sql`state = 'success'`, sql`closed_at IS NOT NULL`, ...within("closed_at", q)])}`
    })
    /**
     * Seconds from a transfer's submission to the close of the ledger that settled it, over the organization's
     * successful submissions whose ledger closed in the range: how many, and the median and 95th percentile (null
     * without any). A ledger's close time has whole seconds: a transfer it applied within the second it was
     * submitted would read as a little under 0, and counts as 0.
     */
    const settleSeconds = (orgId: OrgId, range: Range) =>
      settleTimes(spanOf(orgId, range)).pipe(orUnavailable, Spans.withSpan("ExportsRepo.settleSeconds"))

    return { payouts, contractors, audit, payoutCounts, batchCounts, settleSeconds } as const
  })
}) {}
