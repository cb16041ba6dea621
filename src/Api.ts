import { HttpApi, OpenApi } from "@effect/platform"
import { MAX_BODY_KIB } from "./Domain/RequestLimits.ts"
import { MembersApi, OrgsApi } from "./Orgs/Api.ts"
import { AuthApi } from "./Auth/Api.ts"
import { ApiKeysApi } from "./Auth/ApiKeysApi.ts"
import { ArchiveApi } from "./Archive/Api.ts"
import { AuditApi } from "./Audit/Api.ts"
import { ExportsApi } from "./Audit/ExportsApi.ts"
import { ContractorsApi } from "./Contractors/Api.ts"
import { CrsApi } from "./Crs/Api.ts"
import { StellarRpcApi } from "./StellarRpc/Api.ts"
import { EscrowApi } from "./Escrow/Api.ts"
import {
  HeadersTooLarge,
  InternalError,
  InvalidRequest,
  PayloadTooLarge,
  RequestTimeout,
  ServiceUnavailable,
  UnsupportedMediaType
} from "./Domain/Errors.ts"
import { BatchesApi } from "./Batches/Api.ts"
import { SealedReceiptsApi } from "./Batches/ReceiptsApi.ts"
import { BatchRunsApi } from "./BatchRuns/Api.ts"
import { ContractorPortalApi } from "./ContractorPortal/Api.ts"
import { FundingApi } from "./Funding/Api.ts"
import { HealthApi } from "./Health/Api.ts"
import { documentIdempotencyKey, IdempotencyKeyReused } from "./Http/Idempotency/IdempotencyKey.ts"
import { TransfersApi } from "./Transfers/Api.ts"
import { TokenCallsApi } from "./Transfers/TokenCallsApi.ts"
import { WebhooksApi } from "./Webhooks/Api.ts"
import { AuditorApi, WithdrawalsApi } from "./OnDevice/Api.ts"

const DESCRIPTION = `Companies pay contractors in USDC on the Stellar network without anyone seeing what each person is \
paid. The employer's client encrypts the amounts and builds the zero-knowledge proofs; this service signs people in, \
keeps a contractor directory of public data, organizes payroll batches, and sponsors the employer's signed \
\`confidential_transfer\` transactions: it checks them, pays their network fee (a CAP-15 fee-bump), submits them \
through Stellar RPC and follows them to the ledger. It never holds a user's key.

**Signing in.** A Stellar wallet signs in with SEP-10 (GET /auth/sep10/challenge, then POST /auth/sep10/verify), an \
email user through Privy (POST /auth/privy). Either answers a session token, valid for one hour: send it as \
\`Authorization: Bearer <token>\`. A payroll needs a wallet session: email sessions cannot submit transfers. An \
employer's software may use an API key instead (POST /api-keys; \`Authorization: Bearer cpk_...\`), limited to its scopes.

**Roles.** A signed-in user who creates an organization (POST /orgs) or joins one is an *employer*: the \
contractor, batch, transfer and batch-run routes act on that organization and answer 403 to a session of no \
organization. Another organization's records answer 404, exactly as missing ones. A *contractor* is someone an \
organization's directory links to their wallet or account (through an invite).

**Errors.** Every error answer is JSON \`{"_tag": "...", "error": "..."}\`: \`_tag\` names the error (the typed \
client decodes each as its own error), \`error\` says what went wrong. Every operation may answer 400 (the request \
does not match the schema), 408 (the body did not arrive within 30 s), 413 (a body over ${MAX_BODY_KIB} KiB), 415 (a body \
that is not JSON), 431 (request headers over 16 KiB), 500 (an unexpected failure, with the \`requestId\` it is \
logged under) and 503 (the database cannot be reached: retry after \`Retry-After\`); each operation says what its \
other statuses mean.

**Conventions.** Every answer carries \`X-Request-Id\` (yours, when you send a plain token of at most 64 characters; \
else a generated one); answers to requests with an \`Authorization\` header, and every error, carry \
\`Cache-Control: no-store\`. Lists are paged by cursor: pass an answer's \`nextCursor\` as \`cursor\`. Times are \
ISO 8601 strings in UTC (\`2026-11-24T09:30:08.000Z\`).`

/** The repository declares no open licence: its package is private. */
const LICENSE = { name: "Proprietary", identifier: "LicenseRef-Proprietary" }

/** The contract: imported by the server and by the typed client, never by an implementation detail. */
export class Api extends HttpApi.make("payroll")
  .add(HealthApi)
  .add(AuthApi)
  .add(OrgsApi)
  .add(MembersApi)
  .add(ApiKeysApi)
  .add(ContractorsApi)
  .add(TransfersApi)
  .add(TokenCallsApi)
  .add(BatchesApi)
  .add(SealedReceiptsApi)
  .add(BatchRunsApi)
  .add(ContractorPortalApi)
  .add(FundingApi)
  .add(WithdrawalsApi)
  .add(AuditorApi)
  .add(ArchiveApi)
  .add(WebhooksApi)
  .add(AuditApi)
  .add(ExportsApi)
  .add(CrsApi)
  .add(StellarRpcApi)
  .add(EscrowApi)
  // Answers any operation can give, whoever makes them: Node's HTTP parser (400, 408, 431), the body checks before
  // the router (400, 408, 413, 415), the database going away (503) and an unexpected failure (500).
  .addError(InvalidRequest)
  .addError(RequestTimeout)
  .addError(HeadersTooLarge)
  .addError(PayloadTooLarge)
  .addError(UnsupportedMediaType)
  .addError(ServiceUnavailable)
  .addError(InternalError)
  // A reused Idempotency-Key; declared here so that the typed client decodes it, documented only where it applies.
  .addError(IdempotencyKeyReused)
  .annotate(OpenApi.Title, "Confidential Contractor Payroll Service")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(OpenApi.Summary, "Pay contractors in USDC on Stellar without anyone, this service included, seeing the amounts")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(OpenApi.Transform, (spec) => documentIdempotencyKey({ ...spec, info: { ...spec.info, license: LICENSE } }))
{}
