import { HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Chunk, DateTime, Effect, Option, Stream } from "effect"
import type { ServerResponse } from "node:http"
import { BatchStatus, PayoutStatus } from "../Domain/Batch.ts"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { BatchId, OrgId } from "../Domain/Ids.ts"
import * as Spans from "../Observability/Spans.ts"
import { type Cell, csvHeader, csvRow } from "./Csv.ts"
import { AUDIT_COLUMNS, CONTRACTOR_COLUMNS, PAYOUT_COLUMNS, Statistics } from "./ExportsApi.ts"
import { type After, type AuditRow, type ContractorRow, ExportsRepo, PAGE_SIZE, type PayoutRow, type Range } from "./ExportsRepo.ts"

/** A time range as the URL gives it. */
export interface Period {
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
}

/** A table's header and the encoder of its rows, the cells in the order the contract names the columns. */
const table = <Name extends string, Row>(
  columns: Readonly<Record<Name, string>>,
  cells: { readonly [K in Name]: (row: Row) => Cell }
) => {
  const names = Object.keys(columns) as Array<Name>
  return { header: csvHeader(names), line: (row: Row) => csvRow(names.map((name) => cells[name](row))) }
}

const iso = (date: Date | null) => date?.toISOString()

const payoutTable = table<keyof typeof PAYOUT_COLUMNS, PayoutRow>(PAYOUT_COLUMNS, {
  payoutId: (r) => r.id,
  batchId: (r) => r.batchId,
  batchName: (r) => r.batchName,
  contractorId: (r) => r.contractorId,
  contractorName: (r) => r.contractorName,
  contractorAddress: (r) => r.contractorAddress,
  status: (r) => r.status,
  hash: (r) => r.hash,
  error: (r) => r.error,
  createdAt: (r) => iso(r.createdAt),
  updatedAt: (r) => iso(r.updatedAt),
  settledAt: (r) => iso(r.settledAt)
})

const contractorTable = table<keyof typeof CONTRACTOR_COLUMNS, ContractorRow>(CONTRACTOR_COLUMNS, {
  contractorId: (r) => r.id,
  name: (r) => r.name,
  email: (r) => r.email,
  address: (r) => r.address,
  status: (r) => r.status,
  rateAmount: (r) => r.rateAmount,
  rateCurrency: (r) => r.rateCurrency,
  createdAt: (r) => iso(r.createdAt),
  updatedAt: (r) => iso(r.updatedAt),
  lastPaidAt: (r) => iso(r.lastPaidAt)
})

const auditTable = table<keyof typeof AUDIT_COLUMNS, AuditRow>(AUDIT_COLUMNS, {
  id: (r) => r.id,
  at: (r) => iso(r.at),
  actorType: (r) => r.actorType,
  actorId: (r) => r.actorId,
  action: (r) => r.action,
  subjectType: (r) => r.subjectType,
  subjectId: (r) => r.subjectId,
  from: (r) => r.fromState,
  to: (r) => r.toState,
  requestId: (r) => r.requestId
})

const utf8 = new TextEncoder()

/**
 * Ends the request's fiber when the client leaves before the file is whole. The platform does so for a connection
 * that closes before the answer is ended, but `Http/ClientGone.ts` ends it first (for bodies written in one piece), so
 * a streamed body would wait forever for a socket that never drains again, holding its fiber and its page.
 */
const stopWhenClientLeaves = (response: ServerResponse) =>
  Effect.withFiberRuntime<void>((fiber) =>
    Effect.sync(() => {
      response.once("close", () => {
        if (!response.writableFinished) fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
      })
    })
  )

const rangeOf = (period: Period): Range => ({
  from: Option.map(Option.fromNullable(period.from), DateTime.toDate),
  to: Option.map(Option.fromNullable(period.to), DateTime.toDate)
})

const byCreation = (row: { readonly createdAt: Date; readonly id: string }): After => ({ createdAt: row.createdAt, id: row.id })

/** Each status with its count, 0 for those the query found none of. */
const counted = <S extends string>(statuses: ReadonlyArray<S>, rows: ReadonlyArray<{ readonly status: S; readonly count: number }>) =>
  Object.fromEntries(statuses.map((s) => [s, rows.find((r) => r.status === s)?.count ?? 0])) as Record<S, number>

/** Seconds to the millisecond: the percentiles interpolate, and a float's tail digits mean nothing here. */
const seconds = (value: number | null) => value === null ? undefined : Math.round(value * 1000) / 1000

/**
 * The CSV exports and the statistics of one organization. An export reads its first page before answering, so a
 * database that is down is the API's 503; the rest is read a page at a time as the client takes it (the server waits
 * for the socket to drain before asking for more), so memory stays flat whatever the size. A failure after the first
 * byte cannot change the status any more: the connection is cut, so that the client sees an incomplete download
 * instead of a file that looks whole.
 */
export class Exports extends Effect.Service<Exports>()("Audit/Exports", {
  effect: Effect.gen(function*() {
    const repo = yield* ExportsRepo

    const csvFile = <Row, Cursor>(
      name: string,
      encoder: { readonly header: string; readonly line: (row: Row) => string },
      page: (after: Option.Option<Cursor>) => Effect.Effect<ReadonlyArray<Row>, ServiceUnavailable>,
      cursorOf: (row: Row) => Cursor
    ) =>
      Effect.gen(function*() {
        const first = yield* page(Option.none())
        const response = NodeHttpServerRequest.toServerResponse(yield* HttpServerRequest.HttpServerRequest)
        yield* stopWhenClientLeaves(response)
        const today = DateTime.formatIsoDate(yield* DateTime.now)
        const next = (rows: ReadonlyArray<Row>) =>
          rows.length < PAGE_SIZE ? Option.none() : Option.some(cursorOf(rows[rows.length - 1]!))
        const text = (rows: ReadonlyArray<Row>) => rows.map(encoder.line).join("")
        const rest = Option.match(next(first), {
          onNone: () => Stream.empty,
          onSome: (after) =>
            Stream.paginateChunkEffect(after, (cursor) =>
              Effect.map(page(Option.some(cursor)), (rows) =>
                [rows.length === 0 ? Chunk.empty() : Chunk.of(utf8.encode(text(rows))), next(rows)] as const))
        })
        const body = Stream.concat(Stream.succeed(utf8.encode(encoder.header + text(first))), rest).pipe(
          Stream.tapErrorCause((cause) =>
            Effect.logWarning("export cut short", cause).pipe(
              Effect.zipRight(Effect.sync(() => response.destroy()))
            )
          )
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/csv; charset=utf-8",
          headers: { "content-disposition": `attachment; filename="${name}-${today}.csv"`, "cache-control": "no-store" }
        })
      })

    const payouts = Spans.fn("Exports.payouts")(function*(orgId: OrgId, filter: Period & { readonly batchId?: BatchId | undefined }) {
      const query = { ...rangeOf(filter), batchId: Option.fromNullable(filter.batchId) }
      return yield* csvFile("payouts", payoutTable, (after) => repo.payouts(orgId, query, after), byCreation)
    })

    const contractors = Spans.fn("Exports.contractors")(function*(orgId: OrgId) {
      return yield* csvFile("contractors", contractorTable, (after) => repo.contractors(orgId, after), byCreation)
    })

    const audit = Spans.fn("Exports.audit")(function*(orgId: OrgId, period: Period) {
      const range = rangeOf(period)
      return yield* csvFile<AuditRow, string>("audit", auditTable, (after) => repo.audit(orgId, range, after), (row) => row.seq)
    })

    const statistics = Spans.fn("Exports.statistics")(function*(orgId: OrgId, period: Period) {
      const range = rangeOf(period)
      const [payoutCounts, batchCounts, settle] = yield* Effect.all(
        [repo.payoutCounts(orgId, range), repo.batchCounts(orgId, range), repo.settleSeconds(orgId, range)],
        { concurrency: 3 }
      )
      return new Statistics({
        from: period.from,
        to: period.to,
        payouts: counted(PayoutStatus.literals, payoutCounts),
        batches: counted(BatchStatus.literals, batchCounts),
        settleSeconds: { count: settle.count, p50: seconds(settle.p50), p95: seconds(settle.p95) }
      })
    })

    return { payouts, contractors, audit, statistics } as const
  }),
  dependencies: [ExportsRepo.Default]
}) {}
