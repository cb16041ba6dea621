import { DateTime, Schema } from "effect"
import { documented } from "./Documented.ts"
import { Page, PageParams } from "./Page.ts"
import { MemberRole } from "./Roles.ts"

export const MemberId = Schema.UUID.pipe(Schema.brand("MemberId"))
export type MemberId = typeof MemberId.Type

const MemberFields = {
  id: Schema.propertySignature(MemberId).annotations({ description: "The membership's id" }),
  sub: Schema.propertySignature(Schema.String).annotations({
    description: "Who the member is: their wallet's account (G...) or their Privy user id"
  }),
  role: Schema.propertySignature(MemberRole).annotations({ description: "Their role" }),
  joinedAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When they joined" }),
  sealingKey: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "Their published sealing key (PUT /me/sealing-key: X25519, base64url), to which a batch's amounts are " +
      "sealed; absent until they publish one"
  })
}

const exampleMember = {
  id: MemberId.make("3c6f1e2a-9b4d-4f7e-8a15-0d2c7b9e6f41"),
  sub: "GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI",
  role: "approver" as const,
  joinedAt: DateTime.unsafeMake("2026-11-03T10:12:00Z"),
  sealingKey: "LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM"
}

export class Member extends Schema.Class<Member>("Member")(MemberFields, documented(MemberFields, {
  description: "A member of the organization and their role",
  examples: [exampleMember]
})) {}

/** An `org_members` row (`created_at` is when they joined). */
export const MemberFromRow = Schema.transform(
  Schema.Struct({
    id: MemberId,
    userSub: Schema.String,
    role: MemberRole,
    createdAt: Schema.DateFromSelf,
    sealingKey: Schema.NullOr(Schema.String)
  }),
  Schema.typeSchema(Member),
  {
    strict: true,
    decode: (row) =>
      new Member({
        id: row.id,
        sub: row.userSub,
        role: row.role,
        joinedAt: DateTime.unsafeFromDate(row.createdAt),
        ...(row.sealingKey === null ? {} : { sealingKey: row.sealingKey })
      }),
    encode: (m) => ({ id: m.id, userSub: m.sub, role: m.role, createdAt: DateTime.toDate(m.joinedAt), sealingKey: m.sealingKey ?? null })
  }
)

const MemberPageFields = Page(Member).fields

export class MemberPage extends Schema.Class<MemberPage>("MemberPage")(MemberPageFields, documented(MemberPageFields, {
  description: "One page of the organization's members, newest first",
  examples: [{ items: [new Member(exampleMember)] }]
})) {}

export const ListMembersParams = Schema.Struct(PageParams)

const UpdateMemberFields = {
  role: Schema.propertySignature(MemberRole).annotations({ description: "Their new role" })
}

export class UpdateMember extends Schema.Class<UpdateMember>("UpdateMember")(UpdateMemberFields, documented(UpdateMemberFields, {
  description: "A member's new role",
  examples: [{ role: "payer" }]
})) {}

const CreateOrgInviteFields = {
  role: Schema.optional(MemberRole).annotations({ description: "The role the invitee joins with (default `viewer`)" })
}

export class CreateOrgInvite extends Schema.Class<CreateOrgInvite>("CreateOrgInvite")(
  CreateOrgInviteFields,
  documented(CreateOrgInviteFields, { description: "An invite to join the organization", examples: [{ role: "approver" }] })
) {}

export const ApprovalsRequired = Schema.Literal(0, 1, 2)

const OrgSettingsFields = {
  approvalsRequired: Schema.propertySignature(ApprovalsRequired).annotations({
    description: "How many members must approve a ready batch before any of its payouts is sponsored (0: none). Its " +
      "creator and the member who readied it may not approve it; with 1 or 2, transfers that pay no payout are refused"
  })
}

export class OrgSettings extends Schema.Class<OrgSettings>("OrgSettings")(OrgSettingsFields, documented(OrgSettingsFields, {
  description: "The organization's payroll rules",
  examples: [{ approvalsRequired: 1 }]
})) {}
