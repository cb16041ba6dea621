import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import { EventType, Webhook, WebhookId } from "./Api.ts"
import * as Spans from "../Observability/Spans.ts"

/** How many endpoints an organization may have. */
export const MAX_ENDPOINTS = 20

const Listed = Schema.Struct({
  id: WebhookId,
  url: Schema.String,
  events: Schema.Array(EventType),
  createdAt: Schema.DateTimeUtcFromDate,
  disabledAt: Schema.NullOr(Schema.DateTimeUtcFromDate),
  disabledReason: Schema.NullOr(Schema.String),
  previousSecretUntil: Schema.NullOr(Schema.DateTimeUtcFromDate)
})

const Inserted = Schema.Struct({ id: WebhookId })
const OfOrg = Schema.Struct({ orgId: OrgId, id: WebhookId })

/** What an endpoint shows: its previous secret's end only while that secret still signs. */
const LISTED = (sql: SqlClient.SqlClient, now: Date) =>
  sql`id, url, events, created_at, disabled_at, disabled_reason,
    CASE WHEN previous_secret_until > ${now} THEN previous_secret_until END AS previous_secret_until`

export interface EndpointChange {
  readonly url?: string
  readonly events?: ReadonlyArray<EventType>
}

export interface NewEndpoint {
  readonly id: WebhookId
  readonly orgId: OrgId
  readonly url: string
  readonly events: ReadonlyArray<EventType>
  readonly secret: string
  readonly createdAt: Date
}

/** An organization's webhook endpoints; deleting one deletes its deliveries with it. */
export class EndpointRepo extends Effect.Service<EndpointRepo>()("Webhooks/EndpointRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insertOne = SqlSchema.findOne({
      Request: Schema.Struct({
        id: WebhookId,
        orgId: OrgId,
        url: Schema.String,
        events: Schema.Array(Schema.String),
        secret: Schema.String,
        createdAt: Schema.DateFromSelf
      }),
      Result: Inserted,
      execute: (row) =>
        sql`
          INSERT INTO webhook_endpoints (id, org_id, url, events, secret, created_at)
          SELECT ${row.id}, ${row.orgId}, ${row.url}, string_to_array(${row.events.join(",")}, ','), ${row.secret}, ${row.createdAt}
          WHERE (SELECT count(*) FROM webhook_endpoints WHERE org_id = ${row.orgId}) < ${MAX_ENDPOINTS}
          RETURNING id`
    })
    /** False when the organization already has MAX_ENDPOINTS endpoints. */
    const insert = (row: NewEndpoint) =>
      insertOne(row).pipe(Effect.map(Option.isSome), orUnavailable, Spans.withSpan("EndpointRepo.insert"))

    const listOf = SqlSchema.findAll({
      Request: Schema.Struct({ orgId: OrgId, now: Schema.DateFromSelf }),
      Result: Listed,
      execute: ({ orgId, now }) =>
        sql`
          SELECT ${LISTED(sql, now)} FROM webhook_endpoints
          WHERE org_id = ${orgId} ORDER BY created_at DESC, id DESC`
    })
    const toWebhook = ({ previousSecretUntil, ...row }: typeof Listed.Type) =>
      new Webhook({ ...row, status: row.disabledAt === null ? "enabled" : "disabled", previousSecretExpiresAt: previousSecretUntil })
    const list = (orgId: OrgId, now: Date) =>
      listOf({ orgId, now }).pipe(Effect.map((rows) => rows.map(toWebhook)), orUnavailable, Spans.withSpan("EndpointRepo.list"))

    const updateOne = SqlSchema.findOne({
      Request: Schema.Struct({
        orgId: OrgId,
        id: WebhookId,
        now: Schema.DateFromSelf,
        url: Schema.NullOr(Schema.String),
        events: Schema.NullOr(Schema.Array(Schema.String))
      }),
      Result: Schema.extend(Listed, Schema.Struct({ previousEvents: Schema.Array(EventType) })),
      execute: ({ orgId, id, now, url, events }) =>
        sql`
          WITH before AS (
            SELECT id AS before_id, events AS before_events FROM webhook_endpoints
            WHERE id = ${id} AND org_id = ${orgId} FOR UPDATE
          )
          UPDATE webhook_endpoints SET
            url = coalesce(${url}, url),
            events = coalesce(string_to_array(${events === null ? null : events.join(",")}, ','), events)
          FROM before WHERE id = before_id
          RETURNING ${LISTED(sql, now)}, before_events AS previous_events`
    })
    /** The endpoint as changed, with the event types it had; None when the organization has no such endpoint. */
    const update = (orgId: OrgId, id: WebhookId, change: EndpointChange, now: Date) =>
      updateOne({ orgId, id, now, url: change.url ?? null, events: change.events ?? null }).pipe(
        Effect.map(Option.map(({ previousEvents, ...row }) => ({ endpoint: toWebhook(row), previousEvents }))),
        orUnavailable,
        Spans.withSpan("EndpointRepo.update")
      )

    const rotateOne = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, id: WebhookId, secret: Schema.String, until: Schema.NullOr(Schema.DateFromSelf) }),
      Result: Inserted,
      execute: ({ orgId, id, secret, until }) =>
        sql`
          UPDATE webhook_endpoints SET
            previous_secret = CASE WHEN ${until}::timestamptz IS NULL THEN NULL ELSE secret END,
            previous_secret_until = ${until}::timestamptz,
            secret = ${secret}
          WHERE id = ${id} AND org_id = ${orgId}
          RETURNING id`
    })
    /**
     * Puts `secret` in place; the one it replaces signs beside it until `until` (null: not at all). An older previous
     * secret is dropped. False when the organization has no such endpoint.
     */
    const rotate = (orgId: OrgId, id: WebhookId, secret: string, until: Date | null) =>
      rotateOne({ orgId, id, secret, until }).pipe(Effect.map(Option.isSome), orUnavailable, Spans.withSpan("EndpointRepo.rotate"))

    const findOne = SqlSchema.findOne({
      Request: OfOrg,
      Result: Inserted,
      execute: ({ orgId, id }) => sql`SELECT id FROM webhook_endpoints WHERE id = ${id} AND org_id = ${orgId}`
    })
    /** Whether the organization has the endpoint. */
    const exists = (orgId: OrgId, id: WebhookId) =>
      findOne({ orgId, id }).pipe(Effect.map(Option.isSome), orUnavailable, Spans.withSpan("EndpointRepo.exists"))

    const deleted = SqlSchema.findOne({
      Request: OfOrg,
      Result: Inserted,
      execute: ({ orgId, id }) => sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND org_id = ${orgId} RETURNING id`
    })
    /** True when the organization had the endpoint (now gone, with its deliveries). */
    const remove = (orgId: OrgId, id: WebhookId) =>
      deleted({ orgId, id }).pipe(Effect.map(Option.isSome), orUnavailable, Spans.withSpan("EndpointRepo.remove"))

    return { insert, list, update, rotate, exists, remove } as const
  })
}) {}
