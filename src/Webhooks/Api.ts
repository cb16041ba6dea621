import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { DateTime, Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { documented } from "../Domain/Documented.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import { Page, PageParams } from "../Domain/Page.ts"

export const WebhookId = Schema.UUID.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type

export const DeliveryId = Schema.UUID.pipe(Schema.brand("WebhookDeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

export const EventType = Schema.Literal(
  "contractor.ready",
  "payout.settled",
  "payout.failed",
  "payout.canceled",
  "batch.completed",
  "batch.approved",
  "batch.rejected",
  "batch.paused",
  "batch.resumed",
  "batch.canceled",
  "batch_run.completed",
  "audit.checkpoint"
).annotations({
  description: "`contractor.ready` (a contractor can be paid), `payout.settled` / `payout.failed` (a payout's transfer " +
    "is final), `payout.canceled` (a payout was canceled before it was sent), `batch.completed` (every payout of a " +
    "batch is final), `batch.approved` / `batch.rejected` (an approval was recorded; the batch went back to draft, with " +
    "the reason), `batch.paused` / `batch.resumed`, `batch.canceled` (a canceled batch has nothing in flight any " +
    "more), `batch_run.completed` (a POST /batch job ended), `audit.checkpoint` (the audit chain verified, its head " +
    "signed: once a day by default, AUDIT_CHECKPOINT_INTERVAL)"
})
export type EventType = typeof EventType.Type

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed")

const EXAMPLE_ID = WebhookId.make("2f6b1c9e-4d7a-4e3b-9a18-5c0d7e2f4b61")
const EXAMPLE_DELIVERY = DeliveryId.make("7d3e9a1b-2c4f-4b8e-a5d6-0f1e2d3c4b5a")
const EXAMPLE_EVENT = "c1a2b3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
const EXAMPLE_URL = "https://hr.example.com/hooks/payroll"
const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+2oFa+UW3vQ="
const CREATED = DateTime.unsafeMake("2026-11-24T09:30:00Z")

const Events = Schema.Array(EventType).pipe(
  Schema.minItems(1, { message: () => "events must name at least one event type" }),
  Schema.maxItems(EventType.literals.length)
)

const Url = Schema.String.pipe(Schema.maxLength(2048))

const CreateWebhookFields = {
  url: Schema.propertySignature(Url).annotations({
    description: "Where to POST the events: an https URL (http is accepted outside production) of at most 2,048 " +
      "characters, without credentials or fragment, whose host resolves only to public addresses"
  }),
  events: Schema.propertySignature(Events).annotations({ description: "The event types to send it, one or more" })
}

export class CreateWebhook extends Schema.Class<CreateWebhook>("CreateWebhook")(CreateWebhookFields, documented(CreateWebhookFields, {
  description: "A new webhook endpoint of the organization",
  examples: [{ url: EXAMPLE_URL, events: ["payout.settled", "payout.failed", "batch.completed"] }]
})) {}

const UpdateWebhookFields = {
  url: Schema.optionalWith(Url, { exact: true }).annotations({ description: "A new URL, checked as when registering (https, at most 2,048 characters, a public host)" }),
  events: Schema.optionalWith(Events, { exact: true }).annotations({ description: "The event types it receives from now on, one or more" })
}

export class UpdateWebhook extends Schema.Class<UpdateWebhook>("UpdateWebhook")(UpdateWebhookFields, documented(UpdateWebhookFields, {
  description: "What to change of an endpoint: its URL, its event types, or both",
  examples: [{ events: ["payout.settled", "payout.failed", "batch.completed", "batch.canceled"] }]
})) {}

/** The longest a replaced secret may keep signing: a week. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 60 * 60
/** How long a replaced secret keeps signing unless the rotation says otherwise: a day. */
export const DEFAULT_OVERLAP_SECONDS = 24 * 60 * 60

const RotateSecretFields = {
  overlapSeconds: Schema.optionalWith(
    Schema.Int.pipe(
      Schema.between(0, MAX_OVERLAP_SECONDS, { message: () => `overlapSeconds must be an integer from 0 to ${MAX_OVERLAP_SECONDS}` })
    ),
    { exact: true }
  ).annotations({
    description: "How long the secret being replaced keeps signing beside the new one, in seconds (default 86,400: a " +
      "day; at most a week; 0 ends it at once)"
  })
}

export class RotateSecret extends Schema.Class<RotateSecret>("RotateSecret")(RotateSecretFields, documented(RotateSecretFields, {
  description: "A rotation of an endpoint's signing secret",
  examples: [{ overlapSeconds: 86_400 }]
})) {}

const RotatedSecretFields = {
  id: Schema.propertySignature(WebhookId).annotations({ description: "The endpoint's id" }),
  secret: Schema.propertySignature(Schema.String).annotations({
    description: "The new signing secret (`whsec_` and the base64 of 32 random bytes), shown only now"
  }),
  previousSecretExpiresAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "Until when the replaced secret still signs each delivery beside the new one; null when it stopped at once"
  })
}

export class RotatedSecret extends Schema.Class<RotatedSecret>("RotatedSecret")(RotatedSecretFields, documented(RotatedSecretFields, {
  description: "An endpoint's new signing secret",
  examples: [{ id: EXAMPLE_ID, secret: EXAMPLE_SECRET, previousSecretExpiresAt: DateTime.unsafeMake("2026-11-25T09:30:00Z") }]
})) {}

const EndpointFields = {
  id: Schema.propertySignature(WebhookId).annotations({ description: "The endpoint's id" }),
  url: Schema.propertySignature(Schema.String).annotations({ description: "Where the events are POSTed" }),
  events: Schema.propertySignature(Schema.Array(EventType)).annotations({ description: "The event types it receives" }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it was registered" })
}

const NewWebhookFields = {
  ...EndpointFields,
  secret: Schema.propertySignature(Schema.String).annotations({
    description: "The signing secret (`whsec_` and the base64 of 32 random bytes), shown only now: verify each " +
      "delivery's `webhook-signature` with it (Standard Webhooks)"
  })
}

export class NewWebhook extends Schema.Class<NewWebhook>("NewWebhook")(NewWebhookFields, documented(NewWebhookFields, {
  description: "An endpoint just registered, with its signing secret",
  examples: [{ id: EXAMPLE_ID, url: EXAMPLE_URL, events: ["payout.settled"], secret: EXAMPLE_SECRET, createdAt: CREATED }]
})) {}

const WebhookFields = {
  ...EndpointFields,
  status: Schema.propertySignature(Schema.Literal("enabled", "disabled")).annotations({
    description: "`disabled` once a delivery failed through its whole retry schedule (over a day) with no delivery " +
      "succeeding meanwhile: it receives nothing until one of its deliveries is resent"
  }),
  disabledAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({ description: "When it was disabled; null while enabled" }),
  disabledReason: Schema.propertySignature(Schema.NullOr(Schema.String)).annotations({ description: "Why it was disabled; null while enabled" }),
  previousSecretExpiresAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "After a rotation of the signing secret, until when the previous secret still signs each delivery " +
      "beside the new one; null when only one secret signs"
  })
}

export class Webhook extends Schema.Class<Webhook>("Webhook")(WebhookFields, documented(WebhookFields, {
  description: "A webhook endpoint of the organization, without its secret",
  examples: [{ id: EXAMPLE_ID, url: EXAMPLE_URL, events: ["payout.settled"], createdAt: CREATED, status: "enabled", disabledAt: null, disabledReason: null, previousSecretExpiresAt: null }]
})) {}

const WebhookListFields = {
  items: Schema.propertySignature(Schema.Array(Webhook)).annotations({ description: "The organization's endpoints, newest first" })
}

export class WebhookList extends Schema.Class<WebhookList>("WebhookList")(WebhookListFields, documented(WebhookListFields, {
  description: "The organization's webhook endpoints (at most 20)",
  examples: [{ items: [new Webhook({ id: EXAMPLE_ID, url: EXAMPLE_URL, events: ["payout.settled"], createdAt: CREATED, status: "enabled", disabledAt: null, disabledReason: null, previousSecretExpiresAt: null })] }]
})) {}

const DeliveryFields = {
  id: Schema.propertySignature(DeliveryId).annotations({ description: "The delivery's id" }),
  eventId: Schema.propertySignature(Schema.UUID).annotations({
    description: "The event's id, sent as `webhook-id`: the same for every delivery of the event (resends included), so " +
      "a receiver can drop duplicates"
  }),
  type: Schema.propertySignature(EventType).annotations({ description: "The event's type" }),
  status: Schema.propertySignature(DeliveryStatus).annotations({
    description: "`pending` while attempts go on, `delivered` once the endpoint answered 2xx, `failed` when the retries " +
      "ran out or the endpoint was disabled"
  }),
  attempts: Schema.propertySignature(Schema.Int).annotations({ description: "How many attempts were made" }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it was queued" }),
  lastAttemptAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({ description: "When the last attempt ended; null before the first" }),
  lastStatusCode: Schema.propertySignature(Schema.NullOr(Schema.Int)).annotations({
    description: "The HTTP status the endpoint last answered; null when it gave no answer (see `lastError`)"
  }),
  lastError: Schema.propertySignature(Schema.NullOr(Schema.String)).annotations({
    description: "Why the last attempt failed (no answer, a refused address, a non-2xx status); null after a success"
  }),
  nextAttemptAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "When the next attempt is due (while one is in flight: when it is retried if it never reports); null " +
      "once delivered or failed"
  }),
  deliveredAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({ description: "When the endpoint accepted it" })
}

const exampleDelivery: Schema.Struct.Type<typeof DeliveryFields> = {
  id: EXAMPLE_DELIVERY,
  eventId: EXAMPLE_EVENT,
  type: "payout.settled",
  status: "delivered",
  attempts: 2,
  createdAt: DateTime.unsafeMake("2026-11-24T09:30:08Z"),
  lastAttemptAt: DateTime.unsafeMake("2026-11-24T09:30:13Z"),
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  deliveredAt: DateTime.unsafeMake("2026-11-24T09:30:13Z")
}

export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")(DeliveryFields, documented(DeliveryFields, {
  description: "One event's delivery to one endpoint, with its attempts so far",
  examples: [exampleDelivery]
})) {}

const DeliveryPageFields = Page(WebhookDelivery).fields

export class DeliveryPage extends Schema.Class<DeliveryPage>("DeliveryPage")(DeliveryPageFields, documented(DeliveryPageFields, {
  description: "One page of an endpoint's deliveries, newest first",
  examples: [{ items: [new WebhookDelivery(exampleDelivery)], nextCursor: "WzE3OTU3MTI3NDAwMDAsIjdjMWQ4ZjNlLTI2YjQtNDk1Yi05YjBhLTVmNmU3ZDhjOWEwMSJd" }]
})) {}

export const ListDeliveriesParams = Schema.Struct({
  ...PageParams,
  status: Schema.optional(DeliveryStatus).annotations({ description: "Only deliveries in this status" })
})

const id = HttpApiSchema.param("id", Schema.propertySignature(WebhookId).annotations({ description: "The endpoint's id" }))
const deliveryId = HttpApiSchema.param(
  "deliveryId",
  Schema.propertySignature(DeliveryId).annotations({ description: "The delivery's id" })
)

const WHO = "For a signed-in employer (a session, not an API key): 403 when the session belongs to no organization, " +
  "and to any API key."
const MISSING = "404 when the organization has no such endpoint (another organization's answers alike)."

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks").setPayload(CreateWebhook).addSuccess(NewWebhook, { status: 201 })
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Register a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Registers an endpoint that receives the organization's events of the given types, signed with the secret in " +
          "this answer (and only in this answer; answers 201). Each event is POSTed as JSON `{type, timestamp, data}` " +
          "with the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,` and the " +
          "base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's base64-decoded bytes). " +
          `${WHO} 400 when the url is not https (http is accepted outside production), carries credentials, or its host ` +
          "is or resolves to a private, loopback, link-local or otherwise non-public address. 409 when the " +
          "organization already has 20 endpoints."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks").addSuccess(WebhookList)
      .annotate(OpenApi.Summary, "List webhook endpoints")
      .annotate(OpenApi.Description, `The organization's endpoints, newest first, without their secrets. ${WHO}`)
  )
  .add(
    HttpApiEndpoint.del("remove")`/webhooks/${id}`.addSuccess(HttpApiSchema.NoContent).addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
      .annotate(
        OpenApi.Description,
        `Deletes the endpoint with its deliveries: nothing more is sent to it (an attempt already in flight may still ` +
          `arrive). Answers 204. ${WHO} ${MISSING}`
      )
  )
  .add(
    HttpApiEndpoint.patch("update")`/webhooks/${id}`.setPayload(UpdateWebhook).addSuccess(Webhook)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Change a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Changes the endpoint's URL, its event types, or both, and answers the endpoint as it now is. A new URL is " +
          "checked as when registering, and every attempt from now on goes to it, retries of pending deliveries " +
          "included. Events of a type it no longer receives are not queued for it from now on; those already queued " +
          `are still delivered. Its secret, status and delivery log stay. ${WHO} ${MISSING} 400 when the URL is ` +
          "refused or the request changes nothing."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateSecret")`/webhooks/${id}/secret`.setPayload(RotateSecret).addSuccess(RotatedSecret)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Rotate a webhook endpoint's signing secret")
      .annotate(
        OpenApi.Description,
        "Gives the endpoint a new signing secret, shown only in this answer. The secret it replaces keeps signing " +
          "for `overlapSeconds` (a day unless given): meanwhile every delivery's `webhook-signature` carries both " +
          "signatures, space-separated as Standard Webhooks allows, so the receiver can move to the new secret " +
          "without refusing a delivery. A rotation during an overlap ends the older one: only the secret just " +
          `replaced keeps signing. ${WHO} ${MISSING}`
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries")`/webhooks/${id}/deliveries`.setUrlParams(ListDeliveriesParams).addSuccess(DeliveryPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List an endpoint's deliveries")
      .annotate(
        OpenApi.Description,
        "The endpoint's delivery log, newest first, a page at a time (`limit`, default 50; pass `nextCursor` as " +
          "`cursor` for the next page), optionally only those in one `status`: each delivery's attempts, the last " +
          "answer or error and when the next attempt is due. Failed attempts are retried with exponential backoff " +
          `(WEBHOOK_RETRY_BASE, doubling) for over a day. ${WHO} ${MISSING} 400 for a \`limit\` outside 1 to 100 or a ` +
          "`cursor` this service did not hand out."
      )
  )
  .add(
    HttpApiEndpoint.post("resend")`/webhooks/${id}/deliveries/${deliveryId}/resend`
      .addSuccess(WebhookDelivery, { status: 202 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Resend a delivery")
      .annotate(
        OpenApi.Description,
        "Queues the delivery's event to the endpoint again, as a new delivery with the same body and `webhook-id` " +
          "(answered, 202), attempted at once and retried like any other. Resending to a disabled endpoint enables " +
          `it again. ${WHO} ${MISSING} 404 also when the endpoint has no such delivery.`
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(
    OpenApi.Description,
    "Signed event deliveries to the employer's endpoints (Standard Webhooks): a payout settled or failed, a batch " +
      "completed, a batch run completed, a contractor ready. Each event is recorded with the change it reports and " +
      "delivered at least once: retried with exponential backoff for over a day, then the endpoint is disabled."
  )
{}
