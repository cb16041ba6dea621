import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AcceptInvite, ContractorJson } from "../Domain/Contractor.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import { CreateOrg, Me, Org, OrgInvitation } from "../Domain/Session.ts"
import { CreateOrgInvite, ListMembersParams, Member, MemberId, MemberPage, OrgSettings, UpdateMember } from "../Domain/Members.ts"
import { PublishSealingKey } from "../Domain/SealedAmounts.ts"
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
    HttpApiEndpoint.put("publishSealingKey", "/me/sealing-key")
      .setPayload(PublishSealingKey)
      .addSuccess(Member)
      .addError(Forbidden)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Publish your sealing key")
      .annotate(
        OpenApi.Description,
        "Publishes the signed-in member's HPKE public key (X25519), derived in their browser from their wallet, so that " +
          "a batch's amounts can be sealed to them (PUT /batches/{id}/sealed-amounts). It replaces the one published " +
          "before (another device derives the same key, so it is normally unchanged); a new or changed key is an " +
          "audit row (`member.sealing_key_published`). Answers the member, with `sealingKey`. Needs a signed-in member " +
          "whose role grants `amounts:read` (owner, admin, initiator, approver, payer) or `audit:disclose` (the auditor, " +
          "to whom the escrow key's secret is sealed): 403 for a viewer, a session of " +
          "no organization, or an API key. 409 when another member (of any organization) published the same key: each " +
          "derives their own, so only a copy collides. 400 when the key is not 32 bytes of base64url without padding, " +
          "or is all zeros."
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
      .setPayload(CreateOrgInvite)
      .addSuccess(OrgInvitation)
      .addError(Forbidden)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Invite someone to the organization")
      .annotate(
        OpenApi.Description,
        "A single-use token (shown only in this answer, valid 7 days) that lets another wallet or email user join the " +
          "caller's organization with `role` (default `viewer`), with POST /orgs/join/{token}. Needs the permission " +
          "`org:manage` (owner, admin); only an owner may invite an owner. 403 otherwise, or when the session belongs " +
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
        "Uses an organization invite (from POST /orgs/invites): the caller joins that organization with the invite's " +
          `role. ${SESSION} 404 when the token is unknown, already used or expired; 409 when the caller already ` +
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

const memberId = HttpApiSchema.param("id", Schema.propertySignature(MemberId).annotations({ description: "The membership's id" }))

const MANAGE = "Needs the permission `org:manage` (owner, admin): 403 otherwise, or when the session belongs to no organization."

/** Members and their roles, and the organization's payroll settings (issue 22 §1, §2). */
export class MembersApi extends HttpApiGroup.make("members")
  .add(
    HttpApiEndpoint.get("list", "/org/members").setUrlParams(ListMembersParams).addSuccess(MemberPage)
      .annotate(OpenApi.Summary, "List members")
      .annotate(
        OpenApi.Description,
        "The organization's members, their roles and their published sealing keys, newest first, a page at a time " +
          "(`limit`, default 50; pass `nextCursor` as `cursor` for the next page). Needs `org:manage` or " +
          "`amounts:read` (every role but viewer: whoever seals a batch's amounts needs the readers' keys): 403 " +
          "otherwise, or when the session belongs to no organization. 400 for a bad `limit` or `cursor`."
      )
  )
  .add(
    HttpApiEndpoint.patch("update")`/org/members/${memberId}`.setPayload(UpdateMember).addSuccess(Member)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Change a member's role")
      .annotate(
        OpenApi.Description,
        "Gives a member another role; their API keys lose at once whatever the new role does not grant. Answers the " +
          `member. ${MANAGE} Only an owner may promote to owner or change an owner. 404 when the organization has no ` +
          "such member; 409 when it would leave the organization without an owner."
      )
  )
  .add(
    HttpApiEndpoint.del("remove")`/org/members/${memberId}`.addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Remove a member")
      .annotate(
        OpenApi.Description,
        "Removes a member from the organization (yourself included: leaving); their API keys stop working at once. " +
          `Answers 204. ${MANAGE} Only an owner may remove an owner. 404 when the organization has no such member; ` +
          "409 for its last owner."
      )
  )
  .add(
    HttpApiEndpoint.get("settings", "/org/settings").addSuccess(OrgSettings)
      .annotate(OpenApi.Summary, "The payroll settings")
      .annotate(
        OpenApi.Description,
        "The organization's payroll rules: how many approvals a batch needs. For any member: 403 when the session " +
          "belongs to no organization."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateSettings", "/org/settings").setPayload(OrgSettings).addSuccess(OrgSettings)
      .annotate(OpenApi.Summary, "Change the payroll settings")
      .annotate(
        OpenApi.Description,
        "Sets how many approvals (0, 1 or 2) a ready batch needs before any of its payouts is sponsored. With 1 or 2, " +
          "the sponsor also refuses transfers that pay no payout (403), or approval would be a formality. Batches " +
          `already approved keep their approvals; a batch short of the new number waits for more. ${MANAGE}`
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Members")
  .annotate(
    OpenApi.Description,
    "Who belongs to the organization, with which role (owner, admin, initiator, approver, payer, viewer), and the " +
      "rules its payroll follows."
  )
{}
