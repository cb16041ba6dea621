import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Duration, Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { OrgId } from "../Domain/Ids.ts"
import { Submission, SubmissionOutcome, type SubmissionState } from "../Domain/Transfer.ts"
import { deleteSome } from "../Sql/DeleteSome.ts"
import { orUnavailable, unavailableOrDie } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

export type { Submission, SubmissionOutcome } from "../Domain/Transfer.ts"

export type NewSubmission =
  & Pick<
    Submission,
    "innerHash" | "outerHash" | "envelope" | "source" | "sessionSub" | "orgId" | "payoutId" | "maxTime" | "leaseUntil"
  >
  & {
    /** The inner transaction's sequence number (decimal). */
    readonly sequence: string
  }

export type CreateOutcome = "created" | "exists" | "quota"

export const FINAL_STATES: ReadonlyArray<SubmissionState> = ["success", "failed", "rejected", "expired"]
export const IN_FLIGHT: ReadonlyArray<SubmissionState> = ["pending", "submitted"]

const COLUMNS =
  "inner_hash, outer_hash, envelope, source, session_sub, org_id, payout_id, state, result_code, ledger, max_time, lease_until, created_at, updated_at"

const Hash = Schema.Struct({ innerHash: Schema.String })
/** `transition`'s statement is put together per call (its columns are the caller's); its rows decode with this. */
const decodeHashes = Schema.decodeUnknown(Schema.Array(Hash))
const Created = Schema.Struct({ existed: Schema.Boolean, created: Schema.Boolean })

const NewRow = Schema.Struct({
  ...Submission.pick("innerHash", "outerHash", "envelope", "source", "sessionSub", "orgId", "payoutId", "maxTime", "leaseUntil")
    .fields,
  sequence: Schema.String
})
const Quota = Schema.Struct({ limit: Schema.Number, since: Schema.DateFromSelf, now: Schema.DateFromSelf })

/**
 * Durable submissions and the sponsor's quota reservations. A submission's lease records the instance holding it
 * (`lease_owner`); only that instance renews or releases it, and whoever claims a lapsed lease becomes its owner.
 */
export class SubmissionRepo extends Effect.Service<SubmissionRepo>()("Transfers/SubmissionRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    /** This instance, as the owner of the leases it takes. */
    const instance = randomUUID()

    const record = SqlSchema.findAll({
      Request: Schema.Struct({ row: NewRow, quota: Schema.UndefinedOr(Quota) }),
      Result: Created,
      execute: ({ row, quota }) => {
        const withinQuota = quota === undefined
          ? sql.literal("TRUE")
          : sql`(SELECT count(*) FROM sponsor_quota WHERE source = ${row.source} AND reserved_at > ${quota.since}) < ${quota.limit}`
        const reservation = quota === undefined
          ? sql.literal("")
          : sql`, reserved AS (
              INSERT INTO sponsor_quota (inner_hash, source, reserved_at)
              SELECT inner_hash, source, ${quota.now}::timestamptz FROM created)`
        return sql`
              WITH existing AS (SELECT 1 FROM submissions WHERE inner_hash = ${row.innerHash}),
              created AS (
                INSERT INTO submissions
                  (inner_hash, outer_hash, envelope, source, session_sub, org_id, payout_id, state, max_time, lease_until, lease_owner,
                   sequence)
                SELECT ${row.innerHash}, ${row.outerHash}, ${row.envelope}, ${row.source}, ${row.sessionSub},
                  ${row.orgId}::uuid, ${row.payoutId}::uuid, 'pending', ${row.maxTime}::timestamptz,
                  ${row.leaseUntil}::timestamptz, ${instance}, ${row.sequence}::bigint
                WHERE NOT EXISTS (SELECT 1 FROM existing) AND ${withinQuota}
                RETURNING inner_hash, source)${reservation}
              SELECT EXISTS (SELECT 1 FROM existing) AS existed, EXISTS (SELECT 1 FROM created) AS created`
      }
    })

    /**
     * Records the submission and reserves one unit of the source's quota in one transaction, serialized per
     * source account by an advisory lock so that concurrent requests on any number of instances never exceed it.
     * After the lock, one statement looks for the same transaction, counts the quota, and inserts both rows when
     * allowed (BEGIN, lock, that statement, `link`'s own, COMMIT). The new row is leased to this instance.
     */
    const create = <E = never>(
      row: NewSubmission,
      quota: { readonly limit: number; readonly since: Date; readonly now: Date } | undefined,
      link: Effect.Effect<void, E | SqlError> = Effect.void
    ) =>
      Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`sponsor-quota:${row.source}`}))`
        const [outcome] = yield* record({ row, quota }).pipe(Effect.catchTag("ParseError", Effect.die))
        if (outcome?.existed === true) return "exists" as CreateOutcome
        if (outcome?.created !== true) return "quota" as CreateOutcome
        yield* link
        return "created" as CreateOutcome
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", unavailableOrDie),
        Spans.withSpan("SubmissionRepo.create")
      )

    const byHash = SqlSchema.findOne({
      Request: Schema.String,
      Result: Submission,
      execute: (hash) => sql`SELECT ${columns} FROM submissions WHERE inner_hash = ${hash} OR outer_hash = ${hash}`
    })
    const find = (hash: string) => byHash(hash).pipe(orUnavailable, Spans.withSpan("SubmissionRepo.find"))

    const byHashes = SqlSchema.findAll({
      Request: Schema.Struct({ orgId: OrgId, hashes: Schema.Array(Schema.String) }),
      Result: SubmissionOutcome,
      execute: ({ orgId, hashes }) =>
        sql`SELECT inner_hash, outer_hash, state, result_code FROM submissions
                WHERE org_id = ${orgId} AND (inner_hash IN ${sql.in(hashes)} OR outer_hash IN ${sql.in(hashes)})`
    })
    /**
     * The outcomes of the organization's submissions named by any of `hashes` (inner or outer). Not their envelopes:
     * a batch run's poll asks this on every request, and each envelope is some 43,000 characters it does not use.
     */
    const findMany = (orgId: OrgId, hashes: ReadonlyArray<string>) =>
      hashes.length === 0
        ? Effect.succeed([])
        : byHashes({ orgId, hashes }).pipe(orUnavailable, Spans.withSpan("SubmissionRepo.findMany"))

    /** Runs `effect` in one transaction (a state change and what follows from it). */
    const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))

    /** Moves the submission on when it is still in one of `from`; false when another writer got there first. */
    const transition = (
      innerHash: string,
      from: ReadonlyArray<SubmissionState>,
      to: SubmissionState,
      fields: { readonly resultCode?: string; readonly ledger?: number; readonly closedAt?: Date } = {},
      at?: Date
    ) =>
      Effect.flatMap(at === undefined ? Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms)) : Effect.succeed(at), (now) =>
        sql`
          UPDATE submissions SET ${sql.update({ state: to, ...fields, updatedAt: now })}
          WHERE inner_hash = ${innerHash} AND state IN ${sql.in(from)}
          RETURNING inner_hash`.pipe(Effect.flatMap(decodeHashes), Effect.catchTag("ParseError", Effect.die))).pipe(
        Effect.map((rows) => rows.length === 1),
        orUnavailable,
        Spans.withSpan("SubmissionRepo.transition", { attributes: { to } })
      )

    /** A transaction that never reached the ledger gives its quota back (what it reserved elsewhere: SettlementHooks). */
    const releaseQuota = (innerHash: string) =>
      sql`DELETE FROM sponsor_quota WHERE inner_hash = ${innerHash}`.pipe(
        Effect.asVoid,
        orUnavailable
      )

    /** Renews (or, with `until` now, releases) a lease this instance holds; one held by another is left alone. */
    const lease = (innerHash: string, until: Date, owner: string = instance) =>
      sql`UPDATE submissions SET lease_until = ${until} WHERE inner_hash = ${innerHash} AND lease_owner = ${owner}`.pipe(
        Effect.asVoid,
        orUnavailable
      )

    const earlier = SqlSchema.findAll({
      Request: Schema.Struct({ source: Schema.String, sequence: Schema.String, except: Schema.Array(Schema.String) }),
      Result: Hash,
      execute: ({ except, sequence, source }) =>
        sql`
          SELECT inner_hash FROM submissions
          WHERE source = ${source} AND state IN ('pending', 'submitted') AND sequence < ${sequence}::bigint
            AND NOT (inner_hash = ANY(${except}))
          LIMIT 1`
    })

    /**
     * Whether the account has a submission in flight with a sequence number below `sequence`, other than `except`:
     * then a later transaction of the account must wait for it.
     */
    const earlierInFlight = (source: string, sequence: string, except: ReadonlyArray<string>) =>
      earlier({ source, sequence, except }).pipe(
        Effect.map((rows) => rows.length > 0),
        orUnavailable,
        Spans.withSpan("SubmissionRepo.earlierInFlight")
      )

    /** Gives a lease this instance holds back at once, and forgets the reconciler's failures with it. */
    const release = (innerHash: string, now: Date, owner: string = instance) =>
      sql`UPDATE submissions SET lease_until = ${now}, reconcile_failures = 0 WHERE inner_hash = ${innerHash} AND lease_owner = ${owner}`.pipe(
        Effect.asVoid,
        orUnavailable
      )

    /**
     * After a reconciler round that could not settle the submission: the lease is kept `base` × 2^(failures in a
     * row), at most `max`, so the next round leaves it alone that long while it goes on with the others.
     */
    const retryLater = (innerHash: string, now: Date, base: Duration.Duration, max: Duration.Duration, owner: string = instance) =>
      sql`
        UPDATE submissions SET
          lease_until = ${now}::timestamptz + least(${Duration.toMillis(base)}::float8 * power(2, least(reconcile_failures, 30)),
            ${Duration.toMillis(max)}::float8) * interval '1 millisecond',
          reconcile_failures = reconcile_failures + 1
        WHERE inner_hash = ${innerHash} AND lease_owner = ${owner}`.pipe(Effect.asVoid, orUnavailable)

    const claimLapsed = SqlSchema.findAll({
      Request: Schema.Struct({ now: Schema.DateFromSelf, until: Schema.DateFromSelf, limit: Schema.Number, owner: Schema.String }),
      Result: Submission,
      execute: ({ now, until, limit, owner }) =>
        sql`
            UPDATE submissions SET lease_until = ${until}, lease_owner = ${owner}
            WHERE inner_hash IN (
              SELECT inner_hash FROM submissions
              WHERE state IN ('pending', 'submitted') AND lease_until < ${now}
              ORDER BY lease_until LIMIT ${limit}
              FOR UPDATE SKIP LOCKED)
            RETURNING ${columns}`
    })
    /** In-flight submissions nobody holds a lease on, leased to `owner` (this instance unless told). */
    const claimStale = (now: Date, until: Date, limit: number, owner: string = instance) =>
      claimLapsed({ now, until, limit, owner }).pipe(orUnavailable, Spans.withSpan("SubmissionRepo.claimStale"))

    /** Deletes up to `limit` quota reservations made before `before` (outside the quota window, so spent). */
    const pruneQuota = (before: Date, limit: number) =>
      deleteSome(sql, { table: "sponsor_quota", key: "inner_hash", where: sql`reserved_at < ${before}`, limit }).pipe(Spans.withSpan("SubmissionRepo.pruneQuota"))

    /** Deletes up to `limit` submissions that reached a final state before `before`. */
    const pruneFinal = (before: Date, limit: number) =>
      deleteSome(sql, {
        table: "submissions",
        key: "inner_hash",
        // Literal states, so that the partial index submissions_final applies.
        where: sql`state IN ('success', 'failed', 'rejected', 'expired') AND updated_at < ${before}`,
        limit
      }).pipe(Spans.withSpan("SubmissionRepo.pruneFinal"))

    return { create, find, findMany, earlierInFlight, transition, releaseQuota, lease, release, retryLater, claimStale, atomically, pruneQuota, pruneFinal } as const
  })
}) {}
