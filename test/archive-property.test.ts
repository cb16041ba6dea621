import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { BASE, checkpointAt, history, ingestedThrough } from "./support/ArchiveReads.ts"
import { clawback, eventsOf, type TokenVersion } from "./support/ArchiveEventVersions.ts"
import type { PublishedEvent } from "./support/LoopbackEvents.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

// Issue 23 §3: events of both versions of the token (8af46e2c and 0fd261c2, test/support/ArchiveEventVersions.ts),
// generated, fed through the loopback RPC, and the archive's answers checked against a model of indexer.md's rules
// written here: C1 (checkpoint and anchor), C2 (an account's history), C3 (complete) and C4 (ingestedThrough).

const FAST = { ARCHIVE_POLL_INTERVAL: "50 millis", ARCHIVE_PAGE_SIZE: "7" }
const runs = Number(process.env.FUZZ_RUNS ?? 1) * 6

type Kind =
  | "register" | "deposit" | "merge" | "withdraw" | "transfer" | "spenderTransfer" | "setSpender" | "revokeSpender"
  | "frozen" | "clawback"

/** One generated event: what happened, in which version, between which of the run's accounts (by index). */
interface Step {
  readonly kind: Kind
  readonly version: TokenVersion
  readonly a: number
  readonly b: number
}

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<Kind>(
    "deposit", "merge", "withdraw", "transfer", "spenderTransfer", "setSpender", "revokeSpender", "frozen",
    "clawback"
  ),
  version: fc.constantFrom<TokenVersion>("8af46e2c", "0fd261c2"),
  a: fc.integer({ min: 0, max: 2 }),
  b: fc.integer({ min: 0, max: 2 })
})

/** Ledgers of 1 to 3 events. */
const ledgers = fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 3, maxLength: 8 })

const build = (s: Step, accounts: ReadonlyArray<string>, spender: string): PublishedEvent => {
  const e = eventsOf(s.kind === "clawback" ? "0fd261c2" : s.version)
  const [a, b] = [accounts[s.a]!, accounts[s.b]!]
  switch (s.kind) {
    case "register": return e.register(a)
    case "deposit": return e.deposit(spender, a, 10n)
    case "merge": return e.merge(a)
    case "withdraw": return e.withdraw(a, spender, 1n)
    case "transfer": return e.transfer(a, b)
    case "spenderTransfer": return e.spenderTransfer(spender, a, b)
    case "setSpender": return e.setSpender(a, spender, 1_000_000)
    case "revokeSpender": return e.revokeSpender(a, spender)
    case "frozen": return e.frozen(a)
    case "clawback": return clawback(a, 3n)
  }
}

/** The model: who an event belongs to (every address in its topics), what checkpoints, what anchors. */
const parties = (s: Step, accounts: ReadonlyArray<string>, spender: string): ReadonlyArray<string> => {
  const [a, b] = [accounts[s.a]!, accounts[s.b]!]
  switch (s.kind) {
    case "deposit": return [spender, a]
    case "withdraw": return [a, spender]
    case "transfer": return [a, b]
    case "spenderTransfer": return [spender, a, b]
    case "setSpender":
    case "revokeSpender": return [a, spender]
    default: return [a]
  }
}
/** A checkpoint of its first party: withdraw, a transfer it sent, set_spender, and revoke_spender while it carried a proof. */
const checkpoints = (s: Step) =>
  s.kind === "withdraw" || s.kind === "transfer" || s.kind === "setSpender" ||
  (s.kind === "revokeSpender" && s.version === "8af46e2c")
const anchors = (s: Step) => s.kind === "merge" || s.kind === "clawback"

layer(TestAppLive(FAST, { ledgerIntervalMs: 0 }), { timeout: 120_000, excludeTestServices: true })("the archive against a model", (it) => {
  it.effect("generated events of both versions: C1 checkpoints and anchors, C2 histories, C3 and C4 agree with the model", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      let checked = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(ledgers, async (generated) => {
            const accounts = Array.from({ length: 3 }, () => Keypair.random().publicKey())
            const spender = Keypair.random().publicKey()
            const before = rpc.events.length
            const steps: Array<Step & { readonly ledger: number }> = []
            // Each account registers once, first (a second register is the token's 3500), in either version.
            const registers = accounts.map((_, a): Step => ({ kind: "register", version: a % 2 === 0 ? "8af46e2c" : "0fd261c2", a, b: a }))
            for (const events of [registers, ...generated]) {
              rpc.publishEvents(CONFIDENTIAL_TOKEN, events.map((s) => build(s, accounts, spender)))
              const ledger = rpc.advanceLedger()
              for (const s of events) steps.push({ ...s, ledger })
            }
            const published = rpc.events.slice(before).filter((e) => e.contractId === CONFIDENTIAL_TOKEN)
            expect(published).toHaveLength(steps.length)
            const ids = published.map((e) => rpc.eventId(e))
            const first = steps[0]!.ledger
            const last = steps[steps.length - 1]!.ledger
            await Effect.runPromise(Effect.gen(function*() {
              const status = yield* ingestedThrough(app, last)
              expect(status.ingestedThrough).toBeGreaterThanOrEqual(last) // C4
              for (const account of accounts) {
                // C2 and C3: the account's history is every event naming it, in the chain's order, and complete.
                const mine = steps.flatMap((s, i) => parties(s, accounts, spender).includes(account) ? [ids[i]!] : [])
                const served = yield* history(app, `${BASE}/accounts/${account}/events`, { fromLedger: String(first) })
                expect(served.complete).toBe(true)
                expect(served.events.map((e) => e.id)).toEqual(mine)
                // C1 at every ledger of the run.
                for (let at = first; at <= last; at++) {
                  const upTo = steps.flatMap((s, i) => (s.ledger <= at ? [{ s, id: ids[i]! }] : []))
                  const own = upTo.filter(({ s }) => accounts[s.a] === account)
                  const point = own.filter(({ s }) => checkpoints(s)).at(-1)
                  const limit = point === undefined ? undefined : upTo.indexOf(point)
                  const anchor = own.filter(({ s }, i) => anchors(s) && (limit === undefined || upTo.indexOf(own[i]!) <= limit)).at(-1)
                  const register = own.find(({ s }) => s.kind === "register")
                  const answer = yield* checkpointAt(app, account, at)
                  expect([at, answer.event?.id ?? null]).toEqual([at, point?.id ?? null])
                  // T_0: the latest merge or clawback at or before the checkpoint, else the register.
                  const expectedAnchor = (point === undefined ? register : anchor ?? register)?.id ?? null
                  expect([at, answer.anchor?.id ?? null]).toEqual([at, expectedAnchor])
                  expect(answer.complete).toBe(true)
                  checked += 1
                }
              }
            }))
          }),
          { numRuns: runs, seed: Number(process.env.FUZZ_SEED ?? 2311) }
        )
      )
      console.log(`[archive model figures] ${runs} generated runs of both versions' events, ${checked} checkpoint answers checked`)
      expect(checked).toBeGreaterThan(0)
    }))
})
