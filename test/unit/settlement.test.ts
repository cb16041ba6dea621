import type { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Account, Keypair, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk"
import { Duration, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { OrgId, PayoutId } from "../../src/Domain/Ids.ts"
import type { SubmissionState } from "../../src/Domain/Transfer.ts"
import { unavailableOrDie } from "../../src/Sql/Errors.ts"
import { Network, PollOutcome, SendOutcome } from "../../src/Transfers/Network.ts"
import { SettlementHooks } from "../../src/Transfers/SettlementHooks.ts"
import { answerFor, Settle } from "../../src/Transfers/Settle.ts"
import { Sponsor } from "../../src/Transfers/Sponsor.ts"
import { type Submission, SubmissionRepo } from "../../src/Transfers/SubmissionRepo.ts"
import { rpcClientOn, StubLedger } from "../support/RpcClientTest.ts"

const ledger = new StubLedger()
const wallet = Keypair.random()
const sponsor = Sponsor.layerTest(
  { allowedContracts: new Set(), maxInnerFee: 10_000, quota: 1, quotaWindow: Duration.hours(1) },
  Keypair.random(),
  Networks.TESTNET
)

/** A distinct fee-bumped transaction each call (sequence numbers differ). */
let sequence = 1n
const feeBumped = Effect.map(Sponsor, (s) => {
  const inner = new TransactionBuilder(new Account(wallet.publicKey(), String(sequence++)), { fee: "100", networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.bumpSequence({ bumpTo: "5" })).setTimeout(60).build()
  inner.sign(wallet)
  const tx = s.feeBump(inner)
  return { tx, hash: Buffer.from(tx.hash()).toString("hex") }
})

/** Sends and polls run on the TestClock: the fiber is driven by moving the clock past every backoff. */
const onClock = <A, E, R>(effect: Effect.Effect<A, E, R>, by: Duration.DurationInput = "5 minutes") =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    yield* Effect.yieldNow()
    yield* TestClock.adjust(by)
    return yield* Fiber.join(fiber)
  })

/** The TestClock is shared by the suite's tests: deadlines are set from its current time. */
const soon = (ms = 120_000) => Effect.map(TestClock.currentTimeMillis, (now) => new Date(now + ms))

describe("Network", () => {
  it.layer(Layer.mergeAll(Network.DefaultWithoutDependencies.pipe(Layer.provide(rpcClientOn(ledger))), sponsor))("outcomes", (it) => {
    it.effect("PENDING and DUPLICATE are accepted", () =>
      Effect.gen(function*() {
        const network = yield* Network
        ledger.scriptSend("PENDING", "DUPLICATE")
        expect(yield* network.send((yield* feeBumped).tx, yield* soon())).toEqual(SendOutcome.Accepted({}))
        expect(yield* network.send((yield* feeBumped).tx, yield* soon())).toEqual(SendOutcome.Accepted({}))
      }))

    it.effect("ERROR on a first send is a rejection with the decoded result code", () =>
      Effect.gen(function*() {
        const network = yield* Network
        ledger.scriptSend({ error: "txBadSeq" })
        expect(yield* network.send((yield* feeBumped).tx, yield* soon())).toEqual(SendOutcome.Rejected({ code: "txBadSeq" }))
      }))

    it.effect("ERROR after a transport failure is ambiguous: followed like an accepted transaction", () =>
      Effect.gen(function*() {
        const network = yield* Network
        ledger.scriptSend("transport", { error: "txBadSeq" })
        expect(yield* onClock(network.send((yield* feeBumped).tx, yield* soon()))).toEqual(SendOutcome.Accepted({ unconfirmed: "txBadSeq" }))
      }))

    it.effect("ERROR on a resend is ambiguous too", () =>
      Effect.gen(function*() {
        const network = yield* Network
        ledger.scriptSend({ error: "txInsufficientFee" })
        expect(yield* network.send((yield* feeBumped).tx, yield* soon(), { resend: true })).toEqual(
          SendOutcome.Accepted({ unconfirmed: "txInsufficientFee" })
        )
      }))

    it.effect("TRY_AGAIN_LATER is resent until accepted, or is Busy at the deadline", () =>
      Effect.gen(function*() {
        const network = yield* Network
        ledger.scriptSend("TRY_AGAIN_LATER", "TRY_AGAIN_LATER", "PENDING")
        expect(yield* onClock(network.send((yield* feeBumped).tx, yield* soon()))).toEqual(SendOutcome.Accepted({}))
        ledger.scriptSend(...Array.from({ length: 1_000 }, () => "TRY_AGAIN_LATER" as const))
        const busy = yield* onClock(network.send((yield* feeBumped).tx, yield* soon(5_000)))
        expect(busy).toEqual(SendOutcome.Busy())
        ledger.clearScript()
      }))

    it.effect("transport failures past the brief retry are Unreachable", () =>
      Effect.gen(function*() {
        const network = yield* Network
        ledger.scriptSend("transport", "transport", "transport", "transport")
        const outcome = yield* onClock(network.send((yield* feeBumped).tx, yield* soon()))
        expect(outcome._tag).toBe("Unreachable")
      }))

    it.effect("SUCCESS lands, FAILED fails with its code", () =>
      Effect.gen(function*() {
        const network = yield* Network
        const landed = yield* feeBumped
        const failed = yield* feeBumped
        ledger.land(landed.hash, 1_001)
        ledger.fail(failed.hash, 1_002)
        expect(yield* network.check(landed.hash, 100)).toEqual(PollOutcome.Landed({ ledger: 1_001 }))
        expect(yield* network.check(failed.hash, 100)).toEqual(PollOutcome.Failed({ code: "txFailed", ledger: 1_002 }))
      }))

    it.effect("NOT_FOUND is Gone only once the node's own latest ledger closed after maxTime (ledger time)", () =>
      Effect.gen(function*() {
        const network = yield* Network
        const { hash } = yield* feeBumped
        ledger.latestLedgerCloseTime = 500
        expect(yield* network.check(hash, 500)).toEqual(PollOutcome.NotYet())
        expect(yield* network.check(hash, 600)).toEqual(PollOutcome.NotYet())
        ledger.latestLedgerCloseTime = 501
        expect(yield* network.check(hash, 500)).toEqual(PollOutcome.Gone({ latestLedgerCloseTime: 501 }))
        ledger.latestLedgerCloseTime = 0
      }))

    it.effect("poll follows NOT_FOUND and RPC hiccups until the transaction lands", () =>
      Effect.gen(function*() {
        const network = yield* Network
        const { hash } = yield* feeBumped
        ledger.getFailures = 2
        const fiber = yield* Effect.fork(network.poll(hash, yield* soon(), 10_000))
        yield* TestClock.adjust("3 seconds")
        ledger.land(hash, 1_010)
        yield* TestClock.adjust("3 seconds")
        expect(yield* Fiber.join(fiber)).toEqual(PollOutcome.Landed({ ledger: 1_010 }))
        expect(ledger.getFailures).toBe(0)
        expect(yield* onClock(network.poll((yield* feeBumped).hash, yield* soon(2_000), 10_000)))
          .toEqual(PollOutcome.NotYet())
      }))
  })
})

const P1 = PayoutId.make("7b0c4a43-3c5e-4c5a-9c56-1f0f6f1f7d10")

/** What Settle wrote: state moves, quota given back, payout moves. */
const writes: Array<string> = []
let concurrentWriter = false

/** A method Settle never calls: a defect if it does. */
const unused = (method: string) => () => Effect.dieMessage(`Settle called SubmissionRepo.${method}`)

const SubmissionRepoTest = Layer.succeed(
  SubmissionRepo,
  SubmissionRepo.make({
    transition: (innerHash: string, from: ReadonlyArray<SubmissionState>, to: SubmissionState) =>
      Effect.sync(() => {
        if (concurrentWriter) return false
        writes.push(`${innerHash}: ${from.join("|")} -> ${to}`)
        return true
      }),
    releaseQuota: (innerHash: string) => Effect.sync(() => void writes.push(`${innerHash}: quota released`)),
    atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) => {
      const inTransaction: Effect.Effect<A, E | SqlError, R> = effect
      return Effect.catchTag(inTransaction, "SqlError", unavailableOrDie)
    },
    create: unused("create"),
    find: unused("find"),
    findMany: unused("findMany"),
    earlierInFlight: unused("earlierInFlight"),
    lease: unused("lease"),
    release: unused("release"),
    retryLater: unused("retryLater"),
    claimStale: unused("claimStale"),
    pruneQuota: unused("pruneQuota"),
    pruneFinal: unused("pruneFinal")
  })
)

/** The other features' side of settlement (payouts, faucet grants), as Settle sees it. */
const HooksTest = Layer.succeed(SettlementHooks, {
  checkPayout: () => Effect.void,
  submitted: () => Effect.void,
  settled: (payoutId, outcome) =>
    Effect.sync(() => void writes.push(`payout ${payoutId}: ${outcome.settled ? "settled" : `failed (${outcome.error})`}`)),
  released: () => Effect.void
})

const row = (overrides: Partial<Submission> = {}): Submission => ({
  innerHash: "inner",
  outerHash: "outer",
  envelope: "",
  source: wallet.publicKey(),
  sessionSub: wallet.publicKey(),
  orgId: OrgId.make("0b6f3c1e-2a4d-4e8f-9b1c-5d7e9f0a1b2c"),
  payoutId: null,
  state: "submitted",
  resultCode: null,
  ledger: null,
  maxTime: new Date(60_000),
  leaseUntil: new Date(0),
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...overrides
})

const settled = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    writes.length = 0
    yield* effect
    return [...writes]
  })

describe("Settle", () => {
  it.layer(Settle.DefaultWithoutDependencies.pipe(Layer.provide([SubmissionRepoTest, HooksTest])))("decisions", (it) => {
    it.effect("Landed settles the submission and its payout", () =>
      Effect.gen(function*() {
        const settle = yield* Settle
        expect(yield* settled(settle.afterPoll(row({ payoutId: P1 }), PollOutcome.Landed({ ledger: 7 })))).toEqual([
          "inner: pending|submitted -> success",
          `payout ${P1}: settled`
        ])
      }))

    it.effect("Failed fails the payout with the result code; the quota stays spent", () =>
      Effect.gen(function*() {
        const settle = yield* Settle
        expect(yield* settled(settle.afterPoll(row({ payoutId: P1 }), PollOutcome.Failed({ code: "txFailed", ledger: 7 })))).toEqual([
          "inner: pending|submitted -> failed",
          `payout ${P1}: failed (txFailed)`
        ])
      }))

    it.effect("Gone (the ledger closed past maxTime) expires it: quota back, payout failed txTooLate", () =>
      Effect.gen(function*() {
        const settle = yield* Settle
        expect(yield* settled(settle.afterPoll(row({ payoutId: P1 }), PollOutcome.Gone({ latestLedgerCloseTime: 61 })))).toEqual([
          "inner: pending|submitted -> expired",
          "inner: quota released",
          `payout ${P1}: failed (txTooLate)`
        ])
      }))

    it.effect("NotYet changes nothing: no local-clock expiry", () =>
      Effect.gen(function*() {
        const settle = yield* Settle
        yield* TestClock.adjust("1 day")
        expect(yield* settled(settle.afterPoll(row({ payoutId: P1 }), PollOutcome.NotYet()))).toEqual([])
      }))

    it.effect("a send rejected gives the quota back; accepted moves pending to submitted; busy or unreachable waits", () =>
      Effect.gen(function*() {
        const settle = yield* Settle
        expect(yield* settled(settle.afterSend(row({ state: "pending" }), SendOutcome.Rejected({ code: "txBadSeq" })))).toEqual([
          "inner: pending|submitted -> rejected",
          "inner: quota released"
        ])
        expect(yield* settled(settle.afterSend(row({ state: "pending" }), SendOutcome.Accepted({})))).toEqual([
          "inner: pending -> submitted"
        ])
        expect(yield* settled(settle.afterSend(row(), SendOutcome.Busy()))).toEqual([])
        expect(yield* settled(settle.afterSend(row(), SendOutcome.Unreachable({ message: "down" })))).toEqual([])
      }))

    it.effect("another writer got there first: no follow-up writes", () =>
      Effect.gen(function*() {
        const settle = yield* Settle
        concurrentWriter = true
        const done = yield* settled(settle.afterPoll(row({ payoutId: P1 }), PollOutcome.Gone({ latestLedgerCloseTime: 61 })))
        concurrentWriter = false
        expect(done).toEqual([])
      }))

    it.effect("the answer for each state", () =>
      Effect.gen(function*() {
        const answer = (state: SubmissionState, resultCode: string | null = null) =>
          Effect.exit<unknown, { readonly _tag: string }, never>(answerFor(row({ state, resultCode })))
        expect(yield* answer("success")).toEqual(Exit.succeed(expect.objectContaining({ hash: "outer", status: "SUCCESS" })))
        const tagOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
          Exit.match(exit, { onSuccess: () => "success", onFailure: (c) => c._tag === "Fail" ? c.error._tag : "defect" })
        expect(tagOf(yield* answer("failed", "txFailed"))).toBe("TransferRejected")
        expect(tagOf(yield* answer("rejected", "txBadSeq"))).toBe("TransferRejected")
        expect(tagOf(yield* answer("expired"))).toBe("TransferTimeout")
        expect(tagOf(yield* answer("pending"))).toBe("TransferTimeout")
        expect(tagOf(yield* answer("submitted"))).toBe("TransferTimeout")
      }))
  })
})
