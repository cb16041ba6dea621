import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Account, Address, Contract, Keypair, Networks, SorobanDataBuilder, TransactionBuilder, rpc, xdr } from "@stellar/stellar-sdk"
import type { FeeBumpTransaction, Transaction } from "@stellar/stellar-sdk"
import { LoopbackRpc, exactFeeBump, innermostResultCode } from "./LoopbackRpc.ts"

const source = Keypair.random().publicKey()
const cosigner = Keypair.random().publicKey()
const registered = Keypair.random().publicKey()
const unregistered = Keypair.random().publicKey()
const registryId = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 255 - i)).toString()
const viewingKey = Uint8Array.from({ length: 32 }, (_, i) => i + 1)

function buildCall(fn: string, address: string) {
  return new TransactionBuilder(new Account(source, "1"), { fee: "100", networkPassphrase: Networks.TESTNET })
    .addOperation(new Contract(registryId).call(fn, Address.fromString(address).toScVal()))
    .setTimeout(30)
    .build()
}

describe("LoopbackRpc", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server

  beforeAll(async () => {
    loopback = await LoopbackRpc.start()
    server = new rpc.Server(loopback.url, { allowHttp: true })
    loopback.setAccount({
      id: source,
      sequence: 42n,
      thresholds: { master: 1, low: 1, medium: 2, high: 2 },
      signers: [{ key: cosigner, weight: 1 }]
    })
    loopback.register(registryId, registered, viewingKey)
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("answers getHealth, getNetwork and getLatestLedger", async () => {
    const health = await server.getHealth()
    expect(health.status).toBe("healthy")
    expect(health.latestLedger).toBeGreaterThanOrEqual(1000)
    expect((await server.getNetwork()).passphrase).toBe(Networks.TESTNET)
    const latest = await server.getLatestLedger()
    expect(latest.sequence).toBe(health.latestLedger)
    expect(latest.headerXdr.ledgerSeq).toBe(latest.sequence)
  })

  it("serves configured accounts through getAccount and getLedgerEntries", async () => {
    expect((await server.getAccount(source)).sequenceNumber()).toBe("42")

    const key = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(source).xdrPublicKey() }))
    const { entries } = await server.getLedgerEntries(key)
    expect(entries).toHaveLength(1)
    const data = entries[0]?.val
    if (data?.type !== "account") throw new Error("expected an account entry")
    expect([...data.account.thresholds.toBytes()]).toEqual([1, 1, 2, 2])
    expect(data.account.balance).toBe(100_000_000_000n)
    expect(data.account.signers).toHaveLength(1)
    const signer = data.account.signers[0]
    if (signer?.key.type !== "signerKeyTypeEd25519") throw new Error("expected an ed25519 signer")
    expect(signer.weight).toBe(1)
    expect(Address.account(signer.key.ed25519.toBytes()).toString()).toBe(cosigner)

    // raw JSON decoding, the way a non-SDK caller would do it
    const raw = await server._getLedgerEntries(key)
    const decoded = xdr.LedgerEntryData.fromXdr(raw.entries?.[0]?.xdr ?? "", "base64")
    expect(decoded.type).toBe("account")
  })

  it("reports unknown accounts as absent", async () => {
    const missing = Keypair.random().publicKey()
    const key = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(missing).xdrPublicKey() }))
    expect((await server.getLedgerEntries(key)).entries).toEqual([])
    await expect(server.getAccount(missing)).rejects.toThrow(/Account not found/)
  })

  it("simulates the registry's public_key for registered and unregistered addresses", async () => {
    const hit = await server.simulateTransaction(buildCall("public_key", registered))
    if (!rpc.Api.isSimulationSuccess(hit)) throw new Error("expected a successful simulation")
    expect(hit.result?.retval.equals(xdr.ScVal.scvBytes(viewingKey))).toBe(true)
    expect(hit.minResourceFee).toBe("100")

    const miss = await server.simulateTransaction(buildCall("public_key", unregistered))
    if (!rpc.Api.isSimulationSuccess(miss)) throw new Error("expected a successful simulation")
    expect(miss.result?.retval.type).toBe("scvVoid")
  })

  it("fails the simulation of an unknown function", async () => {
    const sim = await server.simulateTransaction(buildCall("no_such_fn", registered))
    expect(rpc.Api.isSimulationError(sim)).toBe(true)
    if (rpc.Api.isSimulationError(sim)) expect(sim.error).toMatch(/^HostError/)
  })

  it("answers unknown methods with -32601", async () => {
    const res = await fetch(loopback.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "nope" })
    })
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32601, message: "method not found" } })
  })

  it("injects http500 and drop faults", async () => {
    loopback.setFault({ kind: "http500" }, { times: 1 })
    await expect(server.getHealth()).rejects.toThrow()
    expect((await server.getHealth()).status).toBe("healthy")

    loopback.setFault({ kind: "drop" }, { methods: ["getNetwork"] })
    await expect(server.getNetwork()).rejects.toThrow()
    expect((await server.getHealth()).status).toBe("healthy")
    loopback.setFault(null)
    expect((await server.getNetwork()).passphrase).toBe(Networks.TESTNET)
    expect(loopback.calls.at(-1)?.method).toBe("getNetwork")
  })

  it("rejects with the JSON-RPC error object of an rpcError fault", async () => {
    loopback.setFault({ kind: "rpcError", code: -32000, message: "boom" }, { times: 1 })
    await expect(server.getHealth()).rejects.toEqual({ code: -32000, message: "boom" })
  })

  it("ends hanging requests on close", async () => {
    const other = await LoopbackRpc.start()
    other.setFault({ kind: "hang" })
    const pending = new rpc.Server(other.url, { allowHttp: true }).getHealth()
    while (other.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    await other.close()
    await expect(pending).rejects.toThrow()
  })
})

// ---- the ledger: sendTransaction / getTransaction with CAP-15 fee-bumps ----

const transferId = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => i + 7)).toString()
const INNER_FEE = 1001n // odd on purpose: the outer fee must be exactly 2x
const hex = (tx: Transaction | FeeBumpTransaction) => Buffer.from(tx.hash()).toString("hex")
const now = () => Math.floor(Date.now() / 1000)

/** A signed one-op invokeHostFunction transaction; `sequence` is the account's current sequence. */
function innerTx(signer: Keypair, sequence: bigint, options?: { source?: string; fee?: bigint; maxTime?: number; contract?: string }) {
  const source = options?.source ?? signer.publicKey()
  const tx = new TransactionBuilder(new Account(source, sequence.toString()), {
    fee: String(options?.fee ?? INNER_FEE),
    networkPassphrase: Networks.TESTNET,
    timebounds: { minTime: 0, maxTime: options?.maxTime ?? now() + 300 }
  })
    .addOperation(new Contract(options?.contract ?? transferId).call("confidential_transfer", xdr.ScVal.scvU32(42), Address.fromString(source).toScVal()))
    .build()
  tx.sign(signer)
  return tx
}

function feeBump(inner: Transaction, sponsor: Keypair, fee = 2n * BigInt(inner.fee)) {
  const tx = exactFeeBump(inner, sponsor.publicKey(), fee, Networks.TESTNET)
  tx.sign(sponsor)
  return tx
}

async function landed(server: rpc.Server, hash: string, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await server.getTransaction(hash)
    if (res.status !== rpc.Api.GetTransactionStatus.NOT_FOUND) return res
    if (Date.now() > deadline) throw new Error(`transaction ${hash} did not land`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("LoopbackRpc ledger", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server
  const fresh = (sequence = 100n) => {
    const kp = Keypair.random()
    loopback.setAccount({ id: kp.publicKey(), sequence })
    return kp
  }

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 20 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("closes ledgers on its clock and reports them everywhere", async () => {
    const first = (await server.getLatestLedger()).sequence
    await loopback.waitForLedger(first + 3)
    const latest = await server.getLatestLedger()
    expect(latest.sequence).toBeGreaterThanOrEqual(first + 3)
    expect((await server.getHealth()).latestLedger).toBeGreaterThanOrEqual(latest.sequence)
    const closedAt = loopback.closeTimeOf(latest.sequence)
    expect(closedAt).toBeLessThanOrEqual(Date.now())
    expect(Number(latest.closeTime)).toBe(Math.floor((closedAt ?? 0) / 1000))
  })

  it("applies a fee-bump paid by the sponsor: SUCCESS, inner sequence +1, only the sponsor pays", async () => {
    const user = fresh()
    const sponsor = fresh()
    const inner = innerTx(user, 100n)
    const bump = feeBump(inner, sponsor)
    expect(bump.fee).toBe("2002")
    const userBalance = loopback.account(user.publicKey())?.balance
    const sponsorBalance = loopback.account(sponsor.publicKey())?.balance ?? 0n

    const sent = await server.sendTransaction(bump)
    expect(sent.status).toBe("PENDING")
    expect(sent.hash).toBe(hex(bump))
    expect(sent.errorResult).toBeUndefined()
    expect(typeof sent.latestLedger).toBe("number")

    const res = await landed(server, sent.hash)
    if (res.status !== rpc.Api.GetTransactionStatus.SUCCESS) throw new Error(`expected SUCCESS, got ${res.status}`)
    expect(res.feeBump).toBe(true)
    expect(res.ledger).toBeGreaterThan(sent.latestLedger)
    expect(res.applicationOrder).toBe(1)
    expect(res.envelopeXdr.toXdr("base64")).toBe(bump.toXdr())
    const result = res.resultXdr.result
    if (result.type !== "txFeeBumpInnerSuccess") throw new Error(`expected txFeeBumpInnerSuccess, got ${result.type}`)
    expect(res.resultXdr.feeCharged).toBe(2002n)
    expect(Buffer.from(result.innerResultPair.transactionHash.toBytes()).toString("hex")).toBe(hex(inner))
    expect(result.innerResultPair.result.result.type).toBe("txSuccess")
    expect(res.resultMetaXdr.type).toBe("v4")
    expect(res.returnValue?.type).toBe("scvVoid")
    expect(loopback.closeTimeOf(res.ledger)).toBeLessThanOrEqual(Date.now())

    expect(loopback.account(user.publicKey())?.sequence).toBe(101n)
    expect(loopback.account(user.publicKey())?.balance).toBe(userBalance)
    expect(loopback.account(sponsor.publicKey())?.balance).toBe(sponsorBalance - 2002n)
    const record = loopback.transaction(sent.hash)
    expect(record?.status).toBe("SUCCESS")
    expect(record?.ledger).toBe(res.ledger)
    expect(record?.envelopeXdr).toBe(bump.toXdr())

    // resent after it applied: the sequence is used, so stellar-core says txBadSeq; nothing applies twice
    const again = await server.sendTransaction(bump)
    expect(again.status).toBe("ERROR")
    expect(again.errorResult?.result.type).toBe("txFeeBumpInnerFailed")
    if (again.errorResult === undefined) throw new Error("expected an errorResult")
    expect(innermostResultCode(again.errorResult)).toBe("txBadSeq")
    await loopback.waitForLedger(loopback.latestLedger + 2)
    expect(loopback.account(user.publicKey())?.sequence).toBe(101n)
    expect(loopback.account(sponsor.publicKey())?.balance).toBe(sponsorBalance - 2002n)
    expect(loopback.sendCount(sent.hash)).toBe(2)
    expect(loopback.calls.filter((c) => c.method === "sendTransaction" && (c.params as { transaction?: string }).transaction === bump.toXdr())).toHaveLength(2)
  })

  const errorOf = async (tx: Transaction | FeeBumpTransaction) => {
    const sent = await server.sendTransaction(tx)
    expect(sent.status).toBe("ERROR")
    if (sent.errorResult === undefined) throw new Error("expected an errorResult")
    return sent.errorResult
  }

  it("rejects a bad inner signature with txFeeBumpInnerFailed(txBadAuth)", async () => {
    const user = fresh()
    const inner = innerTx(Keypair.random(), 100n, { source: user.publicKey() })
    const error = await errorOf(feeBump(inner, fresh()))
    expect(error.result.type).toBe("txFeeBumpInnerFailed")
    expect(innermostResultCode(error)).toBe("txBadAuth")
  })

  it("rejects an outer fee below 2x the inner fee (one op) with txInsufficientFee", async () => {
    const inner = innerTx(fresh(), 100n)
    const error = await errorOf(feeBump(inner, fresh(), 2n * INNER_FEE - 1n))
    expect(error.result.type).toBe("txInsufficientFee")
    expect(error.feeCharged).toBe(2n * INNER_FEE) // the fee it would need
  })

  it("leaves the declared Soroban resource fee out of the CAP-15 rate, like stellar-core", async () => {
    const user = fresh()
    const sponsor = fresh()
    const inner = new TransactionBuilder(new Account(user.publicKey(), "100"), {
      fee: "1001", // inclusion fee; the builder adds the resource fee: inner fee 1502
      networkPassphrase: Networks.TESTNET,
      sorobanData: new SorobanDataBuilder().setResourceFee(501).build()
    })
      .addOperation(new Contract(transferId).call("confidential_transfer"))
      .setTimeout(300)
      .build()
    inner.sign(user)
    expect(inner.fee).toBe("1502")
    expect((await errorOf(feeBump(inner, sponsor, 2n * 1001n + 501n - 1n))).result.type).toBe("txInsufficientFee")
    const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor.publicKey(), "1001", inner, Networks.TESTNET)
    expect(bump.fee).toBe("2503") // 2 x 1001 + 501, less than 2 x the inner fee, and enough
    bump.sign(sponsor)
    expect((await server.sendTransaction(bump)).status).toBe("PENDING")
    expect((await landed(server, hex(bump))).status).toBe("SUCCESS")
  })

  it("rejects a fee source without the balance or the signature", async () => {
    const poor = Keypair.random()
    loopback.setAccount({ id: poor.publicKey(), balance: 2001n })
    expect((await errorOf(feeBump(innerTx(fresh(), 100n), poor))).result.type).toBe("txInsufficientBalance")
    const sponsor = fresh()
    const unsigned = exactFeeBump(innerTx(fresh(), 100n), sponsor.publicKey(), 2002n, Networks.TESTNET)
    unsigned.sign(Keypair.random())
    expect((await errorOf(unsigned)).result.type).toBe("txBadAuth")
  })

  it("rejects a bad sequence and expired time bounds inside the fee-bump", async () => {
    const user = fresh()
    const badSeq = feeBump(innerTx(user, 104n), fresh())
    expect(innermostResultCode(await errorOf(badSeq))).toBe("txBadSeq")
    expect(innermostResultCode(await errorOf(feeBump(innerTx(user, 100n, { maxTime: now() - 10 }), fresh())))).toBe("txTooLate")
    const record = loopback.transaction(hex(badSeq))
    expect(record?.status).toBe("NOT_ACCEPTED")
    expect(record?.sends.map((s) => [s.status, s.errorCode])).toEqual([["ERROR", "txFeeBumpInnerFailed(txBadSeq)"]])
  })

  it("answers a scripted TRY_AGAIN_LATER twice, then accepts", async () => {
    const bump = feeBump(innerTx(fresh(), 100n), fresh())
    loopback.scriptSend({ kind: "tryAgainLater" }, { times: 2 })
    expect((await server.sendTransaction(bump)).status).toBe("TRY_AGAIN_LATER")
    expect((await server.sendTransaction(bump)).status).toBe("TRY_AGAIN_LATER")
    expect((await server.sendTransaction(bump)).status).toBe("PENDING")
    expect(loopback.sendCount(hex(bump))).toBe(3)
    expect((await landed(server, hex(bump))).status).toBe("SUCCESS")
  })

  it("answers a scripted ERROR with a valid errorResultXdr", async () => {
    const bump = feeBump(innerTx(fresh(), 100n), fresh())
    loopback.scriptSend({ kind: "error", code: "txBadSeq" })
    expect((await errorOf(bump)).result.type).toBe("txBadSeq")
    loopback.scriptSend({ kind: "error", code: "txFeeBumpInnerFailed", innerCode: "txInsufficientBalance" })
    expect(innermostResultCode(await errorOf(bump))).toBe("txInsufficientBalance")
    expect((await server.sendTransaction(bump)).status).toBe("PENDING")
  })

  it("applies a scripted failure as FAILED: trapped host function, fee and sequence charged", async () => {
    const user = fresh()
    const sponsor = fresh()
    const before = loopback.account(sponsor.publicKey())?.balance ?? 0n
    const bump = feeBump(innerTx(user, 100n), sponsor)
    loopback.scriptSend({ kind: "failOnApply" })
    expect((await server.sendTransaction(bump)).status).toBe("PENDING")
    const res = await landed(server, hex(bump))
    expect(res.status).toBe("FAILED")
    if (res.status !== rpc.Api.GetTransactionStatus.FAILED) return
    const result = res.resultXdr.result
    if (result.type !== "txFeeBumpInnerFailed") throw new Error(`expected txFeeBumpInnerFailed, got ${result.type}`)
    const innerResult = result.innerResultPair.result.result
    if (innerResult.type !== "txFailed") throw new Error(`expected txFailed, got ${innerResult.type}`)
    const op = innerResult.results[0]
    if (op?.type !== "opInner" || op.tr.type !== "invokeHostFunction") throw new Error("expected an invokeHostFunction result")
    expect(op.tr.invokeHostFunctionResult.type).toBe("invokeHostFunctionTrapped")
    expect(loopback.account(user.publicKey())?.sequence).toBe(101n)
    expect(loopback.account(sponsor.publicKey())?.balance).toBe(before - 2002n)
  })

  it("never lands a scripted transaction: NOT_FOUND after several ledgers, nothing charged", async () => {
    const user = fresh()
    const sponsor = fresh()
    const before = loopback.account(sponsor.publicKey())?.balance
    const bump = feeBump(innerTx(user, 100n), sponsor)
    loopback.scriptSend({ kind: "neverLands" })
    const sent = await server.sendTransaction(bump)
    expect(sent.status).toBe("PENDING")
    await loopback.waitForLedger(sent.latestLedger + 5)
    expect((await server.getTransaction(sent.hash)).status).toBe("NOT_FOUND")
    expect(loopback.transaction(sent.hash)?.status).toBe("DROPPED")
    expect(loopback.account(user.publicKey())?.sequence).toBe(100n)
    expect(loopback.account(sponsor.publicKey())?.balance).toBe(before)
  })

  it("calls a registered contract handler with the arguments when applying", async () => {
    const contract = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 100 + i)).toString()
    const seen: Array<{ args: ReadonlyArray<xdr.ScVal>; source: string; phase: string }> = []
    loopback.setContractFunction(contract, "confidential_transfer", (args, ctx) => {
      seen.push({ args, ...ctx })
      return xdr.ScVal.scvU32(7)
    })
    const user = fresh()
    const bump = feeBump(innerTx(user, 100n, { contract }), fresh())
    await server.sendTransaction(bump)
    const res = await landed(server, hex(bump))
    if (res.status !== rpc.Api.GetTransactionStatus.SUCCESS) throw new Error(`expected SUCCESS, got ${res.status}`)
    expect(res.returnValue?.equals(xdr.ScVal.scvU32(7))).toBe(true)
    expect(seen).toHaveLength(1)
    expect(seen[0]?.phase).toBe("apply")
    expect(seen[0]?.source).toBe(user.publicKey())
    expect(seen[0]?.args[0]?.equals(xdr.ScVal.scvU32(42))).toBe(true)
    expect(Address.fromScVal(seen[0]?.args[1] ?? xdr.ScVal.scvVoid()).toString()).toBe(user.publicKey())
  })

  it("fails the transaction when the contract handler throws", async () => {
    const contract = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 200 - i)).toString()
    loopback.setContractFunction(contract, "confidential_transfer", () => { throw new Error("Error(Contract, #3)") })
    const bump = feeBump(innerTx(fresh(), 100n, { contract }), fresh())
    await server.sendTransaction(bump)
    expect((await landed(server, hex(bump))).status).toBe("FAILED")
  })
})

describe("LoopbackRpc ledger, closed by hand (ledgerIntervalMs: 0)", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("queues one transaction per account like stellar-core: DUPLICATE, TRY_AGAIN_LATER, replace-by-fee", async () => {
    const user = Keypair.random()
    const sponsor = Keypair.random()
    loopback.setAccount({ id: user.publicKey(), sequence: 7n })
    loopback.setAccount({ id: sponsor.publicKey() })
    const ledger = loopback.latestLedger
    const inner = innerTx(user, 7n)
    const first = feeBump(inner, sponsor)
    expect((await server.sendTransaction(first)).status).toBe("PENDING")
    expect((await server.sendTransaction(first)).status).toBe("DUPLICATE")
    expect((await server.sendTransaction(inner)).status).toBe("DUPLICATE") // its inner transaction
    expect((await server.sendTransaction(innerTx(user, 8n))).status).toBe("TRY_AGAIN_LATER")
    const cheap = await server.sendTransaction(feeBump(inner, sponsor, 3n * INNER_FEE))
    expect(cheap.status).toBe("ERROR")
    expect(cheap.errorResult?.result.type).toBe("txInsufficientFee")
    const rich = feeBump(inner, sponsor, 20n * INNER_FEE)
    expect((await server.sendTransaction(rich)).status).toBe("PENDING")

    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(loopback.latestLedger).toBe(ledger) // no clock
    expect((await server.getTransaction(hex(rich))).status).toBe("NOT_FOUND")
    expect(loopback.advanceLedger()).toBe(ledger + 1)
    expect((await server.getTransaction(hex(rich))).status).toBe("SUCCESS")
    expect((await server.getTransaction(hex(first))).status).toBe("NOT_FOUND")
    expect(loopback.transaction(hex(first))?.status).toBe("DROPPED")
    expect(loopback.account(user.publicKey())?.sequence).toBe(8n)
  })

  it("applies a plain transaction charging its source, and fails a stale sequence at apply time", async () => {
    const user = Keypair.random()
    loopback.setAccount({ id: user.publicKey(), sequence: 1n, balance: 1_000_000n })
    const tx = innerTx(user, 1n)
    const sent = await server.sendTransaction(tx)
    expect(sent.status).toBe("PENDING")
    loopback.setAccount({ id: user.publicKey(), sequence: 5n }) // someone else used the sequence
    loopback.advanceLedger()
    const res = await server.getTransaction(sent.hash)
    if (res.status !== rpc.Api.GetTransactionStatus.FAILED) throw new Error(`expected FAILED, got ${res.status}`)
    expect(res.feeBump).toBe(false)
    expect(res.resultXdr.result.type).toBe("txBadSeq")
    expect(loopback.account(user.publicKey())?.balance).toBe(1_000_000n - INNER_FEE)

    const ok = innerTx(user, 5n)
    expect((await server.sendTransaction(ok)).status).toBe("PENDING")
    loopback.advanceLedger()
    const done = await server.getTransaction(hex(ok))
    if (done.status !== rpc.Api.GetTransactionStatus.SUCCESS) throw new Error(`expected SUCCESS, got ${done.status}`)
    expect(done.resultXdr.result.type).toBe("txSuccess")
    expect(loopback.account(user.publicKey())?.sequence).toBe(6n)
    expect(loopback.account(user.publicKey())?.balance).toBe(1_000_000n - 2n * INNER_FEE)
  })

  it("speaks stellar-rpc's wire format: close times as strings, invalid XDR as -32602", async () => {
    const post = async (method: string, params: unknown) => {
      const res = await fetch(loopback.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
      })
      return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } }
    }
    const missing = await post("getTransaction", { hash: "ab".repeat(32) })
    expect(missing.result?.status).toBe("NOT_FOUND")
    expect(typeof missing.result?.latestLedgerCloseTime).toBe("string")
    expect(typeof missing.result?.oldestLedgerCloseTime).toBe("string")
    expect((await post("getTransaction", { hash: "ab" })).error?.code).toBe(-32602)
    expect((await post("sendTransaction", { transaction: "not xdr" })).error).toEqual({ code: -32602, message: "invalid_xdr" })
  })
})
