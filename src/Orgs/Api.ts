import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AcceptInvite, ContractorJson } from "../Domain/Contractor.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import { CreateOrg, Me, Org, OrgInvitation } from "../Domain/Session.ts"
import { Authentication } from "../Auth/Security.ts"

/** At most 100 characters: the router answers 404 for a longer path segment before any schema runs. */
const inviteToken = HttpApiSchema.param("token", Schema.String.pipe(Schema.maxLength(100)))

/** Organizations, memberships and invites, and `/me` (the group keeps its name, `account`, for existing clients). */
export class OrgsApi extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("me", "/me")
      .setUrlParams(Schema.Struct({ invite: Schema.optional(Schema.String.pipe(Schema.maxLength(200))) }))
      .addSuccess(Me)
  )
  .add(
    HttpApiEndpoint.post("createOrg", "/orgs")
      .setPayload(CreateOrg)
      .addSuccess(Org)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("inviteEmployer", "/orgs/invites")
      .addSuccess(OrgInvitation)
      .addError(Forbidden)
      .annotate(OpenApi.Description, "A single-use token (shown once, valid 7 days) that lets another wallet join the organization")
  )
  .add(
    HttpApiEndpoint.post("joinOrg")`/orgs/join/${inviteToken}`
      .addSuccess(Org)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("acceptInvite")`/invites/${inviteToken}/accept`
      .setPayload(AcceptInvite)
      .addSuccess(ContractorJson)
      .addError(NotFound)
      .addError(Conflict)
      .addError(Forbidden)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Account")
{}
