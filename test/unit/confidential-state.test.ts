// The confidential client's wallet state (client/src/confidential/state): stores, sealing, event replay against a
// model of storage.rs (8af46e2c), the consistency check, the chaining rule of pending spends, and the archive decoder.
// The crypto is faked (a commitment is its opening in the clear, a decryption reads the ciphertext field as the
// plaintext): these tests hold the bookkeeping, the crypto helper's own tests hold the cryptography.
import { describe, expect, it } from "@effect/vitest"
import { bn254_Fr } from "@noble/curves/bn254.js"
import { bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js"
import { concatBytes } from "@noble/hashes/utils.js"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Effect, Either, Layer } from "effect"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import * as fc from "fast-check"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inspect } from "node:util"
import { decodeArchiveEvent, fetchAccountEvents, type ArchivedEvent } from "../../client/src/confidential/state/ArchiveEvents.ts"
import { checkConsistency, type Commit, IDENTITY } from "../../client/src/confidential/state/Consistency.ts"
import { FileStore } from "../../client/src/confidential/state/FileStore.ts"
import { type IdbFactory, IndexedDbStore } from "../../client/src/confidential/state/IndexedDbStore.ts"
import { emptyState, GRUMPKIN_ORDER, Opening, type WalletState } from "../../client/src/confidential/state/Opening.ts"
import { applyEvents, type Decryptor, type ReplayEvent } from "../../client/src/confidential/state/Replay.ts"
import { makeSealer } from "../../client/src/confidential/state/SealedState.ts"
import { SealedStateInvalid, StateMismatch, UnspendableBlinding } from "../../client/src/confidential/state/StateErrors.ts"
import { MemoryStore, type WalletStore } from "../../client/src/confidential/state/Store.ts"
import { addPending, persistPending, spendBase, walletStateStore } from "../../client/src/confidential/state/Wallet.ts"
import { confidentialEvents } from "../support/ConfidentialEvents.ts"
import type { PublishedEvent } from "../support/LoopbackEvents.ts"

const RUNS = Number(process.env.FUZZ_RUNS ?? 1) * 200
const R = bn254_Fr.ORDER
const be = (n: bigint) => numberToBytesBE(n, 32)
const A = Keypair.random().publicKey()
const B = Keypair.random().publicKey()
const TOKEN = StrKey.encodeContract(Buffer.alloc(32, 7))

// The fake group Z × Z_q: Com(v, r) is be(v) ‖ be(r mod q), so (0, 0) is the 64 zero bytes, like the identity.
const commit: Commit = (v, r) => concatBytes(be(v), be(((r % GRUMPKIN_ORDER) + GRUMPKIN_ORDER) % GRUMPKIN_ORDER))
const commitOf = (o: Opening) => commit(o.value, o.blinding)
const spendR = (sigma: Uint8Array) => (bytesToNumberBE(sigma) * 5n + 1n) % R
const decryptor: Decryptor = {
  transferIn: (c) => ({ amount: bytesToNumberBE(c.vTilde), blinding: bytesToNumberBE(c.rE.subarray(0, 32)) }),
  balance: (bTilde) => bytesToNumberBE(bTilde),
  spendBlinding: spendR
}

/** The token as storage.rs moves it, with the true openings, emitting the events replay reads. */
const model = () => {
  const accounts = new Map<string, { spend: Opening; recv: Opening }>()
  const events: Array<ReplayEvent> = []
  let ledger = 100
  let tx = 0
  const get = (a: string) => accounts.get(a) ?? { spend: new Opening(0n, 0n), recv: new Opening(0n, 0n) }
  const set = (a: string, s: { spend: Opening; recv: Opening }) => void accounts.set(a, s)
  const next = (newLedger: boolean) => {
    if (newLedger) [ledger, tx] = [ledger + 1, 1]
    else tx += 1
    const id = `${((BigInt(ledger) << 32n) | (BigInt(tx) << 12n)).toString().padStart(19, "0")}-0000000000`
    return { id, ledger, txHash: `tx-${id}` }
  }
  const salt = () => be(BigInt(events.length + 1) * 7919n)
  const rTx = () => (BigInt(events.length + 3) * 0x1234567890abcdefn) % R
  const checkpoint = (a: string, amount: bigint, sigma: Uint8Array) => {
    const s = get(a)
    const left = s.spend.value - amount
    set(a, { ...s, spend: new Opening(left, spendR(sigma)) })
    return be(left)
  }
  const credit = (to: string, amount: bigint, blinding: bigint) => {
    const s = get(to)
    set(to, { ...s, recv: s.recv.add(new Opening(amount, blinding)) })
  }
  return {
    truth: get,
    chain: (a: string) => ({ spendableCommitment: commitOf(get(a).spend), receivingCommitment: commitOf(get(a).recv) }),
    events,
    register: (account: string, newLedger = true) => {
      set(account, get(""))
      events.push({ ...next(newLedger), type: "register", account })
    },
    deposit: (to: string, amount: bigint, newLedger = true) => {
      credit(to, amount, 0n)
      events.push({ ...next(newLedger), type: "deposit", from: B, to, amount })
    },
    merge: (account: string, newLedger = true) => {
      const s = get(account)
      set(account, { spend: s.spend.add(s.recv), recv: new Opening(0n, 0n) })
      events.push({ ...next(newLedger), type: "merge", account })
    },
    /** A transfer the proof allows (amount up to the spendable value); false when it would not. */
    transfer: (from: string, to: string, amount: bigint, newLedger = true) => {
      if (amount > get(from).spend.value) return false
      const [sigma, blinding] = [salt(), rTx()]
      const bTilde = checkpoint(from, amount, sigma)
      credit(to, amount, blinding)
      const rE = concatBytes(be(blinding), new Uint8Array(32))
      events.push({ ...next(newLedger), type: "transfer", from, to, rE, vTilde: be(amount), sigma, bTilde })
      return true
    },
    withdraw: (from: string, amount: bigint, newLedger = true) => {
      if (amount > get(from).spend.value) return false
      const sigma = salt()
      const bTilde = checkpoint(from, amount, sigma)
      events.push({ ...next(newLedger), type: "withdraw", from, to: B, amount, sigma, bTilde })
      return true
    }
  }
}

const rightOf = <A, E>(e: Either.Either<A, E>): A => Either.getOrThrowWith(e, (error) => error)
const leftOf = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) throw new Error("expected a Left")
  return e.left
}

describe("stores", () => {
  const roundTrip = async (store: WalletStore) => {
    expect(await store.get("wallet-state/C/G")).toBeUndefined()
    const bytes = Uint8Array.of(1, 2, 3)
    await store.put("wallet-state/C/G", bytes)
    bytes[0] = 9
    expect(await store.get("wallet-state/C/G")).toEqual(Uint8Array.of(1, 2, 3))
    await store.put("wallet-state/C/G", Uint8Array.of(4))
    expect(await store.get("wallet-state/C/G")).toEqual(Uint8Array.of(4))
    await store.delete("wallet-state/C/G")
    expect(await store.get("wallet-state/C/G")).toBeUndefined()
    await store.delete("wallet-state/C/G")
  }

  it("MemoryStore keeps copies", () => roundTrip(new MemoryStore()))

  it("FileStore keeps one file per key inside its directory, whatever the key", async () => {
    const root = await mkdtemp(join(tmpdir(), "wallet-state-"))
    try {
      const directory = join(root, "store")
      await roundTrip(new FileStore(directory))
      const store = new FileStore(directory)
      await store.put("../../escape", Uint8Array.of(5))
      await store.put("..", Uint8Array.of(6))
      expect(await store.get("../../escape")).toEqual(Uint8Array.of(5))
      expect(await store.get("..")).toEqual(Uint8Array.of(6))
      expect((await readdir(directory)).sort()).toEqual(["..%2F..%2Fescape.sealed", "...sealed"])
      expect(await readdir(root)).toEqual(["store"])
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  it("IndexedDbStore resolves a write when its transaction commits", async () => {
    await roundTrip(new IndexedDbStore("test", fakeIndexedDb()))
    await expect(new IndexedDbStore("test", undefined).get("k")).rejects.toThrow("IndexedDB is not available")
  })
})

/** Just enough of IndexedDB: requests answer at once, transactions complete on the next turn. */
const fakeIndexedDb = (): IdbFactory => {
  const data = new Map<string, unknown>()
  const names = new Set<string>()
  const database = {
    objectStoreNames: { contains: (name: string) => names.has(name) },
    createObjectStore: (name: string) => names.add(name),
    close: () => undefined,
    transaction: () => {
      const transaction = { error: null, oncomplete: null as (() => void) | null, onerror: null, onabort: null, objectStore: () => store }
      const done = <T>(result: T) => {
        setTimeout(() => transaction.oncomplete?.(), 0)
        return { result, error: null, onsuccess: null, onerror: null }
      }
      const store = {
        get: (key: string) => done(data.get(key)),
        put: (value: Uint8Array, key: string) => done(data.set(key, value)),
        delete: (key: string) => done(data.delete(key))
      }
      return transaction
    }
  }
  return {
    open: () => {
      const request = { result: database, error: null, onsuccess: null as (() => void) | null, onerror: null, onblocked: null, onupgradeneeded: null as (() => void) | null }
      setTimeout(() => {
        request.onupgradeneeded?.()
        request.onsuccess?.()
      }, 0)
      return request
    }
  }
}

const sampleState = (): WalletState => ({
  ...emptyState(A, TOKEN),
  spendable: new Opening(123456789n, GRUMPKIN_ORDER - 5n),
  receiving: new Opening(424242n, 777777n),
  cursor: { ledger: 7, id: "0000000030064775168-0000000000" },
  pending: [{ commitment: new Uint8Array(64).fill(1), opening: new Opening(5n, 6n), basedOn: new Uint8Array(64).fill(2), txHash: "ab", validUntilLedger: 9 }]
})

describe("sealed state", () => {
  const sk = 0x1234n

  it("opens what it sealed, with a fresh nonce each time", async () => {
    const sealer = await makeSealer(sk, A, TOKEN)
    const [one, two] = [await sealer.seal(sampleState()), await sealer.seal(sampleState())]
    expect(one).not.toEqual(two)
    expect(await sealer.unseal(one)).toEqual(sampleState())
    expect(await (await makeSealer(be(sk), A, TOKEN)).unseal(two)).toEqual(sampleState())
  })

  it("refuses a wrong key, another account or token, and any altered byte", async () => {
    const sealed = await (await makeSealer(sk, A, TOKEN)).seal(sampleState())
    const refused = async (sealer: Promise<{ unseal: (b: Uint8Array) => Promise<WalletState> }>, bytes: Uint8Array, problem = "wrong-key-or-altered") => {
      const error = await (await sealer).unseal(bytes).then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(SealedStateInvalid)
      expect(error).toMatchObject({ _tag: "SealedStateInvalid", problem })
    }
    await refused(makeSealer(sk + 1n, A, TOKEN), sealed)
    await refused(makeSealer(sk, B, TOKEN), sealed)
    await refused(makeSealer(sk, A, StrKey.encodeContract(Buffer.alloc(32, 8))), sealed)
    await refused(makeSealer(sk, A, TOKEN), sealed.subarray(0, 20))
    await refused(makeSealer(sk, A, TOKEN), Uint8Array.of(2, ...sealed.subarray(1)), "unknown-format")
    const sealer = makeSealer(sk, A, TOKEN)
    for (let i = 1; i < sealed.length; i += 1) {
      const altered = sealed.slice()
      altered[i]! ^= 1 << (i % 8)
      await refused(sealer, altered)
    }
    await expect((await makeSealer(sk, B, TOKEN)).seal(sampleState())).rejects.toThrow(RangeError)
  })

  it("no printing of a state shows an opening", () => {
    const state = sampleState()
    for (const text of [inspect(state, { depth: 10 }), JSON.stringify(state), String(state.spendable), `${state.receiving}`]) {
      for (const secret of [123456789n, GRUMPKIN_ORDER - 5n, 424242n, 777777n]) {
        expect(text).not.toContain(secret.toString())
        expect(text).not.toContain(secret.toString(16))
      }
    }
    expect(inspect(state)).toContain("Opening <redacted>")
  })
})

describe("replay", () => {
  it("applies deposit, merge, transfers in and out, withdraw and a self-transfer as storage.rs moves the commitments", () => {
    const m = model()
    m.register(A)
    m.register(B)
    m.deposit(A, 1000n)
    m.deposit(B, 500n, false)
    m.merge(A)
    m.merge(B, false)
    expect(m.transfer(B, A, 200n)).toBe(true)
    expect(m.transfer(A, B, 300n, false)).toBe(true)
    m.deposit(A, 7n)
    expect(m.withdraw(A, 100n)).toBe(true)
    m.merge(A)
    expect(m.transfer(A, A, 50n)).toBe(true)
    for (const account of [A, B]) {
      const state = applyEvents(emptyState(account, TOKEN), m.events, decryptor)
      expect(state.spendable).toEqual(m.truth(account).spend)
      expect(state.receiving).toEqual(m.truth(account).recv)
      expect(rightOf(checkConsistency(state, m.chain(account), commit))).toBe(state)
    }
    const a = applyEvents(emptyState(A, TOKEN), m.events, decryptor)
    expect(a.spendable.value).toBe(1000n + 200n + 7n - 300n - 100n - 50n)
    expect(a.receiving.value).toBe(50n)
    expect(a.cursor).toEqual({ ledger: m.events.at(-1)!.ledger, id: m.events.at(-1)!.id })
  })

  it("orders, deduplicates, and skips what its cursor has passed", () => {
    const m = model()
    m.register(A)
    m.deposit(A, 10n)
    m.merge(A, false)
    m.deposit(A, 5n, false)
    const ordered = applyEvents(emptyState(A, TOKEN), m.events, decryptor)
    expect(ordered.spendable.value).toBe(10n)
    expect(ordered.receiving.value).toBe(5n)
    expect(applyEvents(emptyState(A, TOKEN), [...m.events, ...m.events].reverse(), decryptor)).toEqual(ordered)
    expect(applyEvents(ordered, m.events, decryptor)).toEqual(ordered)
    const half = applyEvents(emptyState(A, TOKEN), m.events.slice(0, 2), decryptor)
    expect(applyEvents(half, m.events, decryptor)).toEqual(ordered)
  })

  it("a missed or forged event is a StateMismatch naming the balance, never a value", () => {
    const m = model()
    m.register(A)
    m.deposit(A, 987654321n)
    m.merge(A)
    m.deposit(A, 3n)
    const chain = m.chain(A)
    const withoutLast = applyEvents(emptyState(A, TOKEN), m.events.slice(0, -1), decryptor)
    expect(leftOf(checkConsistency(withoutLast, chain, commit))).toMatchObject({ _tag: "StateMismatch", accumulator: "receiving" })
    const withoutFirstDeposit = applyEvents(emptyState(A, TOKEN), m.events.filter((_, i) => i !== 1), decryptor)
    const spendableOnly = leftOf(checkConsistency(withoutFirstDeposit, chain, commit))
    expect(spendableOnly).toBeInstanceOf(StateMismatch)
    expect(spendableOnly.accumulator).toBe("spendable")
    expect(spendableOnly.message).not.toContain("987654321")
    const none = leftOf(checkConsistency(emptyState(A, TOKEN), chain, commit))
    expect(none.accumulator).toBe("spendable")
    expect(none.message).toContain("spendable and receiving openings do not match")
    expect(rightOf(checkConsistency(emptyState(A, TOKEN), { spendableCommitment: IDENTITY, receivingCommitment: IDENTITY }, commit)))
      .toEqual(emptyState(A, TOKEN))
  })

  it("any shuffled, duplicated delivery of the events gives the state of the ordered one, and the chain's", () => {
    const op = fc.record({
      kind: fc.constantFrom("deposit", "merge", "transfer", "withdraw"),
      from: fc.constantFrom(A, B),
      to: fc.constantFrom(A, B),
      amount: fc.bigInt({ min: 0n, max: 1000n }),
      newLedger: fc.boolean()
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), fc.infiniteStream(fc.nat()), (ops, noise) => {
        const m = model()
        m.register(A)
        m.register(B, false)
        for (const o of ops) {
          if (o.kind === "deposit") m.deposit(o.to, o.amount, o.newLedger)
          else if (o.kind === "merge") m.merge(o.from, o.newLedger)
          else if (o.kind === "transfer") m.transfer(o.from, o.to, o.amount, o.newLedger)
          else m.withdraw(o.from, o.amount, o.newLedger)
        }
        const delivered = m.events.flatMap((e) => (noise.next().value % 3 === 0 ? [e, e] : [e]))
        const keys = delivered.map(() => noise.next().value)
        const shuffled = delivered.map((e, i) => [keys[i]!, e] as const).sort((x, y) => x[0] - y[0]).map(([, e]) => e)
        for (const account of [A, B]) {
          const ordered = applyEvents(emptyState(account, TOKEN), m.events, decryptor)
          expect(applyEvents(emptyState(account, TOKEN), shuffled, decryptor)).toEqual(ordered)
          expect(Either.isRight(checkConsistency(ordered, m.chain(account), commit))).toBe(true)
        }
      }),
      { numRuns: RUNS }
    )
  })
})

describe("chaining pending spends", () => {
  const funded = () => {
    const m = model()
    m.register(A)
    m.deposit(A, 1000n)
    m.merge(A)
    return { m, state: applyEvents(emptyState(A, TOKEN), m.events, decryptor) }
  }
  const spend = (base: { opening: Opening; commitment: Uint8Array }, amount: bigint, sigma: bigint, txHash: string, validUntilLedger = 200) => {
    const opening = new Opening(base.opening.value - amount, spendR(be(sigma)))
    return { commitment: commitOf(opening), opening, basedOn: base.commitment, txHash, validUntilLedger }
  }

  it("proves on the pending opening while in flight or landed, settles what landed, drops what expired", () => {
    const { state } = funded()
    const c0 = commitOf(state.spendable)
    const base0 = rightOf(spendBase(state, { commitment: c0, ledger: 150 }, commit))
    expect(base0.opening).toEqual(state.spendable)
    const p0 = spend(base0, 100n, 11n, "t0", 160)
    const s1 = rightOf(addPending(base0, p0, commit))
    const base1 = rightOf(spendBase(s1, { commitment: c0, ledger: 151 }, commit))
    expect(base1.opening).toEqual(p0.opening)
    const p1 = spend(base1, 200n, 12n, "t1")
    const s2 = rightOf(addPending(base1, p1, commit))
    // Nothing landed yet: prove on the newest.
    expect(rightOf(spendBase(s2, { commitment: c0, ledger: 152 }, commit)).opening).toEqual(p1.opening)
    // The first landed: it settles into the spendable opening.
    const landedFirst = rightOf(spendBase(s2, { commitment: p0.commitment, ledger: 153 }, commit))
    expect(landedFirst.state.spendable).toEqual(p0.opening)
    expect(landedFirst.state.pending.map((p) => p.txHash)).toEqual(["t1"])
    expect(landedFirst.opening).toEqual(p1.opening)
    // Both landed.
    const landedAll = rightOf(spendBase(s2, { commitment: p1.commitment, ledger: 153 }, commit))
    expect(landedAll.state.pending).toEqual([])
    expect(landedAll.opening.value).toBe(700n)
    // The first never landed and is past its last ledger: both are dropped.
    const expired = rightOf(spendBase(s2, { commitment: c0, ledger: 161 }, commit))
    expect(expired.state.pending).toEqual([])
    expect(expired.opening).toEqual(state.spendable)
    // Something else moved the spendable commitment.
    expect(leftOf(spendBase(s2, { commitment: commit(1n, 1n), ledger: 152 }, commit))).toMatchObject({ accumulator: "spendable" })
    expect(leftOf(spendBase(state, { commitment: commit(1n, 1n), ledger: 152 }, commit))).toBeInstanceOf(StateMismatch)
  })

  it("refuses a pending spend not proven on the base, or whose opening does not open its commitment", () => {
    const { state } = funded()
    const base = rightOf(spendBase(state, { commitment: commitOf(state.spendable), ledger: 150 }, commit))
    const good = spend(base, 1n, 3n, "t")
    expect(leftOf(addPending(base, { ...good, basedOn: commit(9n, 9n) }, commit))).toBeInstanceOf(StateMismatch)
    expect(leftOf(addPending(base, { ...good, opening: new Opening(2n, 2n) }, commit))).toBeInstanceOf(StateMismatch)
  })

  it("the transfer's event settles its pending spend, which was persisted before submission", async () => {
    const { m, state } = funded()
    const base = rightOf(spendBase(state, { commitment: commitOf(state.spendable), ledger: 150 }, commit))
    const stateStore = walletStateStore(new MemoryStore(), await makeSealer(99n, A, TOKEN))
    m.transfer(A, B, 100n)
    const event = m.events.at(-1)!
    if (event.type !== "transfer") throw new Error("expected the transfer")
    const pending = { commitment: m.chain(A).spendableCommitment, opening: m.truth(A).spend, basedOn: base.commitment, txHash: event.txHash!, validUntilLedger: 300 }
    const recorded = await persistPending(stateStore, base, pending, commit)
    expect(await stateStore.load()).toEqual(recorded)
    const synced = applyEvents(recorded, m.events, decryptor)
    expect(synced.pending).toEqual([])
    expect(synced.spendable).toEqual(m.truth(A).spend)
  })

  it("a spendable blinding no Field can hold is UnspendableBlinding", () => {
    const state = { ...emptyState(A, TOKEN), spendable: new Opening(5n, R + 1n) }
    expect(leftOf(spendBase(state, { commitment: commitOf(state.spendable), ledger: 1 }, commit))).toBeInstanceOf(UnspendableBlinding)
  })
})

describe("archive events", () => {
  const v8 = confidentialEvents["8af46e2c"]
  const field = (n: number) => new Uint8Array(32).fill(n)
  const point = new Uint8Array(64).fill(3)
  let n = 0
  const archived = (event: PublishedEvent, ledger = 10): ArchivedEvent & { type: string; ledgerClosedAt: string; txApplicationOrder: number; eventIndex: number } => {
    n += 1
    return {
      id: `${((BigInt(ledger) << 32n) | (BigInt(n) << 12n)).toString().padStart(19, "0")}-0000000000`,
      ledger,
      ledgerClosedAt: "2026-01-01T00:00:00.000Z",
      txHash: `hash${n}`,
      txApplicationOrder: n,
      eventIndex: 0,
      type: "x",
      topics: event.topics.map((t) => t.toXDR("base64")),
      value: event.data.toXDR("base64")
    }
  }
  const decoded = (event: PublishedEvent) => rightOf(decodeArchiveEvent(archived(event)))

  it("reads the 8af46e2c events as replay events", () => {
    expect(decoded(v8.register(A, 1))).toMatchObject({ type: "register", account: A })
    expect(decoded(v8.deposit(B, A, 55n))).toMatchObject({ type: "deposit", from: B, to: A, amount: 55n })
    expect(decoded(v8.merge(A))).toMatchObject({ type: "merge", account: A })
    const transferFields = {
      r_e_point: point, v_tilde: field(1), sigma: field(2), b_tilde: field(4),
      v_tilde_aud_r: field(5), r_tilde_aud_r: field(6), v_tilde_aud_s: field(7), b_tilde_aud_s: field(8)
    }
    expect(decoded(v8.transfer(A, B, transferFields))).toMatchObject({ type: "transfer", from: A, to: B, rE: point, vTilde: field(1), sigma: field(2), bTilde: field(4) })
    expect(decoded(v8.withdraw(A, B, 9n, { r_e_point: point, sigma: field(2), b_tilde: field(4), b_tilde_aud_s: field(8) })))
      .toMatchObject({ type: "withdraw", from: A, to: B, amount: 9n, sigma: field(2), bTilde: field(4) })
    expect(decoded(v8.spenderTransfer(B, A, B, {
      r_e_point: point, v_tilde: field(1), sigma_a: field(9), v_tilde_aud_r: field(5), r_tilde_aud_r: field(6), v_tilde_aud_s: field(7), a_tilde_aud_s: field(8)
    }))).toMatchObject({ type: "spender_transfer", spender: B, from: A, to: B, sigma: field(9) })
    const checkpoint = { r_e_point: point, sigma: field(2), b_tilde: field(4), v_tilde_aud_s: field(7), b_tilde_aud_s: field(8) }
    expect(decoded(v8.setSpender(A, B, 500, checkpoint))).toMatchObject({ type: "set_spender", account: A, spender: B, bTilde: field(4) })
    expect(decoded(v8.revokeSpender(A, B, checkpoint))).toMatchObject({ type: "revoke_spender", account: A, spender: B, sigma: field(2) })
    expect(decoded(v8.frozen(A))).toBeUndefined()
  })

  it("refuses newer versions' balance events and malformed ones, by id", () => {
    const v10 = confidentialEvents["0fd261c2"]
    const invalid = (event: ArchivedEvent) => leftOf(decodeArchiveEvent(event))
    expect(invalid(archived(v10.revokeSpender(A, B, { a_tilde: field(1), allowance_salt: field(2) }))).reason).toMatch(/newer token version/)
    expect(invalid(archived(v10.clawback(A, 5n))).reason).toMatch(/newer token version/)
    const short = archived(v8.withdraw(A, B, 9n, { r_e_point: point, sigma: field(2), b_tilde: new Uint8Array(31), b_tilde_aud_s: field(8) }))
    expect(invalid(short)).toMatchObject({ _tag: "ArchiveEventInvalid", id: short.id, reason: "b_tilde is not 32 bytes" })
    expect(invalid({ ...short, value: "not xdr" }).reason).toBe("not an XDR ScVal")
  })

  it.effect("pages through the archive's account route after the cursor", () =>
    Effect.gen(function*() {
      const events = [archived(v8.register(A, 1), 10), archived(v8.deposit(B, A, 4n), 11), archived(v8.merge(A), 12), archived(v8.frozen(A), 12)]
      const asked: Array<URL> = []
      const client = HttpClient.make((request, url) => {
        asked.push(url)
        const second = url.searchParams.get("cursor") !== null
        const page = second ? { events: events.slice(2), cursor: null, complete: false } : { events: events.slice(0, 2), cursor: events[1]!.id, complete: true }
        return Effect.succeed(HttpClientResponse.fromWeb(request, new Response(JSON.stringify(page), { headers: { "content-type": "application/json" } })))
      })
      const history = yield* fetchAccountEvents("http://archive.test", TOKEN, A, { ledger: 10, id: events[0]!.id }).pipe(
        Effect.provide(Layer.succeed(HttpClient.HttpClient, client))
      )
      expect(history.complete).toBe(false)
      expect(history.events.map((e) => e.type)).toEqual(["deposit", "merge"])
      expect(asked.map((u) => u.pathname)).toEqual([`/archive/tokens/${TOKEN}/accounts/${A}/events`, `/archive/tokens/${TOKEN}/accounts/${A}/events`])
      expect(asked[0]!.searchParams.get("fromLedger")).toBe("10")
      expect(asked[1]!.searchParams.get("cursor")).toBe(events[1]!.id)
    }))
})
