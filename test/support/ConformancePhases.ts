import { Cause, Context, Effect, Exit, Layer } from "effect"
import { signIn } from "./Client.ts"
import type { ConformanceDocument, Operation } from "./ConformanceDocument.ts"
import { type ConformanceFixtures, conformanceFixtures } from "./ConformanceFixtures.ts"
import type { ConformanceRecorder, Phase } from "./ConformanceRecorder.ts"
import { refusedRequests, validRequests, type ValidRequest } from "./ConformanceRequests.ts"
import { invalidProbes, type OtherSessions, type Probe, toRaw } from "./ConformanceVariants.ts"
import type { PrivateCluster } from "./PrivateCluster.ts"
import { privyConfig } from "./Privy.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./TestApp.ts"

/** A TestAppLive started in the current scope. */
export const started = <E>(live: Layer.Layer<TestApp, E>) =>
  Layer.build(live).pipe(Effect.map((context) => Context.get(context, TestApp)), Effect.orDie)

const probe = (operation: Operation, request: ValidRequest, kind: string, expect: ReadonlyArray<number> = [request.expect]): Probe => ({
  kind,
  request: toRaw(operation, request),
  expect
})

/** Runs a set-up step; a missing recipe or a failed set-up becomes a finding (and nothing to send) instead of a stop. */
const prepared = <A>(log: ConformanceRecorder, operation: Operation, kind: string, recipe: (() => Effect.Effect<A>) | undefined) =>
  recipe === undefined
    ? Effect.sync(() => void log.setUpFailed(operation.key, kind, "no valid request is known: add one to test/support/ConformanceRequests.ts"))
    : Effect.map(Effect.exit(recipe()), (exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      log.setUpFailed(operation.key, kind, `set-up failed: ${Cause.pretty(exit.cause).split("\n")[0]}`)
      return undefined
    })

/** What every phase works with: the service on its own cluster, the document, the findings so far. */
export interface Run {
  readonly app: TestAppShape
  readonly cluster: PrivateCluster
  readonly document: ConformanceDocument
  readonly log: ConformanceRecorder
  readonly employer: { readonly token: string }
  readonly fx: ConformanceFixtures
}

/** The valid request of an operation, prepared (through `fx`'s service) but not sent. */
const validOf = (run: Run, operation: Operation, kind: string, fx: ConformanceFixtures = run.fx) => {
  const recipe = validRequests[operation.key]
  return prepared(run.log, operation, kind, recipe && (() => recipe(fx, run.employer)))
}

/** Every operation's valid request, prepared while everything is up, to be sent once something is not. */
const validOfAll = (run: Run, kind: string) =>
  Effect.map(
    Effect.forEach(run.document.operations, (o) => Effect.map(validOf(run, o, kind), (v) => (v === undefined ? [] : [[o, v] as const]))),
    (all) => all.flat()
  )

const sendAll = (run: Run, phase: Phase, kind: string, requests: ReadonlyArray<readonly [Operation, ValidRequest]>) =>
  Effect.forEach(requests, ([o, v]) => run.log.send(run.app, o, phase, probe(o, v, kind, [])), { concurrency: 4, discard: true })

/** Each operation's valid request, then its invalid variants and the requests its rules refuse. */
export const validAndInvalid = (run: Run, sessions: Omit<OtherSessions, "stranger">) =>
  Effect.forEach(run.document.operations, (operation) =>
    Effect.gen(function*() {
      const valid = yield* validOf(run, operation, "valid request")
      if (valid === undefined) return
      const bodyProblems = valid.json === undefined ? [] : run.document.requestProblems(operation, valid.json)
      if (bodyProblems.length > 0) run.log.setUpFailed(operation.key, "valid request", `body breaks the declared request schema: ${bodyProblems.join("; ")}`)
      const refusal = refusedRequests[operation.key]
      const refusals = refusal === undefined ? [] : (yield* prepared(run.log, operation, "refused request", () => refusal(run.fx, run.employer))) ?? []
      // The valid request goes first: a variant that reached a handler (a stranger's session) could use up its invite.
      yield* run.log.send(run.app, operation, "valid", probe(operation, valid, "valid request"))
      const probes = [
        ...invalidProbes(run.document, operation, valid, { ...sessions, stranger: yield* signIn(run.app) }),
        ...refusals.map(([kind, request]) => probe(operation, request, kind))
      ]
      yield* Effect.forEach(probes, (p) => run.log.send(run.app, operation, "invalid", p), { concurrency: 4, discard: true })
    }), { discard: true })

export const withRpcDown = (run: Run) =>
  Effect.gen(function*() {
    const requests = yield* validOfAll(run, "valid request, Stellar RPC answering 500")
    run.app.rpc.setFault({ kind: "http500" })
    yield* sendAll(run, "rpc down", "valid request, Stellar RPC answering 500", requests).pipe(
      Effect.ensuring(Effect.sync(() => run.app.rpc.setFault(null)))
    )
  })

export const withDatabaseDown = (run: Run) =>
  Effect.gen(function*() {
    const requests = yield* validOfAll(run, "valid request, database stopped")
    yield* run.cluster.stop
    yield* sendAll(run, "database down", "valid request, database stopped", requests).pipe(Effect.ensuring(run.cluster.start))
  })

/**
 * The sign-in limit, on an instance of its own with AUTH_RATE_LIMIT=5: the public operations' requests prepared,
 * the window used up through POST /auth/privy (a token step: stellar.toml and the challenges do not count), the
 * challenges' own limit (CHALLENGE_RATE_LIMIT=5), the archive's and the public Stellar RPC reads' used up likewise, then every public operation (429
 * where it declares it).
 */
export const pastTheRateLimit = (run: Run) =>
  Effect.gen(function*() {
    const limitedApp = yield* started(TestAppLive({ AUTH_RATE_LIMIT: "5", ARCHIVE_RATE_LIMIT: "5", CHALLENGE_RATE_LIMIT: "5", STELLAR_RPC_RATE_LIMIT: "5", ...privyConfig }))
    const fx = conformanceFixtures(limitedApp)
    const publicOperations = run.document.operations.filter((o) => o.security.length === 0)
    const requests = yield* Effect.forEach(publicOperations, (o) => Effect.map(validOf(run, o, "valid request past the limit", fx), (v) => [o, v] as const))
    const tokenStep = run.document.operations.find((o) => o.key === "POST /auth/privy")
    let limited = false
    for (let i = 0; i < 10 && tokenStep !== undefined && !limited; i++) {
      const invalid = { json: { token: "not a privy token" }, expect: 401 }
      const answer = yield* run.log.send(limitedApp, tokenStep, "rate limited", probe(tokenStep, invalid, "using up the sign-in limit", [401, 429]))
      limited = answer._tag === "Answered" && answer.status === 429
    }
    if (!limited) run.log.setUpFailed("POST /auth/privy", "rate limited", "AUTH_RATE_LIMIT=5 was never reached")
    // The archive's routes have a limit of their own (ARCHIVE_RATE_LIMIT, per client address): used up the same way.
    const statusStep = run.document.operations.find((o) => o.key === "GET /archive/status")
    let archiveLimited = false
    for (let i = 0; i < 10 && statusStep !== undefined && !archiveLimited; i++) {
      const answer = yield* run.log.send(limitedApp, statusStep, "rate limited", probe(statusStep, { expect: 200 }, "using up the archive limit", [200, 429]))
      archiveLimited = answer._tag === "Answered" && answer.status === 429
    }
    if (statusStep !== undefined && !archiveLimited) run.log.setUpFailed("GET /archive/status", "rate limited", "ARCHIVE_RATE_LIMIT=5 was never reached")
    // The SEP-10 challenges too (CHALLENGE_RATE_LIMIT, per client address), after the token steps' challenges were made.
    const challengeStep = run.document.operations.find((o) => o.key === "GET /auth/sep10/challenge")
    const challengeRequest = requests.find(([o]) => o.key === "GET /auth/sep10/challenge")?.[1]
    let challengesLimited = false
    for (let i = 0; i < 10 && challengeStep !== undefined && challengeRequest !== undefined && !challengesLimited; i++) {
      const answer = yield* run.log.send(limitedApp, challengeStep, "rate limited", probe(challengeStep, challengeRequest, "using up the challenge limit", [200, 429]))
      challengesLimited = answer._tag === "Answered" && answer.status === 429
    }
    if (challengeStep !== undefined && !challengesLimited) run.log.setUpFailed("GET /auth/sep10/challenge", "rate limited", "CHALLENGE_RATE_LIMIT=5 was never reached")
    // The Stellar RPC gateway's reads without a session (STELLAR_RPC_RATE_LIMIT, per client address) likewise.
    const rpcStep = run.document.operations.find((o) => o.key === "POST /stellar-rpc/public")
    const rpcRequest = requests.find(([o]) => o.key === "POST /stellar-rpc/public")?.[1]
    let rpcLimited = false
    for (let i = 0; i < 10 && rpcStep !== undefined && rpcRequest !== undefined && !rpcLimited; i++) {
      const answer = yield* run.log.send(limitedApp, rpcStep, "rate limited", probe(rpcStep, rpcRequest, "using up the Stellar RPC limit", [200, 429]))
      rpcLimited = answer._tag === "Answered" && answer.status === 429
    }
    if (rpcStep !== undefined && !rpcLimited) run.log.setUpFailed("POST /stellar-rpc/public", "rate limited", "STELLAR_RPC_RATE_LIMIT=5 was never reached")
    for (const [operation, valid] of requests) {
      if (valid === undefined) continue
      const expected = operation.responses["429"] !== undefined ? 429 : valid.expect
      yield* run.log.send(limitedApp, operation, "rate limited", probe(operation, valid, "valid request past the limit", [expected]))
    }
  })

