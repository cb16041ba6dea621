import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { MAX_BODY_KIB } from "./RequestLimits.ts"

/** The `error` of every error answer. */
const Message = Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" })

/** Every error the API answers with: `{error}` plus a tag the client uses to tell them apart. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { error: Message },
  HttpApiSchema.annotations({
    status: 400,
    description: "The request is malformed or breaks a rule: the body, a parameter or the query string does not match its " +
      "schema, the JSON does not parse, or a check the operation describes failed"
  })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { error: Message },
  HttpApiSchema.annotations({
    status: 401,
    description: "The bearer session token is missing, invalid or expired (sign in again), or a sign-in token was refused"
  })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { error: Message },
  HttpApiSchema.annotations({
    status: 403,
    description: "The session may not do this: on employer routes, it belongs to no organization; the operation says when else"
  })
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { error: Message },
  HttpApiSchema.annotations({
    status: 404,
    description: "Nothing by that id or token is visible to the caller: it does not exist, or belongs to another " +
      "organization (both answer alike)"
  })
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { error: Message },
  HttpApiSchema.annotations({
    status: 409,
    description: "The request conflicts with the current state (a duplicate, or a state that does not allow the change)"
  })
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  { error: Message },
  HttpApiSchema.annotations({
    status: 429,
    description: "Too many requests for now: wait and retry (after `Retry-After` seconds when the answer carries it)"
  })
) {}

export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  { error: Message },
  HttpApiSchema.annotations({
    status: 501,
    description: "Not available here: this deployment is not configured for it, or it runs in the client tooling"
  })
) {}

/** Stellar RPC failed or answered unreadably; `hash` names the transfer it concerned, which is followed later. */
export class UpstreamUnavailable extends Schema.TaggedError<UpstreamUnavailable>()(
  "UpstreamUnavailable",
  {
    error: Message,
    hash: Schema.optional(Schema.String).annotations({
      description: "The hash of the transfer concerned (the fee-bump's), when one was recorded: the service keeps " +
        "following it; look it up with GET /transfers/{hash}"
    })
  },
  HttpApiSchema.annotations({
    status: 502,
    description: "Stellar RPC could not be reached or gave an answer the service could not read"
  })
) {}

/** The request body is over MAX_BODY_BYTES (decided from Content-Length before it is read, or while it arrives). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { error: Message },
  HttpApiSchema.annotations({ status: 413, description: `The request body is over ${MAX_BODY_KIB} KiB` })
) {}

/** The request body is neither JSON (`application/json`, `application/*+json`) nor, where taken, a form. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { error: Message },
  HttpApiSchema.annotations({
    status: 415,
    description: "The request body is not JSON (`application/json` or `application/*+json`), nor a form where the " +
      "operation takes one"
  })
) {}

/** The request body did not arrive within 30 seconds. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()(
  "RequestTimeout",
  { error: Message },
  HttpApiSchema.annotations({ status: 408, description: "The request body did not arrive within 30 seconds" })
) {}

/** The request head is over 16 KiB (Node's parser refuses it before any route runs). */
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()(
  "HeadersTooLarge",
  { error: Message },
  HttpApiSchema.annotations({ status: 431, description: "The request head (request line and headers) is over 16 KiB" })
) {}

/**
 * The database cannot be reached (connections refused or broken, PostgreSQL shutting down, out of connection
 * slots): the same request may succeed later; the answer carries `Retry-After`. Never carries the cause (it is
 * logged once, as one warning line).
 */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { error: Message },
  HttpApiSchema.annotations({
    status: 503,
    description: "The database cannot be reached right now: retry after `Retry-After` seconds"
  })
) {
  /** What the database driver said, for the log only: not a schema field, so never encoded into an answer. */
  declare readonly detail: string | undefined

  static because(detail: string): ServiceUnavailable {
    const error = new ServiceUnavailable({ error: "database unavailable" })
    Object.defineProperty(error, "detail", { value: detail, enumerable: false })
    return error
  }
}

/** An unexpected failure: logged once with its cause under `requestId`, never described to the caller. */
export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  {
    error: Message,
    requestId: Schema.propertySignature(Schema.String).annotations({
      description: "The request's id (its X-Request-Id), under which the cause is logged: quote it when reporting"
    })
  },
  HttpApiSchema.annotations({ status: 500, description: "An unexpected failure: the cause is logged, never sent" })
) {}

export const notFound = (what: string) => new NotFound({ error: `${what} not found` })

/** The same Idempotency-Key came back with another request (another body, or another operation): the draft's 422. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  { error: Message },
  HttpApiSchema.annotations({
    status: 422,
    description: "The `Idempotency-Key` was already used, within 24 hours, for a different request (another body or " +
      "another operation): use a new key for a new request"
  })
) {}
