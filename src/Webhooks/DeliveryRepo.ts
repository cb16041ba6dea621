import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { OrgId } from "../Domain/Ids.ts"
import { fromRow } from "../Domain/Row.ts"
import { deleteSome } from "../Sql/DeleteSome.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import { keysetPages, type KeysetQuery } from "../Sql/KeysetPage.ts"
import { OUTBOX_CHANNEL } from "../Sql/Outbox.ts"
import { DeliveryId, DeliveryStatus, WebhookDelivery, WebhookId } from "./Api.ts"
import * as Spans from "../Observability/Spans.ts"

const COLUMNS = "id, event_id, event_type AS type, status, attempts, created_at, last_attempt_at, last_status_code, " +
  "last_error, next_attempt_at, delivered_at"

const DeliveryFromRow = fromRow(WebhookDelivery, {
  ...WebhookDelivery.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  lastAttemptAt: Schema.NullOr(Schema.DateTimeUtcFromDate),
  nextAttemptAt: Schema.NullOr(Schema.DateTimeUtcFromDate),
  deliveredAt: Schema.NullOr(Schema.DateTimeUtcFromDate)
})

/** A delivery an instance claimed: everything an attempt needs. */
const Claimed = Schema.Struct({
  id: DeliveryId,
  endpointId: WebhookId,
  eventId: Schema.String,
  attempts: Schema.Int,
  firstAttemptAt: Schema.DateFromSelf,
  url: Schema.String,
  secret: Schema.String,
  /** The secret the last rotation replaced, while it still signs beside `secret`. */
  previousSecret: Schema.NullOr(Schema.String),
  body: Schema.String
})
export type Claimed = typeof Claimed.Type

const Id = Schema.Struct({ id: Schema.String })

export interface DeliveryQuery extends KeysetQuery {
  readonly status: Option.Option<typeof DeliveryStatus.Type>
}

/** What an attempt came to, as the delivery log records it. */
export interface Attempt {
  readonly at: Date
  readonly statusCode: number | null
  readonly error: string | null
}

/**
 * Deliveries: the log per endpoint, and the queue the workers claim from with SKIP LOCKED. A claim moves
 * `next_attempt_at` past the attempt's timeout under the claimer's name; only that claimer reports the attempt, so an
 * instance that died mid-attempt leaves the delivery to be claimed again once that time passes.
 */
export class DeliveryRepo extends Effect.Service<DeliveryRepo>()("Webhooks/DeliveryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const instance = randomUUID()

    const page = keysetPages(sql, { table: "webhook_deliveries", columns: COLUMNS, Row: DeliveryFromRow })
    /** One page of an endpoint's deliveries, newest first (`limit + 1` rows, see keysetPages). */
    const list = (endpointId: WebhookId, query: DeliveryQuery) =>
      page([
        sql`endpoint_id = ${endpointId}`,
        ...Option.toArray(Option.map(query.status, (status) => sql`status = ${status}`))
      ], query).pipe(Spans.withSpan("DeliveryRepo.list"))

    const copy = SqlSchema.findOne({
      Request: Schema.Struct({
        orgId: OrgId,
        endpointId: WebhookId,
        deliveryId: DeliveryId,
        id: DeliveryId,
        now: Schema.DateFromSelf
      }),
      Result: DeliveryFromRow,
      execute: ({ orgId, endpointId, deliveryId, id, now }) =>
        sql`
          WITH source AS (
            SELECT d.event_id, d.event_type FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.id = ${deliveryId} AND d.endpoint_id = ${endpointId} AND e.org_id = ${orgId}
          ), enabled AS (
            UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL
            WHERE id = ${endpointId} AND disabled_at IS NOT NULL AND EXISTS (SELECT 1 FROM source)
            RETURNING id
          )
          INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at)
          SELECT ${id}, ${endpointId}, event_id, event_type, 'pending', ${now}, ${now} FROM source
          RETURNING ${columns}`
    })
    /**
     * A new delivery of the same event to the same endpoint, due now; the endpoint is enabled again. None when the
     * organization's endpoint has no such delivery.
     */
    const resend = (orgId: OrgId, endpointId: WebhookId, deliveryId: DeliveryId, now: Date) =>
      Effect.gen(function*() {
        const created = yield* copy({ orgId, endpointId, deliveryId, id: DeliveryId.make(randomUUID()), now })
        if (Option.isSome(created)) yield* sql`SELECT pg_notify(${OUTBOX_CHANNEL}, 'due')`
        return created
      }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("DeliveryRepo.resend"))

    const claimDue = SqlSchema.findAll({
      Request: Schema.Struct({ now: Schema.DateFromSelf, until: Schema.DateFromSelf, limit: Schema.Int, owner: Schema.String }),
      Result: Claimed,
      execute: ({ now, until, limit, owner }) =>
        sql`
          WITH due AS (
            SELECT id FROM webhook_deliveries
            WHERE status = 'pending' AND next_attempt_at <= ${now}
            ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
          )
          UPDATE webhook_deliveries d SET
            next_attempt_at = ${until},
            lease_owner = ${owner},
            attempts = d.attempts + 1,
            first_attempt_at = coalesce(d.first_attempt_at, ${now})
          FROM due, webhook_endpoints e, webhook_events ev
          WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
          RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.first_attempt_at, e.url, e.secret,
            CASE WHEN e.previous_secret_until > ${now} THEN e.previous_secret END AS previous_secret, ev.body`
    })
    /** Claims up to `limit` due deliveries until `until`, skipping those another instance is claiming. */
    const claim = (now: Date, until: Date, limit: number, owner: string = instance) =>
      claimDue({ now, until, limit, owner }).pipe(orUnavailable, Spans.withSpan("DeliveryRepo.claim"))

    const reported = (claimed: Claimed, owner: string, set: Parameters<typeof sql.update>[0]) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: Id,
        execute: () =>
          sql`
            UPDATE webhook_deliveries SET ${sql.update(set)}
            WHERE id = ${claimed.id} AND lease_owner = ${owner} AND status = 'pending'
            RETURNING id`
      })(undefined).pipe(Effect.map(Option.isSome))

    /** The endpoint answered 2xx. False when the claim was lost meanwhile (another instance attempts it again). */
    const delivered = (claimed: Claimed, attempt: Attempt, owner: string = instance) =>
      Effect.gen(function*() {
        const mine = yield* reported(claimed, owner, {
          status: "delivered",
          deliveredAt: attempt.at,
          lastAttemptAt: attempt.at,
          lastStatusCode: attempt.statusCode,
          lastError: null,
          nextAttemptAt: null,
          leaseOwner: null
        })
        yield* sql`UPDATE webhook_endpoints SET last_success_at = ${attempt.at} WHERE id = ${claimed.endpointId}`
        return mine
      }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("DeliveryRepo.delivered"))

    /** The attempt failed; the next is due at `next`. */
    const retryAt = (claimed: Claimed, attempt: Attempt, next: Date, owner: string = instance) =>
      reported(claimed, owner, {
        lastAttemptAt: attempt.at,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
        nextAttemptAt: next,
        leaseOwner: null
      }).pipe(orUnavailable, Spans.withSpan("DeliveryRepo.retryAt"))

    const disable = SqlSchema.findOne({
      Request: Schema.Struct({ id: WebhookId, now: Schema.DateFromSelf, since: Schema.DateFromSelf, reason: Schema.String }),
      Result: Id,
      execute: ({ id, now, since, reason }) =>
        sql`
          UPDATE webhook_endpoints SET disabled_at = ${now}, disabled_reason = ${reason}
          WHERE id = ${id} AND disabled_at IS NULL AND (last_success_at IS NULL OR last_success_at < ${since})
          RETURNING id`
    })
    /**
     * The last attempt failed: the delivery failed, and its endpoint is disabled unless some delivery to it succeeded
     * since this one's first attempt; a disabled endpoint's pending deliveries fail with it. True when it was disabled.
     */
    const giveUp = (claimed: Claimed, attempt: Attempt, owner: string = instance) =>
      Effect.gen(function*() {
        const mine = yield* reported(claimed, owner, {
          status: "failed",
          lastAttemptAt: attempt.at,
          lastStatusCode: attempt.statusCode,
          lastError: attempt.error,
          nextAttemptAt: null,
          leaseOwner: null
        })
        if (!mine) return false
        const reason = `every attempt of a delivery failed from ${claimed.firstAttemptAt.toISOString()} to ` +
          `${attempt.at.toISOString()}, and none succeeded meanwhile`
        const disabled = yield* disable({ id: claimed.endpointId, now: attempt.at, since: claimed.firstAttemptAt, reason })
        if (Option.isNone(disabled)) return false
        yield* sql`
          UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_owner = NULL,
            last_error = coalesce(last_error || '; ', '') || 'endpoint disabled'
          WHERE endpoint_id = ${claimed.endpointId} AND status = 'pending'`
        return true
      }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("DeliveryRepo.giveUp"))

    /** Gives an attempt that never ran to the end (the instance stops) back at once, not counted. */
    const release = (claimed: Claimed, now: Date, owner: string = instance) =>
      sql`
        UPDATE webhook_deliveries SET next_attempt_at = ${now}, attempts = attempts - 1, lease_owner = NULL
        WHERE id = ${claimed.id} AND lease_owner = ${owner} AND status = 'pending'`.pipe(Effect.asVoid, orUnavailable)

    /** Deletes up to `limit` deliveries that ended (delivered or failed) before `before`. */
    const pruneFinished = (before: Date, limit: number) =>
      deleteSome(sql, { table: "webhook_deliveries", key: "id", where: sql`status <> 'pending' AND created_at < ${before}`, limit })
        .pipe(Spans.withSpan("DeliveryRepo.pruneFinished"))

    /** Deletes up to `limit` events from before `before` that no delivery refers to any more. */
    const pruneEvents = (before: Date, limit: number) =>
      deleteSome(sql, {
        table: "webhook_events",
        key: "id",
        where: sql`created_at < ${before} AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`,
        limit
      }).pipe(Spans.withSpan("DeliveryRepo.pruneEvents"))

    return { list, resend, claim, delivered, retryAt, giveUp, release, pruneFinished, pruneEvents } as const
  })
}) {}
