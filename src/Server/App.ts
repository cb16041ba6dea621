import { FetchHttpClient, HttpApi, HttpApiBuilder } from "@effect/platform"
import { type ConfigError, Effect, Layer, Option } from "effect"
import { Api } from "../Api.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { OperationalKeys } from "../Auth/Keys.ts"
import { OrgRepo } from "../Orgs/OrgRepo.ts"
import { MembersHttpLive, OrgsHttpLive } from "../Orgs/Http.ts"
import { orgPolicy } from "../Orgs/Policy.ts"
import { Forbidden } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { BatchControls } from "../Batches/BatchControls.ts"
import { SealedAmountsRepo } from "../Batches/SealedAmountsRepo.ts"
import { Sealing } from "../Batches/Sealing.ts"
import { SealedReceipts } from "../Batches/SealedReceipts.ts"
import { SealedReceiptsRepo } from "../Batches/SealedReceiptsRepo.ts"
import { ControlRepo } from "../Batches/ControlRepo.ts"
import { AuditHttpLive, ExportsHttpLive } from "../Audit/Http.ts"
import { Exports } from "../Audit/Exports.ts"
import { ExportsRepo } from "../Audit/ExportsRepo.ts"
import { AuditLog } from "../Audit/AuditLog.ts"
import { AuditRepo } from "../Audit/AuditRepo.ts"
import { AuditSealerLive } from "../Audit/Sealer.ts"
import { AuditCheckpointsLive } from "../Audit/CheckpointSender.ts"
import { CheckpointSignerLive } from "../Audit/Checkpoint.ts"
import { ApiKeysHttpLive, AuthHttpLive } from "../Auth/Http.ts"
import { ApiKeyRepo } from "../Auth/ApiKeyRepo.ts"
import { ApiKeys, isApiKey } from "../Auth/ApiKeys.ts"
import { KeyOwners } from "../Auth/KeyOwners.ts"
import { Privy } from "../Auth/Privy.ts"
import { AuthenticationLive } from "../Auth/SecurityLive.ts"
import { ChallengeRateLimitLive, SignInRateLimitLive } from "../RateLimit/Live.ts"
import { ChallengeLimiter } from "../RateLimit/ChallengeLimiter.ts"
import { ChallengeRepo } from "../Auth/ChallengeRepo.ts"
import { SignInLimiter } from "../RateLimit/SignInLimiter.ts"
import { Sep10 } from "../Auth/Sep10.ts"
import { SessionVerifier } from "../Auth/SessionVerifier.ts"
import { BatchRuns } from "../BatchRuns/BatchRuns.ts"
import { BatchWorkerLive } from "../BatchRuns/BatchWorker.ts"
import { Batches } from "../Batches/Batches.ts"
import { JobRepo } from "../BatchRuns/JobRepo.ts"
import { ContractorPayouts } from "../ContractorPortal/ContractorPayouts.ts"
import { BatchesHttpLive, SealedReceiptsHttpLive } from "../Batches/Http.ts"
import { BatchRunsHttpLive } from "../BatchRuns/Http.ts"
import { ContractorPortalHttpLive } from "../ContractorPortal/Http.ts"
import { BatchRepo } from "../Batches/BatchRepo.ts"
import { PayoutLink } from "../Batches/PayoutLink.ts"
import { ContractorInvites } from "../Contractors/ContractorInvites.ts"
import { ContractorRolesLive } from "../Contractors/Roles.ts"
import { ContractorRepo } from "../Contractors/ContractorRepo.ts"
import { Contractors } from "../Contractors/Contractors.ts"
import { Registrations } from "../Contractors/Directory.ts"
import { InviteRepo } from "../Contractors/InviteRepo.ts"
import { ContractorsHttpLive } from "../Contractors/Http.ts"
import { CrsHttpLive } from "../Crs/Http.ts"
import { ServedCrs } from "../Crs/ServedCrs.ts"
import { FriendbotBootstrapLive } from "../Funding/Bootstrap.ts"
import { Funding } from "../Funding/Funding.ts"
import { FaucetRepo } from "../Funding/FaucetRepo.ts"
import { FundingHttpLive } from "../Funding/Http.ts"
import { Drain, DrainAnswersLive, trackRequests } from "../Http/Drain.ts"
import { HealthHttpLive } from "../Health/Http.ts"
import { DocsRoute, OpenApiRoute } from "../Http/OpenApiDocument.ts"
import { ConsoleRoute } from "../Console/ConsoleRoute.ts"
import { routeTable } from "../Http/RequestTarget.ts"
import { serveApi } from "../Http/ServeApi.ts"
import { serverMiddleware } from "../Http/ServerMiddleware.ts"
import { idempotencyKeys } from "../Http/Idempotency/Idempotency.ts"
import { IdempotencyRepo } from "../Http/Idempotency/IdempotencyRepo.ts"
import { HousekeepingLive } from "./Housekeeping.ts"
import { DatabaseLive } from "../Sql/Migrations.ts"
import { DefectsLive } from "../Http/Defects.ts"
import { CorsLive } from "../Http/Cors.ts"
import { IdleMemoryLive } from "../Observability/IdleMemory.ts"
import { LoggingLive } from "../Observability/Logging.ts"
import { MetricsRouteLive } from "../Observability/MetricsRoute.ts"
import { TracingLive } from "../Observability/Tracing.ts"
import { TokenCallsHttpLive, TransfersHttpLive } from "../Transfers/Http.ts"
import { TokenCalls } from "../Transfers/TokenCalls.ts"
import { ReconcilerLive } from "../Transfers/Reconciler.ts"
import { Transfers } from "../Transfers/Transfers.ts"
import { TransferPreparer } from "../Transfers/Prepare.ts"
import { Network } from "../Transfers/Network.ts"
import { SettlementHooks } from "../Transfers/SettlementHooks.ts"
import { Settle } from "../Transfers/Settle.ts"
import { SubmissionRepo } from "../Transfers/SubmissionRepo.ts"
import { ConfidentialToken } from "../Stellar/ConfidentialToken.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { Sponsor } from "../Transfers/Sponsor.ts"
import { AuditorHttpLive, WithdrawalsHttpLive } from "../OnDevice/Http.ts"
import { ArchiveHttpLive } from "../Archive/Http.ts"
import { ArchiveLive } from "../Archive/Live.ts"
import { WebhooksHttpLive } from "../Webhooks/Http.ts"
import { WebhooksLive } from "../Webhooks/Live.ts"
import { Outbox } from "../Sql/Outbox.ts"
import { StellarRpcHttpLive } from "../StellarRpc/Http.ts"
import { StellarRpcLive } from "../StellarRpc/Live.ts"
import { EscrowHttpLive } from "../Escrow/Http.ts"
import { EscrowKeys } from "../Escrow/EscrowKeys.ts"
import { EscrowRepo } from "../Escrow/EscrowRepo.ts"

const HandlersLive = Layer.mergeAll(
  HealthHttpLive,
  AuthHttpLive,
  OrgsHttpLive,
  MembersHttpLive,
  ApiKeysHttpLive,
  ContractorsHttpLive,
  TransfersHttpLive,
  TokenCallsHttpLive,
  BatchesHttpLive,
  SealedReceiptsHttpLive,
  BatchRunsHttpLive,
  ContractorPortalHttpLive,
  FundingHttpLive,
  WithdrawalsHttpLive,
  AuditorHttpLive,
  ArchiveHttpLive,
  WebhooksHttpLive,
  AuditHttpLive,
  ExportsHttpLive,
  CrsHttpLive,
  StellarRpcHttpLive,
  EscrowHttpLive
)

/** What reaches outside the process: the operational keys and Stellar (RPC and friendbot). */
export const ExternalLive = Layer.mergeAll(
  OperationalKeys.Default,
  RpcClient.DefaultWithoutDependencies.pipe(Layer.provide(FetchHttpClient.layer))
)

/** The keys and the Stellar client the services run on: a test may put its own in. */
export type External = Layer.Layer<OperationalKeys | RpcClient, ConfigError.ConfigError>

/**
 * What follows from a transfer's life in other features, wired here so that Transfers imports neither: its payout
 * (Batches: the payout, its batch's counters, the contractor's lastPaidAt) and its faucet grant (Funding).
 */
export const SettlementHooksLive = Layer.effect(
  SettlementHooks,
  Effect.gen(function*() {
    const payouts = yield* PayoutLink
    const faucet = yield* FaucetRepo
    return {
      checkPayout: payouts.check,
      submitted: payouts.markSubmitted,
      settled: payouts.markFinal,
      released: faucet.release
    }
  })
)

/** API keys belong to the employer's organization and are managed with `org:manage`, as Orgs decides it. */
const KeyOwnersLive = Layer.effect(
  KeyOwners,
  Effect.map(Organizations, (orgs) => ({
    managerOf: (session: Session) =>
      orgs.actorOf(session).pipe(
        Effect.filterOrFail(
          (actor) => actor.permissions.includes(orgPolicy.manage),
          (actor) => new Forbidden({ error: `this needs the permission ${orgPolicy.manage}, which the role ${actor.role} does not grant` })
        ),
        Effect.map((actor) => ({ orgId: actor.orgId, role: actor.role }))
      )
  }))
)

/**
 * Every service, each built once from its `DefaultWithoutDependencies` and given what it needs here, in layers from
 * the repositories up to the background workers; `external` supplies the keys and the Stellar RPC client.
 */
export const servicesOn = (external: External) => {
  const Tables = Layer.mergeAll(
    ChallengeRepo.Default,
    ApiKeyRepo.Default,
    OrgRepo.Default,
    ContractorRepo.Default,
    InviteRepo.Default,
    JobRepo.Default,
    BatchRepo.Default,
    FaucetRepo.Default,
    SignInLimiter.Default,
    ChallengeLimiter.Default,
    IdempotencyRepo.Default,
    Outbox.Default,
    AuditTrail.Default,
    AuditRepo.Default,
    CheckpointSignerLive,
    ExportsRepo.Default,
    ControlRepo.Default,
    SealedAmountsRepo.Default,
    SealedReceiptsRepo.Default,
    Drain.Default,
    ServedCrs.Default,
    EscrowRepo.Default
  )
  const Records = Layer.mergeAll(
    SubmissionRepo.Default,
    PayoutLink.DefaultWithoutDependencies,
    ContractorPayouts.DefaultWithoutDependencies,
    Batches.DefaultWithoutDependencies,
    BatchControls.DefaultWithoutDependencies,
    Sealing.DefaultWithoutDependencies,
    SealedReceipts.DefaultWithoutDependencies,
    AuditLog.DefaultWithoutDependencies,
    Exports.DefaultWithoutDependencies,
    ContractorInvites.DefaultWithoutDependencies,
    SessionVerifier.DefaultWithoutDependencies,
    Sponsor.DefaultWithoutDependencies,
    Network.DefaultWithoutDependencies,
    ConfidentialToken.DefaultWithoutDependencies,
    EscrowKeys.DefaultWithoutDependencies
  )
  const Hooks = SettlementHooksLive
  const Rules = Layer.mergeAll(
    Settle.DefaultWithoutDependencies,
    Sep10.DefaultWithoutDependencies,
    Privy.DefaultWithoutDependencies,
    Registrations.DefaultWithoutDependencies
  )
  const Roles = ContractorRolesLive
  const Accounts = Layer.mergeAll(Organizations.DefaultWithoutDependencies, Contractors.DefaultWithoutDependencies)
  const Submissions = Layer.mergeAll(
    Transfers.DefaultWithoutDependencies,
    TransferPreparer.DefaultWithoutDependencies,
    BatchRuns.DefaultWithoutDependencies
  )
  const Calls = TokenCalls.DefaultWithoutDependencies
  const Keys = ApiKeys.DefaultWithoutDependencies.pipe(Layer.provideMerge(KeyOwnersLive))
  const Edge = Layer.mergeAll(
    Funding.DefaultWithoutDependencies,
    FriendbotBootstrapLive,
    BatchWorkerLive,
    ReconcilerLive,
    AuthenticationLive,
    SignInRateLimitLive,
    ChallengeRateLimitLive,
    HousekeepingLive,
    IdleMemoryLive,
    ArchiveLive,
    WebhooksLive,
    AuditSealerLive,
    AuditCheckpointsLive,
    StellarRpcLive
  )
  return Edge.pipe(
    Layer.provideMerge(Calls),
    Layer.provideMerge(Submissions),
    Layer.provideMerge(Keys),
    Layer.provideMerge(Accounts),
    Layer.provideMerge(Roles),
    Layer.provideMerge(Rules),
    Layer.provideMerge(Hooks),
    Layer.provideMerge(Records),
    Layer.provideMerge(Tables),
    Layer.provideMerge(external)
  )
}

/** The JSON-RPC gateway answers a body that is not JSON in JSON-RPC (-32700), as Stellar RPC does. */
const STELLAR_RPC_ROUTES = new Set(["/stellar-rpc", "/stellar-rpc/public"])

export const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(HandlersLive))

/** Every route the process serves: the Api's endpoints and, beside them, the OpenAPI document, the docs, metrics and the console. */
export const routes = routeTable((() => {
  const paths = ["/openapi.json", "/docs", "/metrics", "/app", "/app/assets/:asset"]
  HttpApi.reflect(Api, { onGroup: () => undefined, onEndpoint: ({ endpoint }) => void paths.push(endpoint.path) })
  return paths
})())

/**
 * Idempotency keys belong to the signed-in user (sign-in method and subject), whichever of their tokens comes: an
 * API key acts as the user who created it.
 */
const IdempotencyKeysLive = idempotencyKeys((request) => {
  const token = /^bearer\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")?.[1]
  return token === undefined ? Effect.succeedNone : Effect.zip(SessionVerifier, ApiKeys).pipe(
    Effect.flatMap(([sessions, keys]) => isApiKey(token) ? Effect.map(keys.verify(token), (k) => k.session) : sessions.verify(token)),
    Effect.map((session) => Option.some(`${session.method}:${session.sub}`)),
    Effect.orElseSucceed(() => Option.none())
  )
})

/**
 * One service instance on `server` and whatever database is provided. The server layer is built last, after every
 * service and route: its socket opens only once the app can answer, so no early request waits unanswered.
 */
export const instanceOn = <ROut, E, RIn>(server: Layer.Layer<ROut, E, RIn>, external: External = ExternalLive) =>
  serveApi(
    (app) => trackRequests(serverMiddleware(routes, { idempotency: IdempotencyKeysLive, ownJsonErrors: STELLAR_RPC_ROUTES })(app)),
    Drain,
    SessionVerifier,
    ApiKeys,
    IdempotencyRepo
  ).pipe(
    Layer.provideMerge(server),
    Layer.provide(DocsRoute("/docs")),
    Layer.provide(ConsoleRoute()),
    Layer.provide(OpenApiRoute("/openapi.json")),
    Layer.provide(MetricsRouteLive),
    Layer.provide(CorsLive),
    Layer.provide(DrainAnswersLive),
    Layer.provide(DefectsLive),
    Layer.provide(ApiLive),
    Layer.provide(servicesOn(external)),
    Layer.provide(Layer.merge(LoggingLive, TracingLive))
  )

/**
 * The whole service on `server`: routes, OpenAPI at /openapi.json, docs at /docs, every service, and the migrated
 * database underneath (built first).
 */
export const appOn = <ROut, E, RIn>(server: Layer.Layer<ROut, E, RIn>, external: External = ExternalLive) =>
  instanceOn(server, external).pipe(Layer.provide(DatabaseLive), Layer.provide(LoggingLive))
