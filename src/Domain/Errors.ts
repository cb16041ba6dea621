import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** Every error the API answers with: `{error}` plus a tag the client uses to tell them apart. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 501 })
) {}

/** Stellar RPC failed or answered unreadably; `hash` names the transfer it concerned, which is followed later. */
export class UpstreamUnavailable extends Schema.TaggedError<UpstreamUnavailable>()(
  "UpstreamUnavailable",
  { error: Schema.String, hash: Schema.optional(Schema.String) },
  HttpApiSchema.annotations({ status: 502 })
) {}

/** The request body is over 256 KiB (decided from Content-Length before it is read, or while it arrives). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 413 })
) {}

/** The request body is neither JSON (`application/json`, `application/*+json`) nor, where taken, a form. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 415 })
) {}

/** The request body did not arrive within 30 seconds. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()(
  "RequestTimeout",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 408 })
) {}

/** The request head is over 16 KiB (Node's parser refuses it before any route runs). */
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()(
  "HeadersTooLarge",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 431 })
) {}

/**
 * The database cannot be reached (connections refused or broken, PostgreSQL shutting down, out of connection
 * slots): the same request may succeed later; the answer carries `Retry-After`. Never carries the cause (it is
 * logged once, as one warning line).
 */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
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
  { error: Schema.String, requestId: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

export const notFound = (what: string) => new NotFound({ error: `${what} not found` })
