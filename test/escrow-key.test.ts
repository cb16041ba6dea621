import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Keypair, Networks, rpc, scValToNative } from "@stellar/stellar-sdk"
import fc from "fast-check"
import { randomUUID } from "node:crypto"
import { H, pointFromBytes, pointToBytes, scalarMul } from "../client/src/confidential/crypto/Grumpkin.ts"
import { deriveEscrowKey, EscrowKeyPair, escrowKeyMessage, pointHex } from "../client/src/escrow/EscrowKey.ts"
import { openEscrowSecret, sealEscrowSecret } from "../client/src/escrow/SealedEscrowSecret.ts"
import { prepareRegistryCall, readAuditorKey, registryStatus } from "../client/src/escrow/AuditorRegistry.ts"
import { SealingKeyPair } from "../client/src/sealing/SealingKey.ts"
import { SealedOpenFailed } from "../client/src/sealing/Errors.ts"
import { pointProblem } from "../src/Escrow/EscrowPoint.ts"
import type { LoopbackConfidentialToken } from "./support/LoopbackConfidentialToken.ts"
import { LoopbackRpc } from "./support/LoopbackRpc.ts"

// The organization's escrow key (issue 36 §2): derived from a wallet's SEP-53 signature, sealed among the members who
// may audit, registered by the auditor registry's operator through the loopback's registry, which follows OZ's
// auditor/storage.rs and examples/confidential/auditor (test/support/LoopbackAuditorRegistry.ts).

const TOKEN = "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"

/** A Freighter-style signer over a Keypair (SEP-53: ed25519 over SHA-256 of the prefixed message, as Keypair.signMessage). */
const signerOf = (kp: Keypair) => ({
  signMessage: async (message: string) => ({ signedMessage: Buffer.from(kp.signMessage(message)).toString("base64"), signerAddress: kp.publicKey() })
})

describe("the escrow key, derived and sealed", () => {
  const member = Keypair.random()
  const org = randomUUID()

  it("derives k from the documented message, the same each time; K = k·H; another version is another key", async () => {
    expect(escrowKeyMessage(org, member.publicKey(), 1)).toBe(`confidential-payroll/escrow-key/v1\n${org}\n${member.publicKey()}\nv1`)
    const one = await deriveEscrowKey({ signer: signerOf(member), account: member.publicKey(), organizationId: org, version: 1 })
    const again = await deriveEscrowKey({ signer: signerOf(member), account: member.publicKey(), organizationId: org, version: 1, published: one.pointHex })
    const two = await deriveEscrowKey({ signer: signerOf(member), account: member.publicKey(), organizationId: org, version: 2 })
    expect(again.secret).toBe(one.secret)
    expect(one.point.equals(scalarMul(one.secret, H))).toBe(true)
    expect(two.pointHex).not.toBe(one.pointHex)
    expect(pointProblem(one.pointHex)).toBeUndefined()
  })

  it("seals k to the auditors; opening checks it against the point on file; a stranger cannot open it", async () => {
    const pair = new EscrowKeyPair(0x5eed5n, 1)
    const auditor = await SealingKeyPair.fromIkm(new Uint8Array(32).fill(7))
    const stranger = await SealingKeyPair.fromIkm(new Uint8Array(32).fill(8))
    const ref = { organizationId: org, auditorId: 42 }
    const envelope = await sealEscrowSecret(pair, ref, [{ memberId: "m-1", sealingKey: auditor.publicKey }])
    expect(JSON.stringify(envelope)).not.toContain(pair.secret.toString(16))
    const opened = await openEscrowSecret(envelope, { ...ref, version: 1, point: pair.pointHex }, { memberId: "m-1", keyPair: auditor })
    expect(opened.secret).toBe(pair.secret)
    await expect(openEscrowSecret(envelope, { ...ref, version: 1, point: pair.pointHex }, { memberId: "m-1", keyPair: stranger }))
      .rejects.toBeInstanceOf(SealedOpenFailed)
    const other = new EscrowKeyPair(0x5eed6n, 1).pointHex
    await expect(openEscrowSecret(envelope, { ...ref, version: 1, point: other }, { memberId: "m-1", keyPair: auditor }))
      .rejects.toMatchObject({ reason: "Malformed" })
  })

  it("the service's point check agrees with Grumpkin on generated points and bytes", () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: (1n << 200n) }), (k) => pointProblem(pointHex(scalarMul(k, H))) === undefined))
    expect(pointProblem("0".repeat(128))).toBe("IdentityPoint")
    fc.assert(fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (bytes) => {
      let valid = !bytes.every((b) => b === 0)
      try {
        pointFromBytes(bytes)
      } catch {
        valid = false
      }
      return (pointProblem(Buffer.from(bytes).toString("hex")) === undefined) === valid
    }))
    expect(pointProblem("f".repeat(128))).toBe("PointNotOnCurve")
  })
})

describe("the loopback's auditor registry (OZ auditor/storage.rs, examples/confidential/auditor)", () => {
  let loopback: LoopbackRpc
  let server: rpc.Server
  let token: LoopbackConfidentialToken
  const operator = Keypair.random()
  const intruder = Keypair.random()

  const sequenceOf = async (kp: Keypair) => (await server.getAccount(kp.publicKey())).sequenceNumber()
  const send = async (signer: Keypair, fn: "register_key" | "rotate_key", auditorId: number, point: string) => {
    const tx = await prepareRegistryCall(server, Networks.TESTNET, token.auditorRegistry, await sequenceOf(signer), {
      fn, auditorId, point, operator: signer.publicKey()
    })
    tx.sign(signer)
    const sent = await server.sendTransaction(tx)
    loopback.advanceLedger()
    return loopback.transaction(sent.hash)!
  }

  beforeAll(async () => {
    loopback = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
    server = new rpc.Server(loopback.url, { allowHttp: true })
    token = loopback.deployConfidentialToken(TOKEN)
    for (const kp of [operator, intruder]) loopback.setAccount({ id: kp.publicKey() })
    token.auditors.setOperator(operator.publicKey())
    // The loopback serves the registries' functions in proving mode only; the registry is served here on its own.
    for (const [fn, handler] of token.auditors.functions()) loopback.setContractFunction(token.auditorRegistry, fn, handler)
  })

  afterAll(async () => {
    await loopback.close()
  })

  it("register_key by the operator: get_key answers the point, AuditorRegistered is published; the id is then taken (#3300)", async () => {
    const pair = new EscrowKeyPair(0xabcdefn, 1)
    token.removeAuditorKey(900)
    expect(await readAuditorKey(server, Networks.TESTNET, token.auditorRegistry, 900)).toBeUndefined()
    expect(await registryStatus(server, Networks.TESTNET, token.auditorRegistry, { auditorId: 900, point: pair.pointHex })).toEqual({ status: "unregistered" })
    const landed = await send(operator, "register_key", 900, pair.pointHex)
    expect(landed.status).toBe("SUCCESS")
    expect(await registryStatus(server, Networks.TESTNET, token.auditorRegistry, { auditorId: 900, point: pair.pointHex })).toEqual({ status: "registered" })
    const [event] = landed.events
    expect(event!.topics.map((t) => scValToNative(t))).toEqual(["auditor_registered", 900])
    expect(Buffer.from(scValToNative(event!.data).point as Uint8Array).toString("hex")).toBe(pair.pointHex)
    await expect(prepareRegistryCall(server, Networks.TESTNET, token.auditorRegistry, await sequenceOf(operator), {
      fn: "register_key", auditorId: 900, point: new EscrowKeyPair(5n, 1).pointHex, operator: operator.publicKey()
    })).rejects.toThrow(/Error\(Contract, #3300\)/)
  })

  it("refuses anyone but the operator (#2000), the identity (#3302) and a point off the curve (#3303)", async () => {
    token.removeAuditorKey(901)
    const prepare = async (signer: Keypair, point: string) =>
      prepareRegistryCall(server, Networks.TESTNET, token.auditorRegistry, await sequenceOf(signer), {
        fn: "register_key", auditorId: 901, point, operator: signer.publicKey()
      })
    await expect(prepare(intruder, new EscrowKeyPair(7n, 1).pointHex)).rejects.toThrow(/Error\(Contract, #2000\)/)
    await expect(prepare(operator, "0".repeat(128))).rejects.toThrow(/Error\(Contract, #3302\)/)
    await expect(prepare(operator, "f".repeat(128))).rejects.toThrow(/Error\(Contract, #3303\)/)
    const offCurve = Buffer.from(pointToBytes(scalarMul(9n, H)))
    offCurve[63] = offCurve[63]! ^ 1
    await expect(prepare(operator, offCurve.toString("hex"))).rejects.toThrow(/Error\(Contract, #3303\)/)
  })

  it("rotate_key replaces the point and publishes AuditorRotated with both; an unknown id is AuditorNotRegistered (#3301)", async () => {
    const first = new EscrowKeyPair(0x1111n, 1)
    const next = new EscrowKeyPair(0x2222n, 2)
    token.removeAuditorKey(902)
    expect((await send(operator, "register_key", 902, first.pointHex)).status).toBe("SUCCESS")
    const rotated = await send(operator, "rotate_key", 902, next.pointHex)
    expect(rotated.status).toBe("SUCCESS")
    const [event] = rotated.events
    expect(event!.topics.map((t) => scValToNative(t))).toEqual(["auditor_rotated", 902])
    const data = scValToNative(event!.data) as { old_point: Uint8Array; new_point: Uint8Array }
    expect([Buffer.from(data.old_point).toString("hex"), Buffer.from(data.new_point).toString("hex")]).toEqual([first.pointHex, next.pointHex])
    expect(await readAuditorKey(server, Networks.TESTNET, token.auditorRegistry, 902)).toBe(next.pointHex)
    token.removeAuditorKey(903)
    await expect(prepareRegistryCall(server, Networks.TESTNET, token.auditorRegistry, await sequenceOf(operator), {
      fn: "rotate_key", auditorId: 903, point: next.pointHex, operator: operator.publicKey()
    })).rejects.toThrow(/Error\(Contract, #3301\)/)
  })
})
