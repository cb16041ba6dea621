import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Account, Address, Contract, Keypair, Networks, TransactionBuilder, rpc, scValToNative, xdr } from "@stellar/stellar-sdk"
import fc from "fast-check"
import { structVal, transferData, transferPayload } from "./ConfidentialData.ts"
import { confidentialEvents, randomEventFields } from "./ConfidentialEvents.ts"
import { EVENT_BYTES_FIELDS, TOKEN_VERSIONS, TRANSFER_AMOUNT_FIELD, TRANSFER_PAYLOAD, type TokenVersion } from "./ConfidentialTokenVersion.ts"
import { LoopbackRpc } from "./LoopbackRpc.ts"

// The emulation of each version of OpenZeppelin's confidential token (ConfidentialTokenVersion.ts), through a stock
// @stellar/stellar-sdk rpc.Server against the loopback: what it takes as `TransferData`, what it publishes, what its
// compliance controls and auditor registry refuse.

const addr = (address: string) => Address.fromString(address).toScVal()
const contractId = (seed: number) => Address.contract(Uint8Array.from({ length: 32 }, (_, i) => (seed * 31 + i) % 256)).toString()
const other = (version: TokenVersion) => TOKEN_VERSIONS.find((v) => v !== version)!

const entriesOf = (v: xdr.ScVal): Array<xdr.ScMapEntry> => (v.type === "scvMap" ? v.map ?? [] : [])
const mapKeys = (v: xdr.ScVal): Array<string> => entriesOf(v).map((e) => scValToNative(e.key) as string)
const field = (v: xdr.ScVal, name: string): Uint8Array => {
  const entry = entriesOf(v).find((e) => scValToNative(e.key) === name)
  if (entry?.val.type !== "scvBytes") throw new Error(`no bytes field ${name}`)
  return entry.val.bytes.toBytes()
}

describe.each(TOKEN_VERSIONS)("the confidential token emulation at %s", (version) => {
  const TOKEN = contractId(TOKEN_VERSIONS.indexOf(version) + 1)
  let loopback: LoopbackRpc
  let server: rpc.Server

  const member = (auditorId = 0) => {
    const kp = Keypair.random()
    loopback.setAccount({ id: kp.publicKey() })
    loopback.registerConfidential(TOKEN, kp.publicKey(), { auditorId })
    return kp
  }
  /** `confidential_transfer(from = signer, to, data)`, simulated (for its footprint and auth) and signed. */
  const prepared = async (signer: Keypair, to: string, data: Uint8Array) => {
    const call = new TransactionBuilder(await server.getAccount(signer.publicKey()), { fee: "1000", networkPassphrase: Networks.TESTNET })
      .addOperation(new Contract(TOKEN).call("confidential_transfer", addr(signer.publicKey()), addr(to), xdr.ScVal.scvBytes(data)))
      .setTimeout(60)
      .build()
    return server.simulateTransaction(call).then((sim) => ({ call, sim }))
  }
  const refusal = async (signer: Keypair, to: string, data: Uint8Array) => {
    const { sim } = await prepared(signer, to, data)
    if (!rpc.Api.isSimulationError(sim)) throw new Error("expected a failed simulation")
    return sim.error
  }
  const land = async (signer: Keypair, to: string, data: Uint8Array) => {
    const { call, sim } = await prepared(signer, to, data)
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(`expected a simulation to succeed: ${rpc.Api.isSimulationError(sim) ? sim.error : ""}`)
    const tx = rpc.assembleTransaction(call, sim).build()
    tx.sign(signer)
    const sent = await server.sendTransaction(tx)
    loopback.advanceLedger()
    return loopback.transaction(sent.hash)!
  }

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
    expect(loopback.deployConfidentialToken(TOKEN, { version }).version).toBe(version)
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("takes its own TransferData: the sender's spendable and the recipient's receiving commitment move, and its transfer event is published", async () => {
    const sender = member()
    const recipient = member()
    const data = transferData({ version })
    const landed = await land(sender, recipient.publicKey(), data)
    expect(landed.status).toBe("SUCCESS")
    const payload = entriesOf(xdr.ScVal.fromXDR(Buffer.from(data))).find((e) => scValToNative(e.key) === "payload")!.val
    expect(loopback.confidentialAccount(TOKEN, sender.publicKey())?.spendableCommitment).toEqual(field(payload, "c_spend_new"))
    expect(loopback.confidentialAccount(TOKEN, recipient.publicKey())?.receivingCommitment).toEqual(field(payload, TRANSFER_AMOUNT_FIELD[version]))
    const [event, ...more] = landed.events
    expect(more).toEqual([])
    expect(event!.topics.map((t) => scValToNative(t))).toEqual(["transfer", sender.publicKey(), recipient.publicKey()])
    expect(mapKeys(event!.data)).toEqual([...EVENT_BYTES_FIELDS[version].transfer].sort())
    for (const name of EVENT_BYTES_FIELDS[version].transfer) expect(field(event!.data, name)).toEqual(field(payload, name))
  })

  it(`refuses the other version's TransferData, and any field missing, extra or misnamed, with InvalidData (#3507)`, async () => {
    const sender = member()
    const recipient = member().publicKey()
    const payload = transferPayload(version)
    const entries = entriesOf(payload)
    const withPayload = (fields: Array<xdr.ScMapEntry>) => structVal({ payload: xdr.ScVal.scvMap(fields), proof: xdr.ScVal.scvBytes(new Uint8Array(8)) }).toXDR()
    const extra = [...entries, new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("z_extra"), val: xdr.ScVal.scvBytes(new Uint8Array(32)) })]
    const cases = [transferData({ version: other(version), proofBytes: 64 }), withPayload(entries.slice(1)), withPayload(extra)]
    for (const data of cases) expect(await refusal(sender, recipient, data)).toMatch(/^HostError: Error\(Contract, #3507\)\n/)
    const landed = await land(sender, recipient, transferData({ version, proofBytes: 64 }))
    expect(landed.status).toBe("SUCCESS")
  })

  it("gates both parties once compliance is configured: a frozen one is AccountFrozen (#3601); freeze and unfreeze publish their events", async () => {
    const token = loopback.deployConfidentialToken(TOKEN)
    const sender = member()
    const recipient = member()
    expect(() => token.freeze(recipient.publicKey())).toThrow(/Error\(Contract, #3600\)/)
    token.setComplianceConfig()
    token.freeze(recipient.publicKey())
    expect(await refusal(sender, recipient.publicKey(), transferData({ version, proofBytes: 64 }))).toMatch(/^HostError: Error\(Contract, #3601\)\n/)
    token.unfreeze(recipient.publicKey())
    expect((await land(sender, recipient.publicKey(), transferData({ version, proofBytes: 64 }))).status).toBe("SUCCESS")
    const published = loopback.events.filter((e) => ["compliance_config_changed", "frozen", "unfrozen"].includes(scValToNative(e.topics[0]!)))
    const events = confidentialEvents[version]
    expect(published.map((e) => ({ topics: e.topics.map((t) => t.toXDR("base64")), data: e.data.toXDR("base64") }))).toEqual(
      [events.complianceConfigChanged({ sacPassthrough: false }), events.frozen(recipient.publicKey()), events.unfrozen(recipient.publicKey())]
        .map((e) => ({ topics: e.topics.map((t) => t.toXDR("base64")), data: e.data.toXDR("base64") }))
    )
  })

  it("looks up the recipient's, then the sender's auditor key: a key the registry lacks is its AuditorNotRegistered (#3301)", async () => {
    const token = loopback.deployConfidentialToken(TOKEN)
    const sender = member(5)
    const recipient = member(6)
    token.removeAuditorKey(5)
    token.removeAuditorKey(6)
    const error = await refusal(sender, recipient.publicKey(), transferData({ version, proofBytes: 64 }))
    expect(error).toMatch(/^HostError: Error\(Contract, #3301\)\n/)
    expect(error).toContain(`topics:[fn_call, ${token.auditorRegistry}, get_key], data:6`)
    token.restoreAuditorKey(6)
    expect(await refusal(sender, recipient.publicKey(), transferData({ version, proofBytes: 64 }))).toContain(`"contract call failed", get_key, [5]`)
    token.restoreAuditorKey(5)
    expect((await land(sender, recipient.publicKey(), transferData({ version, proofBytes: 64 }))).status).toBe("SUCCESS")
  })

  it("declares revoke_spender with its version's arguments", async () => {
    const a = addr(Keypair.random().publicKey())
    const call = (args: Array<xdr.ScVal>) =>
      new TransactionBuilder(new Account(Keypair.random().publicKey(), "1"), { fee: "100", networkPassphrase: Networks.TESTNET })
        .addOperation(new Contract(TOKEN).call("revoke_spender", ...args))
        .setTimeout(30)
        .build()
    const errorOf = async (args: Array<xdr.ScVal>) => {
      const sim = await server.simulateTransaction(call(args))
      return rpc.Api.isSimulationError(sim) ? sim.error : ""
    }
    const proofless = await errorOf([a, a])
    const withData = await errorOf([a, a, xdr.ScVal.scvBytes(new Uint8Array(1))])
    const [taken, refused] = version === "8af46e2c" ? [withData, proofless] : [proofless, withData]
    expect(refused).toMatch(/^HostError: Error\(WasmVm, UnexpectedSize\)/)
    expect(taken).toMatch(/is not emulated by the loopback RPC/)
  })

  it("builds every event of its version with exactly the declared fields, in the map's sorted order", () =>
    fc.assert(fc.property(fc.constantFrom(...(Object.keys(EVENT_BYTES_FIELDS[version]) as Array<keyof (typeof EVENT_BYTES_FIELDS)[TokenVersion]>)), (event) => {
      const [a, b, c] = [0, 1, 2].map(() => Keypair.random().publicKey()) as [string, string, string]
      const events = confidentialEvents[version]
      const fields = randomEventFields(version, event) as never
      const built = event === "withdraw" ? events.withdraw(a, b, 7n, fields)
        : event === "transfer" ? events.transfer(a, b, fields)
        : event === "spender_transfer" ? events.spenderTransfer(a, b, c, fields)
        : event === "set_spender" ? events.setSpender(a, b, 9, fields)
        : events.revokeSpender(a, b, fields)
      const integers = event === "withdraw" ? ["amount"] : event === "set_spender" ? ["live_until_ledger"] : []
      expect(scValToNative(built.topics[0]!)).toBe(event)
      expect(mapKeys(built.data)).toEqual([...EVENT_BYTES_FIELDS[version][event], ...integers].sort())
      expect(() => events.transfer(a, b, { ...(randomEventFields(version, "transfer") as object), stray: new Uint8Array(32) } as never)).toThrow(/no field stray/)
    }), { numRuns: 50 }))
})

describe("a confidential token upgraded in place", () => {
  it("keeps its accounts and runs the new version's code: the old TransferData is refused, the new one lands", async () => {
    const loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    try {
      const TOKEN = contractId(9)
      const server = new rpc.Server(loopback.url, { allowHttp: true })
      expect(loopback.deployConfidentialToken(TOKEN).version).toBe("8af46e2c")
      const sender = Keypair.random()
      const recipient = Keypair.random().publicKey()
      loopback.setAccount({ id: sender.publicKey() })
      loopback.registerConfidential(TOKEN, sender.publicKey())
      loopback.registerConfidential(TOKEN, recipient)
      expect(loopback.deployConfidentialToken(TOKEN, { version: "0fd261c2" }).version).toBe("0fd261c2")
      expect(loopback.deployConfidentialToken(TOKEN).version).toBe("0fd261c2")
      expect(loopback.confidentialAccount(TOKEN, recipient)).toBeDefined()
      const simulate = (data: Uint8Array) =>
        server.getAccount(sender.publicKey()).then((account) =>
          server.simulateTransaction(
            new TransactionBuilder(account, { fee: "1000", networkPassphrase: Networks.TESTNET })
              .addOperation(new Contract(TOKEN).call("confidential_transfer", addr(sender.publicKey()), addr(recipient), xdr.ScVal.scvBytes(data)))
              .setTimeout(60)
              .build()
          ))
      const old = await simulate(transferData({ version: "8af46e2c", proofBytes: 64 }))
      expect(rpc.Api.isSimulationError(old) && old.error.startsWith("HostError: Error(Contract, #3507)\n")).toBe(true)
      expect(rpc.Api.isSimulationSuccess(await simulate(transferData({ version: "0fd261c2", proofBytes: 64 })))).toBe(true)
      expect(TRANSFER_PAYLOAD["0fd261c2"].map(([name]) => name)).toEqual([...TRANSFER_PAYLOAD["0fd261c2"].map(([name]) => name)].sort())
    } finally {
      await loopback.close()
    }
  })
})
