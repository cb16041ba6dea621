// The disclosure exchange's formats (client/src/confidential/disclosure/Exchange.ts, RecipientKey.ts): a request
// survives its file and its link unchanged, a bundle carries §5.2's fields and nothing else, and hostile text —
// anything fast-check makes, or a real file with one field broken — is refused with a reason, never thrown.
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { H, pointToBytes, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import {
  type Bundle, bundleJson, type DisclosureRequestFile, hexOf, parseBundle, parseRequest, requestFromLink, requestJson, requestLink
} from "../../client/src/confidential/disclosure/Exchange.ts"
import {
  makeRecipientKey, makeRequest, RecipientKeyFile, recipientKeyFile, recipientKeyOfFile, sealTarget
} from "../../client/src/confidential/disclosure/RecipientKey.ts"

const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const PAYER = "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO"
const key = makeRecipientKey()
const ref = { txHash: "ab".repeat(32), opIndex: 0 as const, eventIndex: 3 }
const asks = [
  { kind: "event" as const, ref },
  { kind: "received-total" as const, from: PAYER, period: { start: "2026-01-01T00:00:00.000Z", end: "2026-04-01T00:00:00.000Z" } },
  { kind: "sent-total" as const, to: PAYER, period: { start: "2026-01-01T00:00:00.000Z", end: "2027-01-01T00:00:00.000Z" } }
]
const requestOf = (ask: DisclosureRequestFile["ask"]) => makeRequest({ key, ask, contract: CONTRACT, networkPassphrase: "Test SDF Network ; September 2015", label: "Tax office" })
// A bundle of the right shape with a stand-in proof of bb's size: these tests are about the exchange's formats and
// links, which never look inside the proof; a real proof, verified by bb.js, is test/disclosure.test.ts's.
const bundle: Bundle = {
  version: 1,
  circuitId: "disclose_recipient_8",
  refs: [ref],
  proof: Buffer.alloc(14_592, 7).toString("base64"),
  rDisc: hexOf(pointToBytes(scalarMul(0xd15cn, H))),
  vDisc: "01".padStart(64, "0")
}

describe("requests", () => {
  it("survive their JSON and their link unchanged, and seal to the key and nonce they name", () => {
    for (const ask of asks) {
      const request = requestOf(ask)
      expect(Either.getOrThrow(parseRequest(requestJson(request)))).toEqual(request)
      expect(Either.getOrThrow(requestFromLink(requestLink("https://payroll.example/app/payouts", request)))).toEqual(request)
      const target = sealTarget(request)
      expect(target.recipientKey.equals(key.publicKey)).toBe(true)
      expect(target.nonce).toBe(BigInt(`0x${request.nonce}`))
    }
  })

  it("carry a fresh nonce each", () => {
    const nonces = new Set(Array.from({ length: 50 }, () => requestOf(asks[0]!).nonce))
    expect(nonces.size).toBe(50)
  })

  it("refuse a key off the curve, the identity, a period ending before it starts, a strkey that is not one, op_index 1", () => {
    const good = JSON.parse(requestJson(requestOf(asks[1]!))) as Record<string, unknown>
    const broken = [
      { ...good, recipientKey: "00".repeat(64) },
      { ...good, recipientKey: "01".repeat(64) },
      { ...good, ask: { ...asks[1], period: { start: "2026-04-01T00:00:00Z", end: "2026-01-01T00:00:00Z" } } },
      { ...good, ask: { ...asks[1], from: "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GX" } },
      { ...good, ask: { kind: "event", ref: { ...ref, opIndex: 1 } } },
      { ...good, nonce: "ff".repeat(32) },
      { ...good, version: 2 }
    ]
    for (const text of broken.map((b) => JSON.stringify(b))) expect(Either.isLeft(parseRequest(text))).toBe(true)
  })

  it("never throw on hostile text or links", () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json(), fc.string().map((s) => `#request=${s}`), fc.base64String().map((s) => `#request=${s}`)), (text) => {
      expect(Either.isLeft(parseRequest(text))).toBe(true)
      expect(Either.isLeft(requestFromLink(text))).toBe(true)
    }))
  })
})

describe("bundles", () => {
  it("hold §5.2's fields and nothing else: an extra field is dropped on reading", () => {
    const read = Either.getOrThrow(parseBundle(JSON.stringify({ ...bundle, account: PAYER, value: "4200" })))
    expect(Object.keys(read).sort()).toEqual(["circuitId", "proof", "rDisc", "refs", "vDisc", "version"])
    expect(Either.getOrThrow(parseBundle(bundleJson(bundle)))).toEqual(bundle)
  })

  it("refuse no reference, 25 references, an unknown circuit, an R_disc off the curve", () => {
    for (const b of [{ ...bundle, refs: [] }, { ...bundle, refs: Array(25).fill(ref) }, { ...bundle, circuitId: "disclose_balance" }, { ...bundle, rDisc: "02".repeat(64) }]) {
      expect(Either.isLeft(parseBundle(JSON.stringify(b)))).toBe(true)
    }
  })

  it("never throw on hostile text", () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
      expect(Either.isLeft(parseBundle(text))).toBe(true)
    }))
  })
})

describe("the recipient's key file", () => {
  const decode = Schema.decodeUnknownEither(RecipientKeyFile)
  it("round-trips, and is refused when its public key is not its secret's", () => {
    const file = recipientKeyFile(key)
    const read = recipientKeyOfFile(Either.getOrThrow(decode(file)))
    expect(read.secret).toBe(key.secret)
    expect(read.publicKey.equals(key.publicKey)).toBe(true)
    expect(Either.isLeft(decode({ ...file, publicKey: recipientKeyFile(makeRecipientKey()).publicKey }))).toBe(true)
    expect(Either.isLeft(decode({ ...file, secret: "00".repeat(32) }))).toBe(true)
  })
})
