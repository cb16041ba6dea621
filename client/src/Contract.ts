// The contract as the package answers it: `Api`, its client (`makeClient`, one group at a time `makeGroupClient`), the
// schemas a caller builds payloads from and decodes answers with, and the errors. No Stellar SDK and no `runPayroll`:
// what a browser page needs (the console imports it as `@confidential-payroll/client/contract`); index.ts is this and
// the payroll runners. Nothing here reaches the server's implementation.
export { Api } from "../../src/Api.ts"
export { type BusyRetry, type ClientOptions, type GroupName, makeClient, makeGroupClient, type RetryBusy } from "./Client.ts"
export { Challenge, SignedChallenge, PrivySignIn } from "../../src/Auth/Api.ts"
export { ApiKey, ApiKeyId, ApiKeyList, CreateApiKey, NewApiKey } from "../../src/Auth/ApiKeysApi.ts"
export { Scope } from "../../src/Auth/Scopes.ts"
export { FaucetRequest, VaultState } from "../../src/Funding/Api.ts"
export { Health, Liveness, NotReady } from "../../src/Health/Api.ts"
export {
  AddPayouts,
  Batch,
  BatchJob,
  BatchPage,
  BatchRun,
  BatchStatus,
  ContractorPayout,
  CreateBatch,
  JobAccepted,
  JobItem,
  JobResult,
  MAX_BATCH_ITEMS,
  Payout,
  PayoutPage,
  PayoutStatus,
  Approval,
  RejectBatch
} from "../../src/Domain/Batch.ts"
export {
  ApproveBatch,
  PublishSealingKey,
  RecipientRefused,
  SealedAmounts,
  SealedEnvelope,
  SealedRecipient,
  SEALING_SUITE
} from "../../src/Domain/SealedAmounts.ts"
export { SealedReceipt, SealedReceiptPage } from "../../src/Domain/SealedReceipts.ts"
export { MAX_BODY_BYTES } from "../../src/Domain/RequestLimits.ts"
export { CreateOrgInvite, Member, MemberId, MemberPage, OrgSettings, UpdateMember } from "../../src/Domain/Members.ts"
export { MemberRole, Permission, ROLE_PERMISSIONS } from "../../src/Domain/Roles.ts"
export { AuditActor } from "../../src/Domain/Actor.ts"
export { AuditPage, AuditRecord, AuditVerification } from "../../src/Audit/AuditRecord.ts"
export { Statistics } from "../../src/Audit/ExportsApi.ts"
export {
  Conflict,
  Forbidden,
  HeadersTooLarge,
  IdempotencyKeyReused,
  InternalError,
  InvalidRequest,
  NotFound,
  NotImplemented,
  PayloadTooLarge,
  RateLimited,
  RequestTimeout,
  ServiceUnavailable,
  Unauthorized,
  UnsupportedMediaType,
  UpstreamUnavailable
} from "../../src/Domain/Errors.ts"
export * from "../../src/Domain/Ids.ts"
export * from "../../src/Domain/Stellar.ts"
export {
  AcceptInvite,
  Amount,
  BulkImport,
  BulkImportResult,
  BulkRowError,
  Contractor,
  ContractorJson,
  ContractorPage,
  ContractorStatus,
  CreateContractor,
  Email,
  Invitation,
  PublicViewingKey,
  Rate,
  UpdateContractor
} from "../../src/Domain/Contractor.ts"
export {
  CreateWebhook,
  DeliveryId,
  DeliveryPage,
  DeliveryStatus,
  EventType,
  NewWebhook,
  RotatedSecret,
  RotateSecret,
  UpdateWebhook,
  Webhook,
  WebhookDelivery,
  WebhookId,
  WebhookList
} from "../../src/Webhooks/Api.ts"
export { CreateOrg, Me, Org, OrgInvitation, Role, SessionToken, SignInMethod } from "../../src/Domain/Session.ts"
export {
  PreparedTransfer,
  PrepareTransferRequest,
  SimulationRefused,
  SponsorRefused,
  TokenCallRequest,
  TransferOutcome,
  TransferRejected,
  TransferRequest,
  TransferResult,
  TransferStatus,
  TransferTimeout
} from "../../src/Domain/Transfer.ts"
