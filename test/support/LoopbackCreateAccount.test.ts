// The loopback ledger's classic createAccount (LoopbackLedger.ts `#createAccounts`), driven through stellar-sdk's own
// TransactionBuilder and Operation.createAccount as a client on a real network would: so the loopback can play a
// network on which a funder creates the accounts it needs (the demo's network mode, test/demo.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Account, Contract, Keypair, Networks, Operation, StrKey, TransactionBuilder, rpc, xdr } from "@stellar/stellar-sdk"
import type { Transaction } from "@stellar/stellar-sdk"
import { LoopbackRpc } from "./LoopbackRpc.ts"

const XLM = 10_000_000n
const FEE = 1_000n // per operation: TransactionBuilder's `fee` is the base fee of each
const RESERVE = 5_000_000n // the loopback's baseReserve (getLatestLedger's header): 0.5 XLM
const lumens = (stroops: bigint) => `${stroops / XLM}.${(stroops % XLM).toString().padStart(7, "0")}`

/** The createAccount result code of each operation of a (failed or successful) classic transaction. */
const createAccountCodes = (result: xdr.TransactionResult): Array<string> => {
  const r = result.result
  if (r.type !== "txSuccess" && r.type !== "txFailed") throw new Error(`expected txSuccess or txFailed, got ${r.type}`)
  return r.results.map((op) => (op.type === "opInner" && op.tr.type === "createAccount" ? op.tr.createAccountResult.type : op.type))
}

describe("LoopbackRpc createAccount (closed by hand)", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
  })

  afterAll(async () => {
    await loopback.close()
  })

  /** A funder's classic transaction of createAccount operations, built from its account as getAccount serves it. */
  const createAccounts = async (funder: Keypair, accounts: ReadonlyArray<{ destination: string; startingBalance: bigint }>) => {
    const builder = new TransactionBuilder(await server.getAccount(funder.publicKey()), { fee: String(FEE), networkPassphrase: Networks.TESTNET })
    for (const a of accounts) builder.addOperation(Operation.createAccount({ destination: a.destination, startingBalance: lumens(a.startingBalance) }))
    const tx = builder.setTimeout(300).build()
    tx.sign(funder)
    return tx
  }

  /** Sends `tx`, closes a ledger, and answers its final getTransaction and the ledger it applied in. */
  const land = async (tx: Transaction) => {
    const sent = await server.sendTransaction(tx)
    expect(sent.status, JSON.stringify(sent.errorResult)).toBe("PENDING")
    const ledger = loopback.advanceLedger()
    const final = await server.getTransaction(sent.hash)
    if (final.status === rpc.Api.GetTransactionStatus.NOT_FOUND) throw new Error("not applied")
    return { final, ledger }
  }

  it("creates every account of one multi-operation transaction: their starting balances, sequence number ledger << 32, the funder charged", async () => {
    const funder = Keypair.random()
    loopback.setAccount({ id: funder.publicKey(), sequence: 77n, balance: 1_000n * XLM })
    const created = [
      { destination: Keypair.random().publicKey(), startingBalance: 10n * XLM },
      { destination: Keypair.random().publicKey(), startingBalance: 100n * XLM },
      { destination: Keypair.random().publicKey(), startingBalance: 1n * XLM }
    ]
    const tx = await createAccounts(funder, created)
    const { final, ledger } = await land(tx)
    expect(final.status).toBe(rpc.Api.GetTransactionStatus.SUCCESS)
    expect(createAccountCodes(final.resultXdr)).toEqual(["createAccountSuccess", "createAccountSuccess", "createAccountSuccess"])
    expect(BigInt(final.resultXdr.feeCharged)).toBe(3n * FEE)
    for (const c of created) {
      const account = await server.getAccount(c.destination)
      expect(account.sequenceNumber()).toBe((BigInt(ledger) << 32n).toString())
      expect(loopback.account(c.destination)).toMatchObject({
        balance: c.startingBalance, sequence: BigInt(ledger) << 32n, thresholds: { master: 1, low: 0, medium: 0, high: 0 }, signers: []
      })
    }
    expect(loopback.account(funder.publicKey())).toMatchObject({ sequence: 78n, balance: 1_000n * XLM - 111n * XLM - 3n * FEE })
  })

  it("lets a created account transact at its starting sequence number + 1", async () => {
    const funder = Keypair.random()
    const fresh = Keypair.random()
    loopback.setAccount({ id: funder.publicKey(), balance: 100n * XLM })
    await land(await createAccounts(funder, [{ destination: fresh.publicKey(), startingBalance: 5n * XLM }]))
    const { final, ledger } = await land(await createAccounts(fresh, [{ destination: Keypair.random().publicKey(), startingBalance: 2n * XLM }]))
    expect(final.status).toBe(rpc.Api.GetTransactionStatus.SUCCESS)
    expect(loopback.account(fresh.publicKey())).toMatchObject({ sequence: (BigInt(ledger - 1) << 32n) + 1n, balance: 3n * XLM - FEE })
  })

  it("fails the whole transaction when one destination exists (CREATE_ACCOUNT_ALREADY_EXIST): no account created, fee and sequence charged", async () => {
    const funder = Keypair.random()
    const existing = Keypair.random().publicKey()
    loopback.setAccount({ id: funder.publicKey(), sequence: 5n, balance: 50n * XLM })
    loopback.setAccount({ id: existing, balance: 3n * XLM })
    const first = Keypair.random().publicKey()
    const { final } = await land(await createAccounts(funder, [
      { destination: first, startingBalance: 2n * XLM },
      { destination: existing, startingBalance: 2n * XLM }
    ]))
    expect(final.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(final.resultXdr.result.type).toBe("txFailed")
    expect(createAccountCodes(final.resultXdr)).toEqual(["createAccountSuccess", "createAccountAlreadyExist"])
    expect(loopback.account(first)).toBeUndefined()
    expect(loopback.account(existing)?.balance).toBe(3n * XLM)
    expect(loopback.account(funder.publicKey())).toMatchObject({ sequence: 6n, balance: 50n * XLM - 2n * FEE })
  })

  it("refuses a source without the starting balance above its own reserve (CREATE_ACCOUNT_UNDERFUNDED), counting the operations before", async () => {
    const funder = Keypair.random()
    const cosigner = Keypair.random().publicKey()
    // after the fee: 2 XLM above its reserve of 3 base reserves (two, and one for its signer)
    const balance = 3n * RESERVE + 2n * XLM + 2n * FEE
    loopback.setAccount({ id: funder.publicKey(), balance, signers: [{ key: cosigner, weight: 1 }] })
    const [a, b] = [Keypair.random().publicKey(), Keypair.random().publicKey()]
    const { final } = await land(await createAccounts(funder, [
      { destination: a, startingBalance: XLM + XLM / 2n },
      { destination: b, startingBalance: XLM }
    ]))
    expect(final.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(createAccountCodes(final.resultXdr)).toEqual(["createAccountSuccess", "createAccountUnderfunded"])
    expect(loopback.account(a)).toBeUndefined()
    expect(loopback.account(funder.publicKey())?.balance).toBe(balance - 2n * FEE)

    // exactly what is available succeeds, down to the reserve
    const { final: exact } = await land(await createAccounts(funder, [{ destination: a, startingBalance: 2n * XLM - FEE }]))
    expect(exact.status).toBe(rpc.Api.GetTransactionStatus.SUCCESS)
    expect(loopback.account(funder.publicKey())?.balance).toBe(3n * RESERVE)
  })

  it("refuses a starting balance under two base reserves (CREATE_ACCOUNT_LOW_RESERVE)", async () => {
    const funder = Keypair.random()
    loopback.setAccount({ id: funder.publicKey(), balance: 10n * XLM })
    const destination = Keypair.random().publicKey()
    const { final } = await land(await createAccounts(funder, [{ destination, startingBalance: 2n * RESERVE - 1n }]))
    expect(final.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(createAccountCodes(final.resultXdr)).toEqual(["createAccountLowReserve"])
    expect(loopback.account(destination)).toBeUndefined()
  })

  it("still refuses a Soroban transaction of more than one operation (txMalformed), while classic ones of several are accepted", async () => {
    const funder = Keypair.random()
    loopback.setAccount({ id: funder.publicKey(), sequence: 9n })
    const call = new Contract(StrKey.encodeContract(Buffer.alloc(32, 7))).call("f")
    const tx = new TransactionBuilder(new Account(funder.publicKey(), "9"), { fee: String(FEE), networkPassphrase: Networks.TESTNET })
      .addOperation(call)
      .addOperation(Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: "1" }))
      .setTimeout(300)
      .build()
    tx.sign(funder)
    const sent = await server.sendTransaction(tx)
    expect(sent.status).toBe("ERROR")
    expect(sent.errorResult?.result.type).toBe("txMalformed")
  })
})
