import { Schema } from "effect"

export const OrgId = Schema.UUID.pipe(Schema.brand("OrgId"))
export type OrgId = typeof OrgId.Type

export const ContractorId = Schema.UUID.pipe(Schema.brand("ContractorId"))
export type ContractorId = typeof ContractorId.Type

export const InviteId = Schema.UUID.pipe(Schema.brand("InviteId"))
export type InviteId = typeof InviteId.Type

export const BatchId = Schema.UUID.pipe(Schema.brand("BatchId"))
export type BatchId = typeof BatchId.Type

export const PayoutId = Schema.UUID.pipe(Schema.brand("PayoutId"))
export type PayoutId = typeof PayoutId.Type

export const JobId = Schema.UUID.pipe(Schema.brand("JobId"))
export type JobId = typeof JobId.Type
