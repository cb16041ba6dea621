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
  disabledReason: Schema.NullOr(Schema.String)
})

const Inserted = Schema.Struct({ id: WebhookId })
const OfOrg = Schema.Struct({ orgId: OrgId, id: WebhookId })

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
      Request: OrgId,
      Result: Listed,
      execute: (orgId) =>
        sql`
          SELECT id, url, events, created_at, disabled_at, disabled_reason FROM webhook_endpoints
          WHERE org_id = ${orgId} ORDER BY created_at DESC, id DESC`
    })
    const toWebhook = (row: typeof Listed.Type) =>
      new Webhook({ ...row, status: row.disabledAt === null ? "enabled" : "disabled" })
    const list = (orgId: OrgId) =>
      listOf(orgId).pipe(Effect.map((rows) => rows.map(toWebhook)), orUnavailable, Spans.withSpan("EndpointRepo.list"))

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

    return { insert, list, exists, remove } as const
  })
}) {}
