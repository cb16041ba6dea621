import { Clock, DateTime, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { Conflict, Forbidden, InvalidRequest, notFound } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { decodeCursor, toPage } from "../Http/Cursor.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import {
  type CreateWebhook,
  DEFAULT_OVERLAP_SECONDS,
  type DeliveryId,
  type ListDeliveriesParams,
  NewWebhook,
  type RotateSecret,
  RotatedSecret,
  type UpdateWebhook,
  WebhookId,
  WebhookList
} from "./Api.ts"
import { WebhookConfig } from "./Config.ts"
import { DeliveryRepo } from "./DeliveryRepo.ts"
import { EndpointRepo, MAX_ENDPOINTS } from "./EndpointRepo.ts"
import { newSecret } from "./Signature.ts"
import { parseUrl, resolveTarget } from "./Target.ts"
import * as Spans from "../Observability/Spans.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { unavailableOrDie } from "../Sql/Errors.ts"
import { SqlClient } from "@effect/sql"
import type { Actor } from "../Domain/Actor.ts"

/**
 * An organization's webhook endpoints and their delivery logs, managed by a signed-in employer: never by an API key,
 * since an endpoint receives every event of the organization it subscribes to and its secret is what receivers trust
 * (the Authentication middleware already refuses keys here: the routes are not in Scopes.ts).
 */
export class Webhooks extends Effect.Service<Webhooks>()("Webhooks/Webhooks", {
  effect: Effect.gen(function*() {
    const endpoints = yield* EndpointRepo
    const deliveries = yield* DeliveryRepo
    const orgs = yield* Organizations
    const config = yield* WebhookConfig
    const audit = yield* AuditTrail
    const sql = yield* SqlClient.SqlClient
    /** The change and its audit row commit together. */
    const together = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))

    const actorOf = (session: Session) =>
      session.apiKey === undefined
        ? orgs.actorOf(session).pipe(Effect.filterOrFail(
          (actor) => actor.permissions.includes("org:manage"),
          (actor) => new Forbidden({ error: `this needs the permission org:manage, which the role ${actor.role} does not grant` })
        ))
        : Effect.fail(new Forbidden({ error: "webhooks are managed by a signed-in employer, not by an API key" }))
    const orgOf = (session: Session) => Effect.map(actorOf(session), (actor) => actor.orgId)
    const record = (actor: Actor, action: string, id: string, change: { readonly from?: string; readonly to?: string } = {}) =>
      audit.append({ orgId: actor.orgId, actor: actor.audit, action, subject: { type: "webhook", id }, ...change })

    /** The URL as it will be stored, once it passed the same checks as every attempt's. */
    const checkedUrl = (url: string) =>
      parseUrl(url, config).pipe(
        Effect.tap((parsed) => resolveTarget(parsed, config)),
        Effect.map((parsed) => parsed.toString()),
        Effect.mapError((refused) => new InvalidRequest({ error: `invalid url: ${refused.reason}` }))
      )
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const create = Spans.fn("Webhooks.create")(function*(session: Session, request: CreateWebhook) {
      const actor = yield* actorOf(session)
      const orgId = actor.orgId
      const url = yield* checkedUrl(request.url)
      const events = [...new Set(request.events)]
      const id = WebhookId.make(randomUUID())
      const secret = newSecret()
      const createdAt = yield* now
      const added = yield* together(Effect.tap(
        endpoints.insert({ id, orgId, url, events, secret, createdAt }),
        (added) => added ? record(actor, "webhook.created", id) : Effect.void
      ))
      if (!added) return yield* new Conflict({ error: `an organization has at most ${MAX_ENDPOINTS} webhook endpoints` })
      return new NewWebhook({ id, url, events, secret, createdAt: DateTime.unsafeFromDate(createdAt) })
    })

    const list = Spans.fn("Webhooks.list")(function*(session: Session) {
      return new WebhookList({ items: yield* endpoints.list(yield* orgOf(session), yield* now) })
    })

    const update = Spans.fn("Webhooks.update")(function*(session: Session, id: WebhookId, request: UpdateWebhook) {
      const actor = yield* actorOf(session)
      if (request.url === undefined && request.events === undefined) {
        return yield* new InvalidRequest({ error: "nothing to change: give url, events or both" })
      }
      const change = {
        ...(request.url === undefined ? {} : { url: yield* checkedUrl(request.url) }),
        ...(request.events === undefined ? {} : { events: [...new Set(request.events)] })
      }
      // The trail names the event types before and after; a URL is not written there (it can carry a token).
      const updated = yield* together(Effect.tap(
        endpoints.update(actor.orgId, id, change, yield* now),
        Option.match({
          onNone: () => Effect.void,
          onSome: ({ endpoint, previousEvents }) =>
            record(actor, "webhook.updated", id, { from: previousEvents.join(", "), to: endpoint.events.join(", ") })
        })
      ))
      if (Option.isNone(updated)) return yield* notFound("webhook endpoint")
      return updated.value.endpoint
    })

    const rotateSecret = Spans.fn("Webhooks.rotateSecret")(function*(session: Session, id: WebhookId, request: RotateSecret) {
      const actor = yield* actorOf(session)
      const overlap = request.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS
      const until = overlap === 0 ? null : new Date((yield* Clock.currentTimeMillis) + overlap * 1000)
      const secret = newSecret()
      const rotated = yield* together(Effect.tap(
        endpoints.rotate(actor.orgId, id, secret, until),
        (rotated) => rotated ? record(actor, "webhook.secret_rotated", id) : Effect.void
      ))
      if (!rotated) return yield* notFound("webhook endpoint")
      return new RotatedSecret({ id, secret, previousSecretExpiresAt: until === null ? null : DateTime.unsafeFromDate(until) })
    })

    const remove = Spans.fn("Webhooks.remove")(function*(session: Session, id: WebhookId) {
      const actor = yield* actorOf(session)
      const removed = yield* together(Effect.tap(
        endpoints.remove(actor.orgId, id),
        (removed) => removed ? record(actor, "webhook.removed", id) : Effect.void
      ))
      if (!removed) return yield* notFound("webhook endpoint")
    })

    const log = Spans.fn("Webhooks.deliveries")(function*(session: Session, id: WebhookId, params: typeof ListDeliveriesParams.Type) {
      const orgId = yield* orgOf(session)
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      if (!(yield* endpoints.exists(orgId, id))) return yield* notFound("webhook endpoint")
      const limit = params.limit ?? 50
      const rows = yield* deliveries.list(id, { limit, after, status: Option.fromNullable(params.status) })
      return toPage(rows, limit, (delivery) => delivery)
    })

    const resend = Spans.fn("Webhooks.resend")(function*(session: Session, id: WebhookId, deliveryId: DeliveryId) {
      const orgId = yield* orgOf(session)
      const created = yield* deliveries.resend(orgId, id, deliveryId, new Date(yield* Clock.currentTimeMillis))
      if (Option.isNone(created)) {
        return yield* (yield* endpoints.exists(orgId, id)) ? notFound("delivery") : notFound("webhook endpoint")
      }
      return created.value
    })

    return { create, list, update, rotateSecret, remove, deliveries: log, resend } as const
  }),
  dependencies: [EndpointRepo.Default, DeliveryRepo.Default]
}) {}
