import { Schema } from "effect"

export const OrgId = Schema.UUID.pipe(Schema.brand("OrgId"))
export type OrgId = typeof OrgId.Type

export const ContractorId = Schema.UUID.pipe(Schema.brand("ContractorId"))
export type ContractorId = typeof ContractorId.Type

export const BatchId = Schema.UUID.pipe(Schema.brand("BatchId"))
export type BatchId = typeof BatchId.Type

export const PayoutId = Schema.UUID.pipe(Schema.brand("PayoutId"))
export type PayoutId = typeof PayoutId.Type
