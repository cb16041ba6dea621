import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Account, Address, Contract, Keypair, Networks, TransactionBuilder, rpc, xdr } from "@stellar/stellar-sdk"
import { LoopbackRpc } from "./LoopbackRpc.ts"

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
