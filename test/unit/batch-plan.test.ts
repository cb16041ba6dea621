import { describe, expect, it } from "@effect/vitest"
import { Account, Keypair, MuxedAccount, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk"
import { randomUUID } from "node:crypto"
import { plan } from "../../src/BatchRuns/Plan.ts"
import { PayoutId } from "../../src/Domain/Ids.ts"

const PASSPHRASE = Networks.TESTNET

/** A transaction of `source` with sequence number `sequence` (a muxed source's is its account's next), signed. */
const transaction = (source: Keypair | MuxedAccount, sequence: bigint, signer: Keypair) => {
  const account = source instanceof MuxedAccount ? source : new Account(source.publicKey(), (sequence - 1n).toString())
  const tx = new TransactionBuilder(account, { fee: "100", networkPassphrase: PASSPHRASE })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .setTimeout(60)
    .build()
  tx.sign(signer)
  return tx
}

/** The item of a job that holds that transaction, and its hash. */
const signed = (source: Keypair | MuxedAccount, sequence: bigint, signer: Keypair) => {
  const tx = transaction(source, sequence, signer)
  return { signedXDR: tx.toXDR(), hash: Buffer.from(tx.hash()).toString("hex") }
}

/** Each group as the job indexes of its items, in the order they run. */
const order = (groups: ReturnType<typeof plan>) => groups.map((group) => group.map((p) => p.i))

describe("batch-run planning", () => {
  it("an account's items run in sequence-number order, whatever their order in the job; accounts are separate groups", () => {
    const a = Keypair.random()
    const b = Keypair.random()
    const items = [
      signed(a, 12n, a),
      signed(b, 7n, b),
      signed(a, 10n, a),
      signed(a, 11n, a),
      signed(b, 6n, b)
    ]
    const payoutIds = items.map(() => PayoutId.make(randomUUID()))
    const groups = plan(items.map(({ signedXDR }, i) => ({ signedXDR, payoutId: payoutIds[i]! })), PASSPHRASE)
    expect(order(groups)).toEqual([[2, 3, 0], [4, 1]])
    for (const group of groups) {
      for (const p of group) {
        expect(p.innerHash).toBe(items[p.i]!.hash)
        expect(p.item).toEqual({ signedXDR: items[p.i]!.signedXDR, payoutId: payoutIds[p.i] })
      }
    }
  })

  it("sequence numbers compare as 64-bit integers, past 2^53; equal ones keep the job's order", () => {
    const a = Keypair.random()
    const big = 2n ** 53n
    const items = [signed(a, big + 2n, a), signed(a, big + 1n, a), signed(a, big + 1n, a), signed(a, 9n, a)]
    expect(order(plan(items, PASSPHRASE))).toEqual([[3, 1, 2, 0]])
  })

  it("what cannot be ordered stands alone, after the groups: undecodable XDR, a fee-bump, a muxed source", () => {
    const a = Keypair.random()
    const first = signed(a, 3n, a)
    const second = signed(a, 2n, a)
    const muxed = signed(new MuxedAccount(new Account(a.publicKey(), "40"), "7"), 41n, a)
    const feeBump = TransactionBuilder.buildFeeBumpTransaction(a, "200", transaction(Keypair.random(), 5n, a), PASSPHRASE)
    const items = [
      { signedXDR: "not an envelope" },
      first,
      { signedXDR: feeBump.toXDR() },
      muxed,
      second
    ]
    const groups = plan(items, PASSPHRASE)
    expect(order(groups)).toEqual([[4, 1], [0], [2], [3]])
    expect(groups.slice(1).map(([p]) => p!.innerHash)).toEqual(["", "", muxed.hash])
  })

  it("an empty job plans nothing", () => {
    expect(plan([], PASSPHRASE)).toEqual([])
  })
})
