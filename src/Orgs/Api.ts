import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AcceptInvite, ContractorJson } from "../Domain/Contractor.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import { CreateOrg, Me, Org, OrgInvitation } from "../Domain/Session.ts"
import { Authentication } from "../Auth/Security.ts"

/** At most 100 characters: the router answers 404 for a longer path segment before any schema runs. */
const inviteToken = HttpApiSchema.param(
  "token",
  Schema.propertySignature(Schema.String.pipe(Schema.maxLength(100))).annotations({
    description: "The invite token, as it was handed out"
  })
)

const SESSION = "Needs a session (any sign-in method)."

/** Organizations, memberships and invites, and `/me` (the group keeps its name, `account`, for existing clients). */
export class OrgsApi extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("me", "/me")
      .setUrlParams(Schema.Struct({
        invite: Schema.optional(Schema.String.pipe(Schema.maxLength(200))).annotations({
          description: "A contractor invite token the user was sent: the answer's `invite` then shows it (and its " +
            "company) while it can still be accepted"
        })
      }))
      .addSuccess(Me)
      .annotate(OpenApi.Summary, "Who am I")
      .annotate(
        OpenApi.Description,
        "Who the signed-in user is to the service: their roles (`employer` of an organization, `contractor` of " +
          "directories), and what to do next. `invite` is the invite presented with `?invite=`, else the pending " +
          "invite of an `invited` contractor whose address is the signed-in wallet or whose email is the session's " +
          "verified email; `needsOnboarding` is true with no role and no invite (create an organization with POST " +
          `/orgs, or accept an invite). ${SESSION}`
      )
  )
  .add(
    HttpApiEndpoint.post("createOrg", "/orgs")
      .setPayload(CreateOrg)
      .addSuccess(Org)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create an organization")
      .annotate(
        OpenApi.Description,
        "Creates the caller's organization; the caller becomes its employer (owner), and can then use the employer " +
          `routes (contractors, batches, transfers). ${SESSION} 409 when the caller already belongs to an organization.`
      )
  )
  .add(
    HttpApiEndpoint.post("inviteEmployer", "/orgs/invites")
      .addSuccess(OrgInvitation)
      .addError(Forbidden)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Invite another wallet to the organization")
      .annotate(
        OpenApi.Description,
        "A single-use token (shown only in this answer, valid 7 days) that lets another wallet join the caller's " +
          "organization as an employer, with POST /orgs/join/{token}. For an employer; 403 when the session belongs " +
          "to no organization."
      )
  )
  .add(
    HttpApiEndpoint.post("joinOrg")`/orgs/join/${inviteToken}`
      .addSuccess(Org)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Join an organization")
      .annotate(
        OpenApi.Description,
        "Uses an organization invite (from POST /orgs/invites): the caller joins that organization as an employer " +
          `wallet. ${SESSION} 404 when the token is unknown, already used or expired; 409 when the caller already ` +
          "belongs to an organization."
      )
  )
  .add(
    HttpApiEndpoint.post("acceptInvite")`/invites/${inviteToken}/accept`
      .setPayload(AcceptInvite)
      .addSuccess(ContractorJson)
      .addError(NotFound)
      .addError(Conflict)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "Accept a contractor invite")
      .annotate(
        OpenApi.Description,
        "The signed-in user claims the contractor record a contractor invite was made for (from POST " +
          "/contractors/{id}/invites): it is linked to them and moves from `invited` to `onboarding`, or to `ready` " +
          "when its address (the record's, else the signed-in wallet's) is registered with the confidential token. " +
          "`pvk`, when given, is kept as the contractor's public viewing key. Answers the contractor record. " +
          `${SESSION} 404 when the token is unknown, already used or expired; 409 when the contractor is no longer ` +
          "`invited`, or this wallet is already another contractor of the organization."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Account")
  .annotate(
    OpenApi.Description,
    "The signed-in user and their organization: who am I, creating or joining an organization, inviting other " +
      "employer wallets, and accepting a contractor invite."
  )
{}
