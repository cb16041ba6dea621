import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import {
  Account, Address, Contract, Keypair, Networks, Operation, SorobanDataBuilder, TransactionBuilder, authorizeEntry, rpc, scValToNative, xdr
} from "@stellar/stellar-sdk"
import type { FeeBumpTransaction, Transaction } from "@stellar/stellar-sdk"
import { structVal, transferData, transferPayload } from "./ConfidentialData.ts"
import { LoopbackRpc, exactFeeBump, innermostResultCode, tokenEvents } from "./LoopbackRpc.ts"

const source = Keypair.random().publicKey()
const cosigner = Keypair.random().publicKey()
const registered = Keypair.random().publicKey()
const unregistered = Keypair.random().publicKey()
const TOKEN = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 255 - i)).toString()
const NOWHERE = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 3 * i)).toString()
const viewingKey = Uint8Array.from({ length: 64 }, (_, i) => i + 1)
const spendingKey = Uint8Array.from({ length: 64 }, (_, i) => 200 - i)
const IDENTITY = new Uint8Array(64)

function buildCall(fn: string, ...args: Array<xdr.ScVal>) {
  return buildCallOn(TOKEN, fn, ...args)
}

function buildCallOn(contract: string, fn: string, ...args: Array<xdr.ScVal>) {
  return new TransactionBuilder(new Account(source, "1"), { fee: "100", networkPassphrase: Networks.TESTNET })
    .addOperation(new Contract(contract).call(fn, ...args))
    .setTimeout(30)
    .build()
}

const addr = (address: string) => Address.fromString(address).toScVal()

async function simulationError(server: rpc.Server, tx: Transaction): Promise<string> {
  const sim = await server.simulateTransaction(tx)
  if (!rpc.Api.isSimulationError(sim)) throw new Error("expected a failed simulation")
  return sim.error
}

/** The host's event log of a failed top-level call, newest first, as stellar-rpc returns it. */
const eventLog = (error: string, events: ReadonlyArray<string>) =>
  `HostError: ${error}\n\nEvent log (newest first):\n${events.map((e, i) => `   ${i}: ${e}\n`).join("")}`

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
    loopback.registerConfidential(TOKEN, registered, { viewingPublicKey: viewingKey, spendingPublicKey: spendingKey, auditorId: 7 })
    loopback.registerConfidential(TOKEN, source)
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

  it("simulates confidential_balance of a registered account: the ConfidentialAccount struct", async () => {
    const sim = await server.simulateTransaction(buildCall("confidential_balance", addr(registered)))
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error("expected a successful simulation")
    const retval = sim.result?.retval
    expect(retval?.equals(structVal({
      auditor_id: xdr.ScVal.scvU32(7),
      receiving_commitment: xdr.ScVal.scvBytes(IDENTITY),
      spendable_commitment: xdr.ScVal.scvBytes(IDENTITY),
      spending_public_key: xdr.ScVal.scvBytes(spendingKey),
      viewing_public_key: xdr.ScVal.scvBytes(viewingKey)
    }))).toBe(true)
    if (retval?.type !== "scvMap") throw new Error("expected a map")
    expect(retval.map?.map((e) => e.key.type === "scvSymbol" && e.key.sym.toString())).toEqual([
      "auditor_id", "receiving_commitment", "spendable_commitment", "spending_public_key", "viewing_public_key"
    ])
    expect(sim.result?.auth).toEqual([])
    expect(sim.minResourceFee).toBe("100")
    expect(loopback.confidentialAccount(TOKEN, registered)?.viewingPublicKey).toEqual(viewingKey)
  })

  it("answers AccountNotRegistered (#3501) for an unregistered account, with the host's event log", async () => {
    expect(await simulationError(server, buildCall("confidential_balance", addr(unregistered)))).toBe(eventLog("Error(Contract, #3501)", [
      `[Diagnostic Event] contract:${TOKEN}, topics:[error, Error(Contract, #3501)], data:"escalating error to VM trap from failed host function call: fail_with_error"`,
      `[Diagnostic Event] contract:${TOKEN}, topics:[error, Error(Contract, #3501)], data:["failing with contract error", 3501]`,
      `[Diagnostic Event] topics:[fn_call, ${TOKEN}, confidential_balance], data:${unregistered}`
    ]))
    loopback.registerConfidential(TOKEN, unregistered)
    expect(rpc.Api.isSimulationSuccess(await server.simulateTransaction(buildCall("confidential_balance", addr(unregistered))))).toBe(true)
    loopback.unregisterConfidential(TOKEN, unregistered)
    expect(await simulationError(server, buildCall("confidential_balance", addr(unregistered)))).toMatch(/^HostError: Error\(Contract, #3501\)\n/)
    expect(loopback.confidentialAccount(TOKEN, unregistered)).toBeUndefined()
  })

  it("fails a function the real contract does not have, and a contract that is not there, as the host does", async () => {
    expect(await simulationError(server, buildCall("public_key", addr(registered)))).toBe(eventLog("Error(WasmVm, MissingValue)", [
      `[Diagnostic Event] contract:${TOKEN}, topics:[error, Error(WasmVm, MissingValue)], data:["trying to invoke non-existent contract function", public_key]`,
      `[Diagnostic Event] topics:[fn_call, ${TOKEN}, public_key], data:${registered}`
    ]))
    expect(await simulationError(server, buildCallOn(NOWHERE, "confidential_balance", addr(registered)))).toBe(
      eventLog("Error(Storage, MissingValue)", [
        `[Diagnostic Event] topics:[error, Error(Storage, MissingValue)], data:"trying to get non-existing value for contract instance"`,
        `[Diagnostic Event] topics:[fn_call, ${NOWHERE}, confidential_balance], data:${registered}`
      ])
    )
  })

  it("fails a call with the wrong arguments as the contract's Wasm does", async () => {
    expect(await simulationError(server, buildCall("confidential_balance", addr(registered), addr(registered)))).toBe(
      eventLog("Error(WasmVm, UnexpectedSize)", [
        `[Diagnostic Event] contract:${TOKEN}, topics:[error, Error(WasmVm, UnexpectedSize)], data:["VM call failed: Func(MismatchingParameterLen)", confidential_balance]`,
        `[Diagnostic Event] topics:[fn_call, ${TOKEN}, confidential_balance], data:[${registered}, ${registered}]`
      ])
    )
    expect(await simulationError(server, buildCall("confidential_transfer", addr(source), addr(registered), xdr.ScVal.scvU32(5)))).toBe(
      eventLog("Error(WasmVm, InvalidAction)", [
        `[Diagnostic Event] contract:${TOKEN}, topics:[error, Error(WasmVm, InvalidAction)], data:["VM call trapped: UnreachableCodeReached", confidential_transfer]`,
        `[Diagnostic Event] topics:[fn_call, ${TOKEN}, confidential_transfer], data:[${source}, ${registered}, 5]`
      ])
    )
  })

  it("fails loudly the trait functions it does not emulate", async () => {
    for (const [fn, args] of [
      ["deposit", [addr(source), addr(registered), xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: 0n, lo: 1n }))]],
      ["merge", [addr(source)]],
      ["is_spender", [addr(source), addr(registered)]]
    ] as const) {
      const error = await simulationError(server, buildCall(fn, ...args))
      expect(error).toMatch(/^HostError: Error\(Context, InternalError\)\n/)
      expect(error).toContain(`data:["ConfidentialToken::${fn} is not emulated by the loopback RPC", ${fn}]`)
    }
    expect(await simulationError(server, buildCall("withdraw"))).toMatch(/^HostError: Error\(WasmVm, UnexpectedSize\)\n/)
  })

  it("records confidential_transfer's require_auth in simulation: source-account credentials for the source, else address credentials", async () => {
    const data = xdr.ScVal.scvBytes(transferData(100))
    const mine = await server.simulateTransaction(buildCall("confidential_transfer", addr(source), addr(registered), data))
    if (!rpc.Api.isSimulationSuccess(mine)) throw new Error(`expected a successful simulation: ${JSON.stringify(mine)}`)
    expect(mine.result?.retval.type).toBe("scvVoid")
    const [own, ...more] = mine.result?.auth ?? []
    expect(more).toEqual([])
    expect(own?.credentials.type).toBe("sorobanCredentialsSourceAccount")
    const fn = own?.rootInvocation.function
    if (fn?.type !== "sorobanAuthorizedFunctionTypeContractFn") throw new Error("expected a contract function")
    expect(Address.fromScAddress(fn.contractFn.contractAddress).toString()).toBe(TOKEN)
    expect(fn.contractFn.functionName.toString()).toBe("confidential_transfer")
    expect(fn.contractFn.args[2]?.equals(data)).toBe(true)
    expect(own?.rootInvocation.subInvocations).toEqual([])

    const theirs = await server.simulateTransaction(buildCall("confidential_transfer", addr(registered), addr(source), data))
    if (!rpc.Api.isSimulationSuccess(theirs)) throw new Error("expected a successful simulation")
    const credentials = theirs.result?.auth[0]?.credentials
    if (credentials?.type !== "sorobanCredentialsAddress") throw new Error(`expected address credentials, got ${credentials?.type}`)
    expect(Address.fromScAddress(credentials.address.address).toString()).toBe(registered)
    expect(credentials.address.signature.type).toBe("scvVoid")
    expect(credentials.address.signatureExpirationLedger).toBe(0)
    // a simulation changes nothing
    expect(loopback.confidentialAccount(TOKEN, source)?.spendableCommitment).toEqual(IDENTITY)
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

/** The invokeHostFunction result code of a failed transaction's (inner) first operation. */
function trappedOp(result: xdr.TransactionResult): string {
  const r = result.result
  const inner = r.type === "txFeeBumpInnerFailed" ? r.innerResultPair.result.result : r
  if (inner.type !== "txFailed") throw new Error(`expected txFailed, got ${inner.type}`)
  const op = inner.results[0]
  if (op?.type !== "opInner" || op.tr.type !== "invokeHostFunction") throw new Error("expected an invokeHostFunction result")
  return op.tr.invokeHostFunctionResult.type
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
    loopback.setContractFunction(transferId, "confidential_transfer", () => xdr.ScVal.scvVoid())
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
    const seen: Array<{ args: ReadonlyArray<xdr.ScVal>; source: string; phase: string; contractId: string; fn: string; ledger: number }> = []
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
    expect(seen[0]?.contractId).toBe(contract)
    expect(seen[0]?.fn).toBe("confidential_transfer")
    expect(seen[0]?.ledger).toBe(res.ledger)
    expect(seen[0]?.args[0]?.equals(xdr.ScVal.scvU32(42))).toBe(true)
    expect(Address.fromScVal(seen[0]?.args[1] ?? xdr.ScVal.scvVoid()).toString()).toBe(user.publicKey())
  })

  it("fails the transaction when the contract handler throws", async () => {
    const contract = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 200 - i)).toString()
    loopback.setContractFunction(contract, "confidential_transfer", () => { throw new Error("Error(Contract, #3)") })
    const bump = feeBump(innerTx(fresh(), 100n, { contract }), fresh())
    await server.sendTransaction(bump)
    expect((await landed(server, hex(bump))).status).toBe("FAILED")
    expect(loopback.transaction(hex(bump))?.hostError).toMatch(/^HostError: Error\(Contract, #3\)\n/)
  })

  it("fails at apply a call to a contract that is not there or a function it does not have", async () => {
    const contract = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => 90 + i)).toString()
    const missing = feeBump(innerTx(fresh(), 100n, { contract }), fresh())
    await server.sendTransaction(missing)
    expect((await landed(server, hex(missing))).status).toBe("FAILED")
    expect(loopback.transaction(hex(missing))?.hostError).toMatch(/^HostError: Error\(Storage, MissingValue\)\n/)

    loopback.setContractFunction(contract, "balance", () => xdr.ScVal.scvU32(0))
    const unknown = feeBump(innerTx(fresh(), 100n, { contract }), fresh())
    await server.sendTransaction(unknown)
    const res = await landed(server, hex(unknown))
    if (res.status !== rpc.Api.GetTransactionStatus.FAILED) throw new Error(`expected FAILED, got ${res.status}`)
    expect(trappedOp(res.resultXdr)).toBe("invokeHostFunctionTrapped")
    expect(loopback.transaction(hex(unknown))?.hostError).toContain(`"trying to invoke non-existent contract function", confidential_transfer]`)
  })
})

describe("LoopbackRpc ledger, closed by hand (ledgerIntervalMs: 0)", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
    loopback.setContractFunction(transferId, "confidential_transfer", () => xdr.ScVal.scvVoid())
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

// ---- the confidential token at ledger close, and a lagging node ----

/** A `confidential_transfer(from, to, data)` transaction sourced by `signer`, unsigned and without auth entries. */
async function transferCall(server: rpc.Server, signer: Keypair, from: string, to: string, data: Uint8Array, contract = TOKEN) {
  return new TransactionBuilder(await server.getAccount(signer.publicKey()), { fee: "1000", networkPassphrase: Networks.TESTNET })
    .addOperation(new Contract(contract).call("confidential_transfer", addr(from), addr(to), xdr.ScVal.scvBytes(data)))
    .setTimeout(60)
    .build()
}

/** The same call, authorized for its source account by an entry built by hand (no simulation). */
async function sourceAuthorized(server: rpc.Server, signer: Keypair, to: string, data: Uint8Array) {
  const call = await transferCall(server, signer, signer.publicKey(), to, data)
  const op = call.operations[0]
  if (op?.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") throw new Error("expected a contract call")
  const auth = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(op.func.invokeContract),
      subInvocations: []
    })
  })
  const tx = new TransactionBuilder(await server.getAccount(signer.publicKey()), { fee: "1000", networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: [auth] }))
    .setTimeout(60)
    .build()
  tx.sign(signer)
  return tx
}

/** A field of a contracttype struct's ScMap. */
function field(v: xdr.ScVal, name: string): xdr.ScVal {
  if (v.type !== "scvMap") throw new Error(`expected a map, got ${v.type}`)
  const entry = v.map?.find((e) => e.key.type === "scvSymbol" && e.key.sym.toString() === name)
  if (entry === undefined) throw new Error(`no field ${name}`)
  return entry.val
}

const bytes = (v: xdr.ScVal): Uint8Array => {
  if (v.type !== "scvBytes") throw new Error(`expected bytes, got ${v.type}`)
  return v.bytes.toBytes()
}

describe("LoopbackRpc confidential token at ledger close", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server
  const member = () => {
    const kp = Keypair.random()
    loopback.setAccount({ id: kp.publicKey() })
    loopback.registerConfidential(TOKEN, kp.publicKey())
    return kp
  }
  const apply = async (tx: Transaction) => {
    const sent = await server.sendTransaction(tx)
    expect(sent.status).toBe("PENDING")
    loopback.advanceLedger()
    const res = await server.getTransaction(sent.hash)
    if (res.status === rpc.Api.GetTransactionStatus.NOT_FOUND) throw new Error("expected the transaction to have applied")
    return { res, record: loopback.transaction(sent.hash) }
  }

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
    loopback.deployConfidentialToken(TOKEN)
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("applies a realistic ~16 KB transfer authorized through simulation: the sender's spendable and the recipient's receiving commitments move", async () => {
    const sender = member()
    const recipient = member()
    const data = transferData()
    const tx = await server.prepareTransaction(await transferCall(server, sender, sender.publicKey(), recipient.publicKey(), data))
    tx.sign(sender)
    expect(tx.toEnvelope().toXdr().length).toBeGreaterThan(15_000)
    const { res } = await apply(tx)
    if (res.status !== rpc.Api.GetTransactionStatus.SUCCESS) throw new Error(`expected SUCCESS, got ${res.status}: ${loopback.transaction(res.txHash)?.hostError}`)
    expect(res.returnValue?.type).toBe("scvVoid")
    const payload = field(xdr.ScVal.fromXdr(data), "payload")
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.spendableCommitment).toEqual(bytes(field(payload, "c_spend_new")))
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.receivingCommitment).toEqual(IDENTITY)
    expect(loopback.confidentialAccount(TOKEN, recipient.publicKey())?.receivingCommitment).toEqual(bytes(field(payload, "c_tx")))

    // a second transfer to the same recipient folds into a non-identity commitment: it changes again
    const before = loopback.confidentialAccount(TOKEN, recipient.publicKey())?.receivingCommitment
    const again = await server.prepareTransaction(await transferCall(server, sender, sender.publicKey(), recipient.publicKey(), transferData(64)))
    again.sign(sender)
    expect((await apply(again)).res.status).toBe(rpc.Api.GetTransactionStatus.SUCCESS)
    const after = loopback.confidentialAccount(TOKEN, recipient.publicKey())?.receivingCommitment
    expect(after).toHaveLength(64)
    expect(after).not.toEqual(before)
  })

  it("fails a transfer with no authorization entry: FAILED, Unauthorized function call, nothing moves", async () => {
    const sender = member()
    const recipient = member()
    const tx = await transferCall(server, sender, sender.publicKey(), recipient.publicKey(), transferData(64))
    tx.sign(sender)
    const { res, record } = await apply(tx)
    if (res.status !== rpc.Api.GetTransactionStatus.FAILED) throw new Error(`expected FAILED, got ${res.status}`)
    expect(trappedOp(res.resultXdr)).toBe("invokeHostFunctionTrapped")
    expect(record?.hostError).toMatch(/^HostError: Error\(Auth, InvalidAction\)\n/)
    expect(record?.hostError).toContain(`data:["Unauthorized function call for address", ${sender.publicKey()}]`)
    expect(record?.hostError).toContain(`data:"escalating error to VM trap from failed host function call: require_auth"`)
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.spendableCommitment).toEqual(IDENTITY)
    expect(loopback.account(sender.publicKey())?.sequence).toBe((1n << 32n) + 1n) // the sequence and fee are spent
  })

  it("accepts address credentials signed by `from` in a transaction another account sends, once per nonce", async () => {
    const owner = member()
    const relayer = member()
    const recipient = member()
    const call = await transferCall(server, relayer, owner.publicKey(), recipient.publicKey(), transferData(64))
    const sim = await server.simulateTransaction(call)
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error("expected a successful simulation")
    const [entry] = sim.result?.auth ?? []
    if (entry === undefined) throw new Error("expected an auth entry")
    const op = call.operations[0]
    if (op?.type !== "invokeHostFunction") throw new Error("expected invokeHostFunction")
    const send = async (auth: Array<xdr.SorobanAuthorizationEntry>) => {
      const tx = new TransactionBuilder(await server.getAccount(relayer.publicKey()), {
        fee: "1000", networkPassphrase: Networks.TESTNET, sorobanData: sim.transactionData.build()
      })
        .addOperation(Operation.invokeHostFunction({ func: op.func, auth }))
        .setTimeout(60)
        .build()
      tx.sign(relayer)
      return apply(tx)
    }

    const unsigned = await send([entry])
    expect(unsigned.res.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(unsigned.record?.hostError).toContain(`data:["failed account authentication with error", ${owner.publicKey()}, Error(Value, UnexpectedType)]`)

    const byStranger = await authorizeEntry(entry, Keypair.random(), loopback.latestLedger + 10, Networks.TESTNET, owner.publicKey())
    const stranger = await send([byStranger])
    expect(stranger.res.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(stranger.record?.hostError).toContain(`data:["signer does not belong to account", Bytes(`)

    const signed = await authorizeEntry(entry, owner, loopback.latestLedger + 10, Networks.TESTNET)
    const ok = await send([signed])
    expect(ok.res.status).toBe(rpc.Api.GetTransactionStatus.SUCCESS)
    expect(loopback.confidentialAccount(TOKEN, owner.publicKey())?.spendableCommitment).not.toEqual(IDENTITY)

    const replay = await send([signed])
    expect(replay.res.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(replay.record?.hostError).toMatch(/^HostError: Error\(Auth, ExistingValue\)\n/)

    const expired = await authorizeEntry(entry, owner, loopback.latestLedger, Networks.TESTNET)
    const late = await send([expired])
    expect(late.res.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(late.record?.hostError).toMatch(/^HostError: Error\(Auth, InvalidInput\)\n/)
    expect(late.record?.hostError).toContain(`data:["signature has expired", ${owner.publicKey()}, `)
  })

  it("fails a transfer to an unregistered recipient: FAILED with AccountNotRegistered (#3501), nothing moves", async () => {
    const sender = member()
    const stranger = Keypair.random().publicKey()
    const tx = await sourceAuthorized(server, sender, stranger, transferData(64))
    const { res, record } = await apply(tx)
    if (res.status !== rpc.Api.GetTransactionStatus.FAILED) throw new Error(`expected FAILED, got ${res.status}`)
    expect(trappedOp(res.resultXdr)).toBe("invokeHostFunctionTrapped")
    expect(record?.hostError).toMatch(/^HostError: Error\(Contract, #3501\)\n\nEvent log \(newest first\):\n/)
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.spendableCommitment).toEqual(IDENTITY)
    expect(loopback.confidentialAccount(TOKEN, stranger)).toBeUndefined()

    // in simulation, through the stock client
    const sim = await server.simulateTransaction(await transferCall(server, sender, sender.publicKey(), stranger, transferData(64)))
    expect(rpc.Api.isSimulationError(sim) && sim.error.startsWith("HostError: Error(Contract, #3501)\n")).toBe(true)
  })

  it("fails data that is not a TransferData: InvalidData (#3507); bytes that are no ScVal fail in the host's deserialization", async () => {
    const sender = member()
    const recipient = member()
    const shortPoint = structVal({
      payload: structVal({ ...Object.fromEntries(transferPayloadFields()), c_tx: xdr.ScVal.scvBytes(new Uint8Array(63)) }),
      proof: xdr.ScVal.scvBytes(new Uint8Array(100))
    }).toXDR()
    for (const data of [shortPoint, structVal({ payload: xdr.ScVal.scvU32(1), proof: xdr.ScVal.scvBytes(new Uint8Array(1)) }).toXDR()]) {
      const { res, record } = await apply(await sourceAuthorized(server, sender, recipient.publicKey(), data))
      expect(res.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
      expect(record?.hostError).toMatch(/^HostError: Error\(Contract, #3507\)\n/)
      expect(record?.hostError).toContain(`data:["failing with contract error", 3507]`)
    }
    const junk = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3])
    const { res, record } = await apply(await sourceAuthorized(server, sender, recipient.publicKey(), junk))
    expect(res.status).toBe(rpc.Api.GetTransactionStatus.FAILED)
    expect(record?.hostError).toMatch(/^HostError: Error\(Value, InvalidInput\)\n/)
    expect(record?.hostError).toContain(`"escalating error to VM trap from failed host function call: deserialize_from_bytes"`)
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.spendableCommitment).toEqual(IDENTITY)

    const sim = await server.simulateTransaction(await transferCall(server, sender, sender.publicKey(), recipient.publicKey(), shortPoint))
    if (!rpc.Api.isSimulationError(sim)) throw new Error("expected a failed simulation")
    expect(sim.error).toMatch(/^HostError: Error\(Contract, #3507\)\n/)
  })

  it("applies a call to public_key, which the real contract does not have, as FAILED", async () => {
    const caller = member()
    const tx = new TransactionBuilder(await server.getAccount(caller.publicKey()), { fee: "1000", networkPassphrase: Networks.TESTNET })
      .addOperation(new Contract(TOKEN).call("public_key", addr(caller.publicKey())))
      .setTimeout(60)
      .build()
    tx.sign(caller)
    const { res, record } = await apply(tx)
    if (res.status !== rpc.Api.GetTransactionStatus.FAILED) throw new Error(`expected FAILED, got ${res.status}`)
    expect(trappedOp(res.resultXdr)).toBe("invokeHostFunctionTrapped")
    expect(record?.hostError).toBe(eventLog("Error(WasmVm, MissingValue)", [
      `[Diagnostic Event] contract:${TOKEN}, topics:[error, Error(WasmVm, MissingValue)], data:["trying to invoke non-existent contract function", public_key]`,
      `[Diagnostic Event] topics:[fn_call, ${TOKEN}, public_key], data:${caller.publicKey()}`
    ]))
  })
})

/** The fields of a well-formed TransferPayload, as [name, value] pairs. */
function transferPayloadFields(): Array<[string, xdr.ScVal]> {
  const payload = transferPayload()
  if (payload.type !== "scvMap") throw new Error("expected a map")
  return (payload.map ?? []).map((e) => [e.key.type === "scvSymbol" ? e.key.sym.toString() : "", e.val])
}

describe("LoopbackRpc lagging behind the network", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
  })

  afterEach(() => {
    vi.useRealTimers()
    loopback.lag(null)
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("answers as of the old ledger while the network closes ledgers and applies what it was sent", async () => {
    const sender = Keypair.random()
    const recipient = Keypair.random().publicKey()
    loopback.setAccount({ id: sender.publicKey(), sequence: 10n })
    loopback.registerConfidential(TOKEN, sender.publicKey())
    loopback.registerConfidential(TOKEN, recipient)
    loopback.advanceLedger()
    const asOf = loopback.latestLedger
    loopback.lag(asOf)
    expect(loopback.lagging).toBe(asOf)
    expect(loopback.advanceLedger(3)).toBe(asOf + 3)

    expect((await server.getLatestLedger()).sequence).toBe(asOf)
    expect((await server.getHealth()).latestLedger).toBe(asOf)
    const tx = await server.prepareTransaction(await transferCall(server, sender, sender.publicKey(), recipient, transferData(64)))
    tx.sign(sender)
    const sent = await server.sendTransaction(tx)
    expect(sent.status).toBe("PENDING")
    expect(sent.latestLedger).toBe(asOf)
    expect(loopback.advanceLedger()).toBe(asOf + 4)
    expect(loopback.transaction(sent.hash)?.status).toBe("SUCCESS") // the network applied it

    const behind = await server.getTransaction(sent.hash)
    expect(behind.status).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND)
    expect(behind.latestLedger).toBe(asOf)
    expect((await server.getAccount(sender.publicKey())).sequenceNumber()).toBe("10") // the state of that ledger too
    expect(loopback.account(sender.publicKey())?.sequence).toBe(11n)
    const stale = await server.simulateTransaction(buildCallOn(TOKEN, "confidential_balance", addr(sender.publicKey())))
    if (!rpc.Api.isSimulationSuccess(stale)) throw new Error("expected a successful simulation")
    expect(stale.latestLedger).toBe(asOf)
    expect(bytes(field(stale.result!.retval, "spendable_commitment"))).toEqual(IDENTITY)
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.spendableCommitment).not.toEqual(IDENTITY)

    loopback.lag(null)
    expect(loopback.lagging).toBeNull()
    const caughtUp = await server.getTransaction(sent.hash)
    if (caughtUp.status !== rpc.Api.GetTransactionStatus.SUCCESS) throw new Error(`expected SUCCESS, got ${caughtUp.status}`)
    expect(caughtUp.ledger).toBe(asOf + 4)
    expect(caughtUp.latestLedger).toBe(asOf + 4)
    expect((await server.getLatestLedger()).sequence).toBe(asOf + 4)
    expect((await server.getAccount(sender.publicKey())).sequenceNumber()).toBe("11")
  })

  it("turns unhealthy, as stellar-rpc does, once its ledger closed more than 30 s ago", async () => {
    loopback.advanceLedger()
    loopback.lag(loopback.latestLedger)
    expect((await server.getHealth()).status).toBe("healthy")
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(Date.now() + 45_000)
    await expect(server.getHealth()).rejects.toMatchObject({
      code: -32603, message: expect.stringMatching(/^latency \(4[56]s\) since last known ledger closed is too high \(>30s\)$/)
    })
    vi.useRealTimers()
    loopback.lag(null)
    loopback.advanceLedger()
    expect((await server.getHealth()).status).toBe("healthy")
  })

  it("lags only at a ledger the network closed", () => {
    expect(() => loopback.lag(loopback.latestLedger + 1)).toThrow(RangeError)
    expect(() => loopback.lag(999)).toThrow(RangeError)
    expect(loopback.lagging).toBeNull()
  })
})

describe("LoopbackRpc getEvents (stellar-rpc's getEvents over the token's #[contractevent] events)", () => {
  let node: LoopbackRpc
  let client: rpc.Server
  beforeAll(async () => {
    node = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    client = new rpc.Server(node.url, { allowHttp: true })
  })
  afterAll(() => node.close())

  it("publishes register as the macro encodes it, serves pages by cursor, filters by contract and topic, and refuses ledgers outside retention", async () => {
    const a = Keypair.random().publicKey()
    const b = Keypair.random().publicKey()
    const start = node.latestLedger + 1
    node.registerConfidentialWithEvent(TOKEN, a, { auditorId: 5 })
    node.publishEvents(NOWHERE, [{ topics: [xdr.ScVal.scvSymbol("other")], data: xdr.ScVal.scvVoid() }])
    node.advanceLedger()
    node.publishEvents(TOKEN, [tokenEvents.merge(a), tokenEvents.deposit(b, a, 10n)])
    const last = node.advanceLedger()

    const all = await client.getEvents({ startLedger: start, filters: [{ type: "contract", contractIds: [TOKEN] }], limit: 10 })
    expect(all.events.map((e) => [e.ledger, scValToNative(e.topic[0]!)])).toEqual([[start, "register"], [last, "merge"], [last, "deposit"]])
    const [register] = all.events
    expect(Address.fromScVal(register!.topic[1]!).toString()).toBe(a)
    expect(scValToNative(register!.value)).toEqual({ auditor_id: 5 })
    expect(all.latestLedger).toBe(last)
    expect(all.cursor.endsWith("-4294967295")).toBe(true)
    const [merge, deposit] = all.events.slice(1)
    expect(merge!.txHash).toBe(deposit!.txHash)
    expect([merge!.id.slice(-1), deposit!.id.slice(-1)]).toEqual(["0", "1"])

    const first = await client.getEvents({ startLedger: start, filters: [{ contractIds: [TOKEN] }], limit: 2 })
    expect(first.events.map((e) => e.id)).toEqual(all.events.slice(0, 2).map((e) => e.id))
    expect(first.cursor).toBe(all.events[1]!.id)
    const next = await client.getEvents({ cursor: first.cursor, filters: [{ contractIds: [TOKEN] }], limit: 2 })
    expect(next.events.map((e) => e.id)).toEqual([all.events[2]!.id])

    const merges = await client.getEvents({ startLedger: start, filters: [{ topics: [[xdr.ScVal.scvSymbol("merge").toXDR("base64"), "*"]] }] })
    expect(merges.events.map((e) => e.id)).toEqual([merge!.id])

    node.setRetention(1)
    await expect(client.getEvents({ startLedger: start, filters: [] })).rejects.toMatchObject({
      code: -32600,
      message: `startLedger must be within the ledger range: ${last} - ${last}`
    })
    node.setRetention(120_960)
  })

  it("puts the confidential_transfer's transfer event in the transaction meta and in getEvents", async () => {
    const token = Address.contract(Uint8Array.from({ length: 32 }, (_, i) => i + 9)).toString()
    const wallet = Keypair.random()
    const to = Keypair.random().publicKey()
    node.setAccount({ id: wallet.publicKey() })
    node.registerConfidential(token, wallet.publicKey())
    node.registerConfidential(token, to)
    const args = [addr(wallet.publicKey()), addr(to), xdr.ScVal.scvBytes(transferData())]
    const tx = new TransactionBuilder(new Account(wallet.publicKey(), node.account(wallet.publicKey())!.sequence.toString()), {
      fee: "1000", networkPassphrase: Networks.TESTNET
    }).addOperation(new Contract(token).call("confidential_transfer", ...args)).setTimeout(60).build()
    const prepared = await client.prepareTransaction(tx)
    prepared.sign(wallet)
    const sent = await client.sendTransaction(prepared)
    expect(sent.status).toBe("PENDING")
    const ledger = node.advanceLedger()
    const landed = node.transaction(sent.hash)!
    expect(landed.status).toBe("SUCCESS")
    expect(landed.events.map((e) => scValToNative(e.topics[0]!))).toEqual(["transfer"])
    const meta = xdr.TransactionMeta.fromXdr(landed.resultMetaXdr!, "base64")
    expect(meta.type === "v4" ? meta.v4.operations[0]!.events.length : -1).toBe(1)
    const events = await client.getEvents({ startLedger: ledger, filters: [{ contractIds: [token] }] })
    expect(events.events).toHaveLength(1)
    expect(events.events[0]!.txHash).toBe(sent.hash)
    expect(Object.keys(scValToNative(events.events[0]!.value)).sort()).toEqual([
      "b_tilde", "b_tilde_aud_s", "r_e_point", "r_tilde_aud_r", "sigma", "v_tilde", "v_tilde_aud_r", "v_tilde_aud_s"
    ])
  })
})
