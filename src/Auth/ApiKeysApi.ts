import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { DateTime, Schema } from "effect"
import { documented } from "../Domain/Documented.ts"
import { Forbidden, InvalidRequest, NotFound } from "../Domain/Errors.ts"
import { Name } from "../Domain/Text.ts"
import { MemberRole } from "../Domain/Roles.ts"
import { Cidr } from "../Domain/Cidr.ts"
import { Scope } from "./Scopes.ts"
import { Authentication } from "./Security.ts"

export const ApiKeyId = Schema.UUID.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

const EXAMPLE_ID = ApiKeyId.make("4c8e2f1a-9b3d-4a7e-8f60-2d1c5b9e7a34")
const EXAMPLE_KEY = "cpk_Qm9vdHN0cmFwcGVkLWV4YW1wbGUta2V5LW5vdC1yZWFsLTAxMjM0NTY"

const Scopes = Schema.Array(Scope).pipe(Schema.minItems(1), Schema.maxItems(7))

const KeyRole = Schema.NullOr(MemberRole).annotations({
  description: "The role the key acts within, at most its creator's (whatever their role grants now); null: the creator's role"
})
const KeyCidrs = Schema.Array(Cidr).annotations({
  description: "The networks it may be used from (the client address as the sign-in limit finds it, TRUSTED_PROXIES " +
    "included); empty: anywhere"
})

const CreateApiKeyFields = {
  name: Schema.propertySignature(Name).annotations({ description: "What the key is for, 1 to 200 characters (trimmed)" }),
  scopes: Schema.propertySignature(Scopes).annotations({ description: "What the key may do: one or more scopes" }),
  expiresAt: Schema.optional(Schema.DateTimeUtc).annotations({
    description: "When the key stops working (must be in the future); without it, it works until revoked"
  }),
  role: Schema.optional(MemberRole).annotations({
    description: "Narrows the key to this role (it may grant nothing the creator's role lacks: 403 otherwise); without " +
      "it, the key acts with the creator's role"
  }),
  allowedCidrs: Schema.optional(Schema.Array(Cidr).pipe(Schema.maxItems(20))).annotations({
    description: "Up to 20 IPv4/IPv6 addresses or CIDR blocks the key may be used from; a call from elsewhere is 403"
  })
}

export class CreateApiKey extends Schema.Class<CreateApiKey>("CreateApiKey")(CreateApiKeyFields, documented(CreateApiKeyFields, {
  description: "A new API key of the organization",
  examples: [{
    name: "Payroll runner",
    scopes: ["batches:read", "transfers:submit"],
    expiresAt: DateTime.unsafeMake("2027-06-30T00:00:00Z"),
    role: "payer",
    allowedCidrs: ["203.0.113.0/24"]
  }]
})) {}

const KeyFields = {
  id: Schema.propertySignature(ApiKeyId).annotations({ description: "The key's id (not a secret): revoke it with DELETE /api-keys/{id}" }),
  name: Schema.propertySignature(Schema.String).annotations({ description: "What the key is for" }),
  scopes: Schema.propertySignature(Schema.Array(Scope)).annotations({ description: "What the key may do" }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When the key was created" }),
  expiresAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "When the key stops working; null when it works until revoked"
  }),
  role: Schema.propertySignature(KeyRole),
  allowedCidrs: Schema.propertySignature(KeyCidrs)
}

const NewApiKeyFields = {
  ...KeyFields,
  key: Schema.propertySignature(Schema.String).annotations({
    description: "The key itself (`cpk_` and 256 random bits), shown only now: send it as `Authorization: Bearer <key>`. " +
      "The service keeps only its SHA-256 hash"
  })
}

export class NewApiKey extends Schema.Class<NewApiKey>("NewApiKey")(NewApiKeyFields, documented(NewApiKeyFields, {
  description: "A key just created, with its secret",
  examples: [{
    id: EXAMPLE_ID,
    key: EXAMPLE_KEY,
    name: "Payroll runner",
    scopes: ["batches:read", "transfers:submit"],
    createdAt: DateTime.unsafeMake("2026-11-24T09:30:00Z"),
    expiresAt: DateTime.unsafeMake("2027-06-30T00:00:00Z"),
    role: "payer",
    allowedCidrs: ["203.0.113.0/24"]
  }]
})) {}

const ApiKeyFields = {
  ...KeyFields,
  lastUsedAt: Schema.propertySignature(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "When the key was last used (to the minute: it is recorded at most once a minute); null if never"
  })
}

export class ApiKey extends Schema.Class<ApiKey>("ApiKey")(ApiKeyFields, documented(ApiKeyFields, {
  description: "An API key of the organization, without its secret",
  examples: [{
    id: EXAMPLE_ID,
    name: "Payroll runner",
    scopes: ["batches:read", "transfers:submit"],
    createdAt: DateTime.unsafeMake("2026-11-24T09:30:00Z"),
    expiresAt: null,
    role: null,
    allowedCidrs: [],
    lastUsedAt: DateTime.unsafeMake("2026-11-25T16:02:00Z")
  }]
})) {}

const ApiKeyListFields = {
  items: Schema.propertySignature(Schema.Array(ApiKey)).annotations({ description: "The organization's keys, newest first" })
}

export class ApiKeyList extends Schema.Class<ApiKeyList>("ApiKeyList")(ApiKeyListFields, documented(ApiKeyListFields, {
  description: "The organization's API keys (revoked ones are gone; expired ones stay listed until revoked)",
  examples: [{
    items: [{
      id: EXAMPLE_ID,
      name: "Payroll runner",
      scopes: ["batches:read", "transfers:submit"],
      createdAt: DateTime.unsafeMake("2026-11-24T09:30:00Z"),
      expiresAt: null,
      role: null,
      allowedCidrs: [],
      lastUsedAt: null
    }]
  }]
})) {}

const id = HttpApiSchema.param("id", Schema.propertySignature(ApiKeyId).annotations({ description: "The key's id" }))

const WHO = "For a signed-in member with `org:manage` (owner, admin; a session, not an API key): 403 when the session " +
  "belongs to no organization, its role lacks it, and to any API key."

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.post("create", "/api-keys").setPayload(CreateApiKey).addSuccess(NewApiKey).addError(Forbidden)
      .addError(InvalidRequest)
      .annotate(OpenApi.Summary, "Create an API key")
      .annotate(
        OpenApi.Description,
        "Creates a key for the organization that acts as the signed-in user, within its scopes and their role (or " +
          "the narrower `role` given; a member removed or demoted takes their keys' powers with them at once), from " +
          "`allowedCidrs` only when given, until it expires or is revoked. The key is in this answer only: the service keeps its SHA-256 hash. A key created by a wallet " +
          "(SEP-10) session may submit transfers sourced by that wallet (`transfers:submit`); one created by an " +
          `email session gets 501 there, as the session would. ${WHO} 403 also when \`role\` grants what the creator's role lacks. 400 when \`expiresAt\` is not in the future.`
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api-keys").addSuccess(ApiKeyList).addError(Forbidden)
      .annotate(OpenApi.Summary, "List API keys")
      .annotate(
        OpenApi.Description,
        `The organization's API keys, newest first, without their secrets, with when each was last used. ${WHO}`
      )
  )
  .add(
    HttpApiEndpoint.del("revoke")`/api-keys/${id}`.addSuccess(HttpApiSchema.NoContent).addError(Forbidden).addError(NotFound)
      .annotate(OpenApi.Summary, "Revoke an API key")
      .annotate(
        OpenApi.Description,
        "Revokes the key at once, on every instance: its next request is 401. Answers 204. " +
          `${WHO} 404 when the organization has no such key (another organization's answers alike).`
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "API keys")
  .annotate(
    OpenApi.Description,
    "Long-lived keys for an organization's own software (a payroll runner, an HR system sync): each acts as the " +
      "employer who created it, limited to its scopes, sent as `Authorization: Bearer cpk_...`. An operation outside " +
      "a key's scopes answers 403."
  )
{}
