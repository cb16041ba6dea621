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

export const notFound = (what: string) => new NotFound({ error: `${what} not found` })
