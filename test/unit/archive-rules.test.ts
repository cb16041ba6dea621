import { describe, expect, it } from "@effect/vitest"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { ConfigProvider, Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { attribute, eventType } from "../../src/Archive/Attribution.ts"
import { ArchiveConfig } from "../../src/Archive/Config.ts"
import { permanentGaps } from "../../src/Archive/Gaps.ts"
import { clawback, eventsOf } from "../support/ArchiveEventVersions.ts"
import type { PublishedEvent } from "../support/LoopbackEvents.ts"

const encoded = (event: PublishedEvent) => ({
  topics: event.topics.map((t) => t.toXdr("base64")),
  value: event.data.toXdr("base64")
})
const attributed = (event: PublishedEvent) => {
  const e = encoded(event)
  return attribute(e.topics, e.value)
}

describe("attribution across the token's versions (8af46e2c, 0fd261c2)", () => {
  const [owner, other, spender] = Array.from({ length: 3 }, () => Keypair.random().publicKey())
  const contract = StrKey.encodeContract(randomBytes(32))

  it("withdraw, transfer and set_spender checkpoint their first address in both versions; the other addresses never", () => {
    for (const version of ["8af46e2c", "0fd261c2"] as const) {
      const events = eventsOf(version)
      const cases = [
        [events.withdraw(owner!, other!, 5n), other],
        [events.transfer(owner!, other!), other],
        [events.setSpender(owner!, spender!, 9), spender]
      ] as const
      for (const [event, second] of cases) {
        expect(attributed(event).accounts, `${version} ${eventType(encoded(event).topics)}`).toEqual([
          { account: owner, checkpoint: true },
          { account: second, checkpoint: false }
        ])
      }
    }
  })

  it("revoke_spender is a checkpoint only in the shape that carries (b_tilde, sigma)", () => {
    expect(attributed(eventsOf("8af46e2c").revokeSpender(owner!, spender!)).accounts).toEqual([
      { account: owner, checkpoint: true },
      { account: spender, checkpoint: false }
    ])
    expect(attributed(eventsOf("0fd261c2").revokeSpender(owner!, spender!)).accounts).toEqual([
      { account: owner, checkpoint: false },
      { account: spender, checkpoint: false }
    ])
  })

  it("the compliance events are attributed by their topics alone: a clawback to its target, never its destination", () => {
    expect(attributed(clawback(owner!, 10n, contract))).toEqual({ type: "clawback", accounts: [{ account: owner, checkpoint: false }] })
    expect(attributed(clawback(contract, 10n))).toEqual({ type: "clawback", accounts: [{ account: contract, checkpoint: false }] })
    expect(attributed(eventsOf("0fd261c2").frozen(owner!))).toEqual({ type: "frozen", accounts: [{ account: owner, checkpoint: false }] })
    expect(attributed(eventsOf("8af46e2c").unfrozen(owner!))).toEqual({ type: "unfrozen", accounts: [{ account: owner, checkpoint: false }] })
    expect(attributed(eventsOf("0fd261c2").complianceConfigChanged(contract, true))).toEqual({ type: "compliance_config_changed", accounts: [] })
  })

  it("merge and spender_transfer are no checkpoint; a self-transfer is its sender's", () => {
    for (const version of ["8af46e2c", "0fd261c2"] as const) {
      const events = eventsOf(version)
      expect(attributed(events.merge(owner!)).accounts).toEqual([{ account: owner, checkpoint: false }])
      expect(attributed(events.spenderTransfer(spender!, owner!, other!)).accounts.map((a) => a.checkpoint)).toEqual([false, false, false])
      expect(attributed(events.transfer(owner!, owner!)).accounts).toEqual([{ account: owner, checkpoint: true }])
    }
  })

  it("an undecodable payload is no checkpoint", () => {
    const revoke = encoded(eventsOf("8af46e2c").revokeSpender(owner!, spender!))
    expect(attribute(revoke.topics, "not xdr").accounts.map((a) => a.checkpoint)).toEqual([false, false])
  })
})

describe("permanent gaps", () => {
  it("are the holes below the RPC's retention floor, clipped to it, and before the first range when told to start earlier", () => {
    const ranges = [{ from: 100, to: 199 }, { from: 300, to: 399 }, { from: 500, to: 600 }]
    expect(permanentGaps(ranges, 1, undefined)).toEqual([])
    expect(permanentGaps(ranges, 250, undefined)).toEqual([{ from: 200, to: 249 }])
    expect(permanentGaps(ranges, 450, undefined)).toEqual([{ from: 200, to: 299 }, { from: 400, to: 449 }])
    expect(permanentGaps(ranges, 450, 50)).toEqual([{ from: 50, to: 99 }, { from: 200, to: 299 }, { from: 400, to: 449 }])
    expect(permanentGaps(ranges, 450, 150)).toEqual([{ from: 200, to: 299 }, { from: 400, to: 449 }])
    expect(permanentGaps([{ from: 100, to: 600 }], 10_000, undefined)).toEqual([])
    expect(permanentGaps([], 10_000, 1)).toEqual([])
  })
})

describe("ARCHIVE_LEASE", () => {
  const read = (settings: Record<string, string>) =>
    Effect.withConfigProvider(ArchiveConfig, ConfigProvider.fromMap(new Map(Object.entries(settings))))

  it.effect("is the lease's length (30 s by default), and must be longer than ARCHIVE_POLL_INTERVAL", () =>
    Effect.gen(function*() {
      expect(Duration.toMillis((yield* read({})).leaseFor)).toBe(30_000)
      expect(Duration.toMillis((yield* read({ ARCHIVE_LEASE: "10 seconds" })).leaseFor)).toBe(10_000)
      const refused = yield* Effect.flip(read({ ARCHIVE_LEASE: "1 second", ARCHIVE_POLL_INTERVAL: "1 second" }))
      expect(String(refused)).toContain("ARCHIVE_LEASE must be longer than ARCHIVE_POLL_INTERVAL")
    }))
})
