import { describe, expect, it } from "@effect/vitest"
import { Account, type FeeBumpTransaction, Keypair, Networks, Operation, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Clock, Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
import { initialLedgerState, intervalOf, missed, nextLook, observe } from "../../src/Stellar/LedgerState.ts"
import type { SendAnswer, TransactionAnswer } from "../../src/Stellar/RpcAnswers.ts"
import { RpcClient, RpcError } from "../../src/Stellar/RpcClient.ts"
import { Network, PollOutcome, SendOutcome } from "../../src/Transfers/Network.ts"

const FIRST = 1_000
/** The TestClock starts at 0; the simulated network's first ledger closes here (local and network clocks agree). */
const START_MS = 1_700_000_000_123

/**
 * A network on the TestClock: ledger FIRST + k closes at START_MS + k × interval and the RPC serves it `lag` ms later
 * (`interval` 0: a ledger closes the moment a transaction is accepted, the first one a minute before). A transaction accepted while ledger L is
 * served lands in L + 1, unless `stalled` (no ledger closes). Every call is counted.
 */
class SimulatedNetwork {
  readonly calls = { sendTransaction: 0, getTransaction: 0 }
  readonly landed = new Map<string, number>()
  instantLedger = FIRST
  stalledAt: number | undefined = undefined
  failures = 0

  readonly intervalMs: number
  readonly lagMs: number

  constructor(intervalMs: number, lagMs: number) {
    this.intervalMs = intervalMs
    this.lagMs = lagMs
  }

  servedAt(now: number): number {
    if (this.intervalMs === 0) return this.instantLedger
    const served = FIRST + Math.max(0, Math.floor((now - START_MS - this.lagMs) / this.intervalMs))
    return this.stalledAt === undefined ? served : Math.min(served, this.stalledAt)
  }

  /** Instant ledgers: when each closed (the first one a minute before the start). */
  readonly instantCloses = new Map<number, number>([[FIRST, START_MS - 60_000]])

  closeTime(ledger: number): number {
    if (this.intervalMs === 0) return Math.floor((this.instantCloses.get(ledger) ?? START_MS) / 1000)
    return Math.floor((START_MS + (ledger - FIRST) * this.intervalMs) / 1000)
  }

  layer() {
    const self = this
    const missing = (method: string) => Effect.fail(new RpcError({ method, message: "not simulated" }))
    return Layer.succeed(RpcClient, RpcClient.make({
      getHealth: missing("getHealth"),
      getAccountSigners: () => Effect.succeed(Option.none()),
      getSequence: () => missing("getLedgerEntries"),
      getSequenceAt: () => missing("getLedgerEntries"),
      simulateAndAssemble: () => missing("simulateTransaction"),
      simulateRead: () => missing("simulateTransaction"),
      sendTransaction: (tx) =>
        Effect.map(Clock.currentTimeMillis, (now): SendAnswer => {
          self.calls.sendTransaction += 1
          const hash = Buffer.from(tx.hash()).toString("hex")
          const latestLedger = self.servedAt(now)
          self.landed.set(hash, latestLedger + 1)
          if (self.intervalMs === 0) self.instantCloses.set(++self.instantLedger, now)
          return { status: "PENDING", hash, latestLedger, latestLedgerCloseTime: self.closeTime(latestLedger) }
        }),
      getTransaction: (hash) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          self.calls.getTransaction += 1
          if (self.failures > 0) {
            self.failures -= 1
            return Effect.fail(new RpcError({ method: "getTransaction", message: "socket hang up" }))
          }
          const latestLedger = self.servedAt(now)
          const base = { latestLedger, latestLedgerCloseTime: self.closeTime(latestLedger) }
          const ledger = self.landed.get(hash)
          if (ledger === undefined || ledger > latestLedger) {
            return Effect.succeed<TransactionAnswer>({ ...base, status: "NOT_FOUND" })
          }
          return Effect.succeed<TransactionAnswer>({
            ...base,
            status: "SUCCESS",
            ledger,
            resultXdr: new xdr.TransactionResult({ feeCharged: 0n, result: xdr.TransactionResultResult.txSuccess([]), ext: xdr.TransactionResultExt.v0() })
              .toXDR("base64")
          })
        }),
      getAccount: () => missing("getAccount"),
      prepareTransaction: () => missing("prepareTransaction"),
      friendbot: () => Effect.succeed(200)
    }))
  }
}

const wallet = Keypair.random()
const sponsor = Keypair.random()
let sequence = 1n

/** A distinct fee-bumped transaction each call. */
const feeBumped = (): FeeBumpTransaction => {
  const inner = new TransactionBuilder(new Account(wallet.publicKey(), String(sequence++)), { fee: "100", networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.bumpSequence({ bumpTo: "5" })).setTimeout(0).build()
  inner.sign(wallet)
  const outer = TransactionBuilder.buildFeeBumpTransaction(sponsor, "400", inner, Networks.TESTNET)
  outer.sign(sponsor)
  return outer
}

/** Sends a transfer and polls it to its outcome, as the transfer path does. */
const transfer = (tx: FeeBumpTransaction) =>
  Effect.gen(function*() {
    const network = yield* Network
    const deadline = new Date((yield* Clock.currentTimeMillis) + 60_000)
    expect(yield* network.send(tx, deadline)).toEqual(SendOutcome.Accepted({}))
    return yield* network.poll(Buffer.from(tx.hash()).toString("hex"), deadline, Number.MAX_SAFE_INTEGER)
  })

const networkOn = (simulated: SimulatedNetwork) => Network.DefaultWithoutDependencies.pipe(Layer.provide(simulated.layer()))

/** Runs `effect` with the TestClock at the simulated network's start, moving it `by` once everything is forked. */
const onNetwork = <A, E>(effect: Effect.Effect<A, E, Network>, simulated: SimulatedNetwork, by: Duration.DurationInput) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(START_MS)
    const fiber = yield* Effect.fork(effect)
    yield* TestClock.adjust(by)
    return yield* Fiber.join(fiber)
  }).pipe(Effect.provide(networkOn(simulated)))

describe("ledger clock: prediction", () => {
  it("learns a 5 s cadence and the RPC's lag, and looks just after the next ledger is served", () => {
    const interval = 5_000
    const lag = 180
    // Each ledger is seen once by a look 40 ms after it was served, and missed by a look 60 ms before.
    let state = initialLedgerState
    for (let k = 0; k < 6; k++) {
      const servedAt = START_MS + k * interval + lag
      const closeTime = Math.floor((START_MS + k * interval) / 1000)
      state = observe(state, FIRST + k - 1, closeTime - 5, servedAt - 60, servedAt - 58)
      state = observe(state, FIRST + k, closeTime, servedAt + 38, servedAt + 40)
    }
    expect(state.latest).toBe(FIRST + 5)
    expect(intervalOf(state)).toBe(interval)
    const next = START_MS + 6 * interval + lag
    const look = nextLook(state, FIRST + 5, START_MS + 5 * interval + 1_000)
    expect(look).toBeGreaterThanOrEqual(next - 50)
    expect(look).toBeLessThanOrEqual(next + 100)
  })

  it("looks at once when a later ledger is known, when ledgers are fast, or before any cadence is known", () => {
    expect(nextLook(initialLedgerState, 0, 5)).toBe(5)
    let fast = initialLedgerState
    for (let k = 0; k < 5; k++) fast = observe(fast, FIRST + k, 1_700_000_000, START_MS + k * 20 - 2, START_MS + k * 20)
    expect(intervalOf(fast)).toBeLessThan(250)
    expect(nextLook(fast, FIRST + 4, START_MS + 81)).toBe(START_MS + 81)
    expect(nextLook(fast, FIRST + 3, START_MS + 81)).toBe(START_MS + 81)
  })

  it("a ledger overdue is looked for again shortly, backing off to at most a second", () => {
    let state = initialLedgerState
    for (let k = 0; k < 4; k++) {
      const servedAt = START_MS + k * 5_000
      state = observe(state, FIRST + k - 1, Math.floor(servedAt / 1000) - 5, servedAt - 20, servedAt - 18)
      state = observe(state, FIRST + k, Math.floor(servedAt / 1000), servedAt + 18, servedAt + 20)
    }
    let now = nextLook(state, FIRST + 3, START_MS + 16_000)
    const steps: Array<number> = []
    for (let i = 0; i < 12; i++) {
      state = missed(observe(state, FIRST + 3, 0, now, now + 1), FIRST + 3, now + 1)
      const next = nextLook(state, FIRST + 3, now + 1)
      steps.push(next - (now + 1))
      now = next
    }
    expect(steps[0]).toBe(100)
    expect(steps.every((step, i) => i === 0 || step >= steps[i - 1]!)).toBe(true)
    expect(steps.at(-1)).toBe(1_000)
  })

  it("before the cadence is known: a first look at once, then rechecks that grow until the next ledger is due", () => {
    let state = observe(initialLedgerState, FIRST, Math.floor(START_MS / 1000), START_MS + 1_000, START_MS + 1_001)
    expect(nextLook(state, FIRST, START_MS + 1_001)).toBe(START_MS + 1_001)
    const looks: Array<number> = []
    let now = START_MS + 1_001
    for (let i = 0; i < 30 && now < START_MS + 8_000; i++) {
      state = missed(state, FIRST, now)
      now = nextLook(state, FIRST, now)
      looks.push(now)
    }
    expect(looks[0]).toBe(START_MS + 1_101)
    // One look just after Stellar's usual 5 s, whatever the rechecks' rhythm.
    expect(looks.some((at) => at > START_MS + 5_000 && at <= START_MS + 5_200)).toBe(true)
  })
})

describe("ledger clock: polls through Network", () => {
  it.effect("5 s ledgers: a hundred transfers sent across a ledger cost one getTransaction each once the cadence is known", () =>
    Effect.gen(function*() {
      const simulated = new SimulatedNetwork(5_000, 150)
      const outcomes = yield* onNetwork(
        Effect.gen(function*() {
          // Warm-up: a few transfers over three ledgers teach the clock the cadence.
          for (let i = 0; i < 3; i++) {
            yield* Effect.sleep("1700 millis")
            yield* transfer(feeBumped())
            yield* Effect.sleep("3 seconds")
          }
          const before = { ...simulated.calls }
          const txs = Array.from({ length: 100 }, feeBumped)
          const results = yield* Effect.forEach(txs, (tx, i) => Effect.delay(transfer(tx), Duration.millis(i * 47)), { concurrency: "unbounded" })
          return { results, send: simulated.calls.sendTransaction - before.sendTransaction, get: simulated.calls.getTransaction - before.getTransaction }
        }),
        simulated,
        "2 minutes"
      )
      expect(outcomes.results.every((o) => o._tag === "Landed")).toBe(true)
      expect(outcomes.send).toBe(100)
      expect(outcomes.get).toBeLessThanOrEqual(110)
    }))

  it.effect("a stalled ledger: waiters share one look at a time instead of each polling", () =>
    Effect.gen(function*() {
      const simulated = new SimulatedNetwork(5_000, 150)
      const outcome = yield* onNetwork(
        Effect.gen(function*() {
          for (let i = 0; i < 3; i++) {
            yield* Effect.sleep("1700 millis")
            yield* transfer(feeBumped())
            yield* Effect.sleep("3 seconds")
          }
          simulated.stalledAt = simulated.servedAt(yield* Clock.currentTimeMillis)
          const before = simulated.calls.getTransaction
          const fibers = yield* Effect.forEach(Array.from({ length: 30 }, feeBumped), (tx) => Effect.fork(transfer(tx)))
          yield* Effect.sleep("20 seconds")
          const stalledLooks = simulated.calls.getTransaction - before
          simulated.stalledAt = undefined
          const results = yield* Effect.forEach(fibers, Fiber.join)
          return { stalledLooks, results }
        }),
        simulated,
        "3 minutes"
      )
      // 20 s of a stalled ledger: rechecks backing off to once a second for the whole instance, not per waiter.
      expect(outcome.stalledLooks).toBeLessThanOrEqual(30)
      expect(outcome.results.every((o) => o._tag === "Landed")).toBe(true)
    }))

  it.effect("instant ledgers after a quiet minute: each first look comes right after the send and finds the transaction", () =>
    Effect.gen(function*() {
      const simulated = new SimulatedNetwork(0, 0)
      const results = yield* onNetwork(
        Effect.forEach(Array.from({ length: 20 }, feeBumped), transfer),
        simulated,
        "1 second"
      )
      expect(results.every((o) => o._tag === "Landed")).toBe(true)
      expect(simulated.calls).toEqual({ sendTransaction: 20, getTransaction: 20 })
    }))

  it.effect("transport failures are retried; past the local deadline the poll gives up as NotYet", () =>
    Effect.gen(function*() {
      const simulated = new SimulatedNetwork(5_000, 150)
      const outcome = yield* onNetwork(
        Effect.gen(function*() {
          simulated.failures = 2
          const landed = yield* transfer(feeBumped())
          simulated.stalledAt = simulated.servedAt(yield* Clock.currentTimeMillis)
          const network = yield* Network
          const tx = feeBumped()
          const deadline = new Date((yield* Clock.currentTimeMillis) + 8_000)
          yield* network.send(tx, deadline)
          const missing = yield* network.poll(Buffer.from(tx.hash()).toString("hex"), deadline, Number.MAX_SAFE_INTEGER)
          return { landed, missing }
        }),
        simulated,
        "1 minute"
      )
      expect(outcome.landed._tag).toBe("Landed")
      expect(outcome.missing).toEqual(PollOutcome.NotYet())
    }))
})
