import { Context, Schema } from "effect"
import { ContractorId, OrgId } from "./Ids.ts"
import { fromRow } from "./Row.ts"
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
}

export class CurrentSession extends Context.Tag("Auth/CurrentSession")<CurrentSession, Session>() {}

export class SessionToken extends Schema.Class<SessionToken>("SessionToken")({
  token: Schema.String,
  expiresAt: Schema.DateTimeUtc
}) {}

export const Role = Schema.Literal("employer", "contractor")

export class Me extends Schema.Class<Me>("Me")({
  sub: Schema.String,
  method: SignInMethod,
  roles: Schema.Array(Role),
  needsOnboarding: Schema.Boolean,
  employer: Schema.optional(Schema.Struct({ orgId: OrgId, orgName: Schema.String })),
  contractor: Schema.optional(Schema.Struct({ id: ContractorId, name: Schema.String })),
  invite: Schema.optional(
    Schema.Struct({ company: Schema.String, role: Schema.Literal("contractor"), token: Schema.String })
  )
}) {}

export class Org extends Schema.Class<Org>("Org")({
  id: OrgId,
  name: Schema.String,
  createdAt: Schema.DateTimeUtc
}) {}

/** An `orgs` row, decoded into the API's Org. */
export const OrgFromRow = fromRow(Org, { ...Org.fields, createdAt: Schema.DateTimeUtcFromDate })

export const OrgRole = Schema.Literal("owner", "member")

/** The organization a user belongs to, and as what. */
export const Membership = Schema.Struct({ orgId: OrgId, orgName: Schema.String, role: OrgRole })
export type Membership = typeof Membership.Type

export class CreateOrg extends Schema.Class<CreateOrg>("CreateOrg")({ name: Name }) {}

export class OrgInvitation extends Schema.Class<OrgInvitation>("OrgInvitation")({
  token: Schema.String,
  expiresAt: Schema.DateTimeUtc
}) {}
