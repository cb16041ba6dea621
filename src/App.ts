import { HttpApiBuilder, HttpApiSwagger } from "@effect/platform"
import { Layer } from "effect"
import { Api } from "./Api.ts"
import { Account } from "./Auth/Account.ts"
import { OperationalKeys } from "./Auth/Keys.ts"
import { OrgRepo } from "./Auth/OrgRepo.ts"
import { AccountHttpLive } from "./Auth/AccountHttp.ts"
import { AuthHttpLive } from "./Auth/Http.ts"
import { Privy } from "./Auth/Privy.ts"
import { AuthenticationLive, SignInRateLimitLive } from "./Auth/SecurityLive.ts"
import { Sep10 } from "./Auth/Sep10.ts"
import { BatchRuns, BatchWorkerLive } from "./Batches/BatchRuns.ts"
import { Batches } from "./Batches/Batches.ts"
import { JobRepo } from "./Batches/JobRepo.ts"
import { ContractorPayouts } from "./Batches/ContractorPayouts.ts"
import { BatchesHttpLive, BatchRunsHttpLive, ContractorPortalHttpLive } from "./Batches/Http.ts"
import { Contractors } from "./Contractors/Contractors.ts"
import { ContractorsHttpLive } from "./Contractors/Http.ts"
import { FriendbotBootstrapLive } from "./Funding/Bootstrap.ts"
import { Funding } from "./Funding/Funding.ts"
import { FundingHttpLive } from "./Funding/Http.ts"
import { Drain, trackRequests } from "./Health/Drain.ts"
import { HealthHttpLive } from "./Health/Http.ts"
import { serverMiddleware } from "./Http/ServerMiddleware.ts"
import { HousekeepingLive } from "./Sql/Housekeeping.ts"
import { DatabaseLive } from "./Sql/Migrations.ts"
import { DefectsLive } from "./Http/Defects.ts"
import { CorsLive } from "./Observability/Cors.ts"
import { LoggingLive } from "./Observability/Logging.ts"
import { MetricsRouteLive } from "./Observability/MetricsRoute.ts"
import { TracingLive } from "./Observability/Tracing.ts"
import { TransfersHttpLive } from "./Transfers/Http.ts"
import { ReconcilerLive } from "./Transfers/Reconciler.ts"
import { Transfers } from "./Transfers/Transfers.ts"
import { Network } from "./Transfers/Network.ts"
import { Settle } from "./Transfers/Settle.ts"
import { SubmissionRepo } from "./Transfers/SubmissionRepo.ts"
import { RpcClient } from "./Stellar/RpcClient.ts"
import { AuditorHttpLive, WithdrawalsHttpLive } from "./Withdrawals/Http.ts"

const HandlersLive = Layer.mergeAll(
  HealthHttpLive,
  AuthHttpLive,
  AccountHttpLive,
  ContractorsHttpLive,
  TransfersHttpLive,
  BatchesHttpLive,
  BatchRunsHttpLive,
  ContractorPortalHttpLive,
  FundingHttpLive,
  WithdrawalsHttpLive,
  AuditorHttpLive
)

const ServicesLive = Layer.mergeAll(
  RpcClient.Default,
  Sep10.Default,
  Privy.Default,
  Account.Default,
  Contractors.Default,
  Transfers.Default,
  Batches.Default,
  BatchRuns.Default,
  ContractorPayouts.Default,
  Funding.Default,
  FriendbotBootstrapLive.pipe(Layer.provide(OperationalKeys.Default)),
  BatchWorkerLive.pipe(Layer.provide([BatchRuns.Default, Transfers.Default, JobRepo.Default, OrgRepo.Default])),
  ReconcilerLive.pipe(Layer.provide([Network.Default, Settle.Default, SubmissionRepo.Default])),
  AuthenticationLive,
  SignInRateLimitLive,
  HousekeepingLive
).pipe(Layer.provideMerge(Drain.Default))

export const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(HandlersLive))

/**
 * One service instance on `server` and whatever database is provided. The server layer is built last, after every
 * service and route: its socket opens only once the app can answer, so no early request waits unanswered.
 */
export const instanceOn = <ROut, E, RIn>(server: Layer.Layer<ROut, E, RIn>) =>
  HttpApiBuilder.serve((app) => trackRequests(serverMiddleware(app))).pipe(
    Layer.provideMerge(server),
    Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(MetricsRouteLive),
    Layer.provide(CorsLive),
    Layer.provide(DefectsLive),
    Layer.provide(ApiLive),
    Layer.provide(ServicesLive),
    Layer.provide(Layer.merge(LoggingLive, TracingLive))
  )

/**
 * The whole service on `server`: routes, OpenAPI at /openapi.json, docs at /docs, every service, and the migrated
 * database underneath (built first).
 */
export const appOn = <ROut, E, RIn>(server: Layer.Layer<ROut, E, RIn>) =>
  instanceOn(server).pipe(Layer.provide(DatabaseLive), Layer.provide(LoggingLive))
