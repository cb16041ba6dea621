import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { OrgId } from "../Domain/Ids.ts"
import type { SubmissionState } from "../Domain/Transfer.ts"

export interface Submission {
  readonly innerHash: string
  readonly outerHash: string
  readonly envelope: string
  readonly source: string
  readonly sessionSub: string
  readonly orgId: OrgId | null
  readonly payoutId: string | null
  readonly state: SubmissionState
  readonly resultCode: string | null
  readonly ledger: number | null
  readonly maxTime: Date
  readonly leaseUntil: Date
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type NewSubmission = Pick<
  Submission,
  "innerHash" | "outerHash" | "envelope" | "source" | "sessionSub" | "orgId" | "payoutId" | "maxTime" | "leaseUntil"
>

export type CreateOutcome = "created" | "exists" | "quota"

export const FINAL_STATES: ReadonlyArray<SubmissionState> = ["success", "failed", "rejected", "expired"]
export const IN_FLIGHT: ReadonlyArray<SubmissionState> = ["pending", "submitted"]

const COLUMNS =
  "inner_hash, outer_hash, envelope, source, session_sub, org_id, payout_id, state, result_code, ledger, max_time, lease_until, created_at, updated_at"

/** Durable submissions and the sponsor's quota reservations. */
export class SubmissionRepo extends Effect.Service<SubmissionRepo>()("Transfers/SubmissionRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    /**
     * Records the submission and reserves one unit of the source's quota in one transaction, serialized per
     * source account by an advisory lock so that concurrent requests on any number of instances never exceed it.
     */
    const create = <E = never>(
      row: NewSubmission,
      quota: { readonly limit: number; readonly since: Date; readonly now: Date } | undefined,
      link: Effect.Effect<void, E | SqlError> = Effect.void
    ) =>
      Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`sponsor-quota:${row.source}`}))`
        const existing = yield* sql`SELECT 1 FROM submissions WHERE inner_hash = ${row.innerHash}`
        if (existing.length > 0) return "exists" as CreateOutcome
        if (quota !== undefined) {
          const counted = yield* sql<{ used: number }>`
            SELECT count(*)::int AS used FROM sponsor_quota WHERE source = ${row.source} AND reserved_at > ${quota.since}`
          if ((counted[0]?.used ?? 0) >= quota.limit) return "quota" as CreateOutcome
        }
        yield* sql`INSERT INTO submissions ${sql.insert({ ...row, state: "pending" })}`
        if (quota !== undefined) {
          yield* sql`INSERT INTO sponsor_quota ${
            sql.insert({ innerHash: row.innerHash, source: row.source, reservedAt: quota.now })
          }`
        }
        yield* link
        return "created" as CreateOutcome
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("SubmissionRepo.create"))

    const find = (hash: string) =>
      sql<Submission>`SELECT ${columns} FROM submissions WHERE inner_hash = ${hash} OR outer_hash = ${hash}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie,
        Effect.withSpan("SubmissionRepo.find")
      )

    /** Runs `effect` in one transaction (a state change and what follows from it). */
    const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    /** Moves the submission on when it is still in one of `from`; false when another writer got there first. */
    const transition = (
      innerHash: string,
      from: ReadonlyArray<SubmissionState>,
      to: SubmissionState,
      fields: { readonly resultCode?: string; readonly ledger?: number } = {}
    ) =>
      sql`
        UPDATE submissions SET ${sql.update({ state: to, ...fields, updatedAt: new Date() })}
        WHERE inner_hash = ${innerHash} AND state IN ${sql.in(from)}
        RETURNING inner_hash`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie,
        Effect.withSpan("SubmissionRepo.transition", { attributes: { to } })
      )

    /** A transaction that never reached the ledger gives its quota (or faucet grant) back. */
    const releaseQuota = (innerHash: string) =>
      sql`DELETE FROM sponsor_quota WHERE inner_hash = ${innerHash}`.pipe(
        Effect.zipRight(sql`DELETE FROM faucet_grants WHERE inner_hash = ${innerHash}`),
        Effect.asVoid,
        Effect.orDie
      )

    const lease = (innerHash: string, until: Date) =>
      sql`UPDATE submissions SET lease_until = ${until} WHERE inner_hash = ${innerHash}`.pipe(Effect.asVoid, Effect.orDie)

    /** In-flight submissions nobody holds a lease on, leased to the caller. */
    const claimStale = (now: Date, until: Date, limit: number) =>
      sql<Submission>`
        UPDATE submissions SET lease_until = ${until}
        WHERE inner_hash IN (
          SELECT inner_hash FROM submissions
          WHERE state IN ('pending', 'submitted') AND lease_until < ${now}
          ORDER BY lease_until LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING ${columns}`.pipe(Effect.orDie, Effect.withSpan("SubmissionRepo.claimStale"))

    const counted = (rows: ReadonlyArray<{ readonly n: number }>) => rows[0]?.n ?? 0

    /** Deletes up to `limit` quota reservations made before `before` (outside the quota window, so spent). */
    const pruneQuota = (before: Date, limit: number) =>
      sql<{ n: number }>`
        WITH gone AS (
          DELETE FROM sponsor_quota WHERE inner_hash IN (
            SELECT inner_hash FROM sponsor_quota WHERE reserved_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`.pipe(Effect.map(counted), Effect.withSpan("SubmissionRepo.pruneQuota"))

    /** Deletes up to `limit` faucet grants made before `before` (outside the one-grant window, so spent). */
    const pruneFaucetGrants = (before: Date, limit: number) =>
      sql<{ n: number }>`
        WITH gone AS (
          DELETE FROM faucet_grants WHERE ctid IN (
            SELECT ctid FROM faucet_grants WHERE granted_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`.pipe(Effect.map(counted), Effect.withSpan("SubmissionRepo.pruneFaucetGrants"))

    /** Deletes up to `limit` submissions that reached a final state before `before`. */
    const pruneFinal = (before: Date, limit: number) =>
      sql<{ n: number }>`
        WITH gone AS (
          DELETE FROM submissions WHERE inner_hash IN (
            SELECT inner_hash FROM submissions
            WHERE state IN ('success', 'failed', 'rejected', 'expired') AND updated_at < ${before}
            LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`.pipe(Effect.map(counted), Effect.withSpan("SubmissionRepo.pruneFinal"))

    return {
      create,
      find,
      transition,
      releaseQuota,
      lease,
      claimStale,
      atomically,
      pruneQuota,
      pruneFaucetGrants,
      pruneFinal
    } as const
  })
}) {}
