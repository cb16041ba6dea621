import { Schema } from "effect"

export const OrgId = Schema.UUID.pipe(Schema.brand("OrgId"))
export type OrgId = typeof OrgId.Type

export const ContractorId = Schema.UUID.pipe(Schema.brand("ContractorId"))
export type ContractorId = typeof ContractorId.Type

export const InviteId = Schema.UUID.pipe(Schema.brand("InviteId"))
export type InviteId = typeof InviteId.Type
