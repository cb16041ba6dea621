import { Context, DateTime, Schema } from "effect"
import { documented } from "./Documented.ts"
import { ContractorStatus } from "./Contractor.ts"
import { ContractorId, OrgId } from "./Ids.ts"
import { fromRow } from "./Row.ts"
import { MemberRole, Permission } from "./Roles.ts"
import { Name } from "./Text.ts"

export const SignInMethod = Schema.Literal("sep10", "privy")
export type SignInMethod = typeof SignInMethod.Type

/** The verified claims of a session JWT. */
export interface Session {
  readonly sub: string
  readonly method: SignInMethod
  /** The verified email of an email sign-in, when the identity provider vouched for one. */
  readonly email?: string | undefined
  readonly jti: string
  readonly expiresAt: Date
  /**
   * Set when the caller is an API key: it acts as the user who created it (`sub`, `method`), for its organization,
   * within its scopes (the Authentication middleware checks them).
   */
  readonly apiKey?: {
    readonly id: string
    readonly orgId: OrgId
    readonly scopes: ReadonlyArray<string>
    /** The role the key is narrowed to, within its creator's current role; null: the creator's role. */
    readonly role: MemberRole | null
  } | undefined
}

export class CurrentSession extends Context.Tag("Domain/CurrentSession")<CurrentSession, Session>() {}

const SessionTokenFields = {
  token: Schema.propertySignature(Schema.String).annotations({
    description: "The session: send it as `Authorization: Bearer <token>` (an HS256 JWT)"
  }),
  expiresAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({
    description: "When the session ends (one hour after sign-in): sign in again then"
  })
}

export class SessionToken extends Schema.Class<SessionToken>("SessionToken")(SessionTokenFields, documented(SessionTokenFields, {
  description: "A session for the signed-in wallet or email user",
  examples: [{
    token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJtZXRob2QiOiJzZXAxMCIsImlzcyI6Imh0dHBzOi8vcGF5cm9sbC5leGFtcGxlLmNvbSIsInN1Y" +
      "iI6IkdDTkdaQU9RRURMNkxDWFM0UkZSU0tQNDdZWUpLUllWRkJKSU9ZWVRZV0s0SDRIU1RVUlJVUkVNIiwiaWF0IjoxNzk1NTEyNjAwLCJleHAiOjE3OT" +
      "U1MTYyMDAsImp0aSI6ImE4YjRjYmMwLWI2ZmItNDMwMi04MGE2LTc5ZGQ2ZmYwNDYwNCJ9.0i3-2F2BFZYbk6YHbcICC4zf4uAvnRjG8FpiEmIcr6E",
    expiresAt: DateTime.unsafeMake("2026-11-24T10:30:00Z")
  }]
})) {}

export const Role = Schema.Literal("employer", "contractor")

const MeFields = {
  sub: Schema.propertySignature(Schema.String).annotations({
    description: "Who is signed in: the wallet's account (G...) for SEP-10, the Privy user id for email"
  }),
  method: Schema.propertySignature(SignInMethod).annotations({
    description: "How they signed in: `sep10` (a Stellar wallet) or `privy` (email)"
  }),
  roles: Schema.propertySignature(Schema.Array(Role)).annotations({
    description: "`employer` when they belong to an organization, `contractor` when an organization's directory links them"
  }),
  needsOnboarding: Schema.propertySignature(Schema.Boolean).annotations({
    description: "True when they have no role and no pending invite: create an organization (POST /orgs) or join one"
  }),
  employer: Schema.optional(Schema.Struct({
    orgId: Schema.propertySignature(OrgId).annotations({ description: "The organization's id" }),
    orgName: Schema.propertySignature(Schema.String).annotations({ description: "The organization's name" }),
    role: Schema.propertySignature(MemberRole).annotations({ description: "Their role in it" }),
    permissions: Schema.propertySignature(Schema.Array(Permission)).annotations({
      description: "What their role lets them do, so that a client offers only that (a route needing another answers 403)"
    })
  })).annotations({ description: "The organization they belong to, if any" }),
  contractor: Schema.optional(Schema.Struct({
    id: Schema.propertySignature(ContractorId).annotations({ description: "Their contractor id" }),
    name: Schema.propertySignature(Schema.String).annotations({ description: "Their name in the directory" }),
    status: Schema.propertySignature(ContractorStatus).annotations({
      description: "Their registration: `onboarding` until their wallet registers with the confidential token, then " +
        "`ready` (the chain moves it); a contractor portal reads it again to follow it"
    })
  })).annotations({ description: "Their contractor record, when a directory links them (the first, if several do)" }),
  invite: Schema.optional(
    Schema.Struct({
      company: Schema.propertySignature(Schema.String).annotations({ description: "The inviting organization's name" }),
      role: Schema.propertySignature(Schema.Literal("contractor")).annotations({ description: "What they are invited as" }),
      token: Schema.propertySignature(Schema.String).annotations({
        description: "The invite token, to accept with POST /invites/{token}/accept"
      })
    })
  ).annotations({
    description: "A pending contractor invite: the one presented with `?invite=`, else one made for this wallet's " +
      "address or this session's verified email"
  })
}

export class Me extends Schema.Class<Me>("Me")(MeFields, documented(MeFields, {
  description: "Who the signed-in user is to the service",
  examples: [{
    sub: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM",
    method: "sep10",
    roles: ["employer"],
    needsOnboarding: false,
    employer: {
      orgId: OrgId.make("e3b1c0a9-5d4f-4c2b-9a87-6f5e4d3c2b1a"),
      orgName: "Acme",
      role: "approver",
      permissions: ["directory:read", "batches:read", "audit:read", "batches:approve", "batches:control"]
    }
  }]
})) {}

const OrgFields = {
  id: Schema.propertySignature(OrgId).annotations({ description: "The organization's id" }),
  name: Schema.propertySignature(Schema.String).annotations({ description: "The organization's name" }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it was created" })
}

export class Org extends Schema.Class<Org>("Org")(OrgFields, documented(OrgFields, {
  description: "An organization: the employer whose wallets run its payroll",
  examples: [{
    id: OrgId.make("e3b1c0a9-5d4f-4c2b-9a87-6f5e4d3c2b1a"),
    name: "Acme",
    createdAt: DateTime.unsafeMake("2026-11-02T08:15:00Z")
  }]
})) {}

/** An `orgs` row, decoded into the API's Org. */
export const OrgFromRow = fromRow(Org, { ...Org.fields, createdAt: Schema.DateTimeUtcFromDate })

/** The organization a user belongs to, and as what. */
export const Membership = Schema.Struct({
  memberId: Schema.UUID,
  orgId: OrgId,
  orgName: Schema.String,
  role: MemberRole,
  approvalsRequired: Schema.Int
})
export type Membership = typeof Membership.Type

const CreateOrgFields = {
  name: Schema.propertySignature(Name).annotations({ description: "The organization's name, 1 to 200 characters (trimmed)" })
}

export class CreateOrg extends Schema.Class<CreateOrg>("CreateOrg")(
  CreateOrgFields,
  documented(CreateOrgFields, { description: "A new organization", examples: [{ name: "Acme" }] })
) {}

const OrgInvitationFields = {
  token: Schema.propertySignature(Schema.String).annotations({
    description: "The invite token, shown only now: the other wallet joins with POST /orgs/join/{token}"
  }),
  role: Schema.propertySignature(MemberRole).annotations({ description: "The role the invitee joins with" }),
  expiresAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it stops working (7 days on)" })
}

export class OrgInvitation extends Schema.Class<OrgInvitation>("OrgInvitation")(
  OrgInvitationFields,
  documented(OrgInvitationFields, {
    description: "A single-use invite for another wallet to join the organization",
    examples: [{ token: "SycLSY1Kv30DzIPT4iwAdyWRJgYl9lt628dtkRQECzs", role: "approver", expiresAt: DateTime.unsafeMake("2026-12-01T08:15:00Z") }]
  })
) {}
