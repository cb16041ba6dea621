import { describe, expect, it } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import type { signMessage as freighterSignMessage } from "@stellar/freighter-api"
import fc from "fast-check"
import { hkdfSync } from "node:crypto"
import { inspect } from "node:util"
import { InvalidEncoding, KeyDerivationFailed, SignerNotDeterministic } from "../../client/src/confidential/Errors.ts"
import { addressToField } from "../../client/src/confidential/crypto/AddressField.ts"
import { R, fieldToBytes } from "../../client/src/confidential/crypto/Field.ts"
import { H, pointToBytes, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import {
  deriveSk,
  keysFromRawRoot,
  keysFromSigner,
  keysFromSk,
  rootMessage,
  type MessageSigner,
  type SignedMessage
} from "../../client/src/confidential/crypto/KeyDerivation.ts"
import { vkFromSk } from "../../client/src/confidential/crypto/Primitives.ts"

const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const owner = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7))
const stranger = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 8))
const ACCOUNT = owner.publicKey()

/** A Freighter-shaped signer over a local key: `encode` picks the v4 (base64) or v3 (bytes) answer. */
const localSigner = (key: Keypair, encode: (sig: Buffer) => string | Uint8Array = (sig) => sig.toString("base64")) => {
  const asked: Array<{ message: string; address: string }> = []
  const signer: MessageSigner = {
    signMessage: async (message, { address }) => {
      asked.push({ message, address })
      return { signedMessage: encode(Buffer.from(key.signMessage(message))), signerAddress: key.publicKey() }
    }
  }
  return { signer, asked }
}

describe("address_to_field (storage.rs at 8af46e2c)", () => {
  // OZ's vectors for the same definition: packages/tokens/src/confidential/test.rs
  // `address_to_field_matches_testdata_vectors` (testdata/address_to_field.json, added after 8af46e2c).
  it.each([
    ["GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF", 0x1d3b0901201ea22ad61ed4600b49dee57bb73369bf07bdeab17cbf0e54debd4fn],
    ["CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4", 0x1997b0390a25f684e91575771f4c3ca72ac8f20f45a462838ea918bbe8c4e19cn]
  ])("%s", (strkey, expected) => expect(addressToField(strkey)).toBe(expected))

  it("refuses what is not a 56-character account or contract strkey", () => {
    const muxed = "MAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    for (const bad of ["GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHG", muxed, "", ACCOUNT.toLowerCase()]) {
      expect(() => addressToField(bad)).toThrow(InvalidEncoding)
    }
  })
})

describe("key derivation (SDK.md §5)", () => {
  it("signs the 151-byte message naming the contract and the account", () => {
    const message = rootMessage(CONTRACT, ACCOUNT)
    expect(new TextEncoder().encode(message).length).toBe(151)
    expect(message).toBe(`openzeppelin/confidential-token/v1/sk\n${CONTRACT}\n${ACCOUNT}`)
  })

  it("derives the same keys every time, twice asking the account's key, and Y = sk·H, PVK = vk·H", async () => {
    const { signer, asked } = localSigner(owner)
    const keys = await keysFromSigner({ signer, contract: CONTRACT, account: ACCOUNT })
    expect(asked).toEqual([0, 1].map(() => ({ message: rootMessage(CONTRACT, ACCOUNT), address: ACCOUNT })))
    const again = await keysFromSigner({ signer: localSigner(owner, (sig) => new Uint8Array(sig)).signer, contract: CONTRACT, account: ACCOUNT })
    expect(again.sk).toBe(keys.sk)
    expect(keys.spendingPublicKey.equals(scalarMul(keys.sk, H))).toBe(true)
    expect(keys.viewingPublicKey.equals(scalarMul(keys.vk, H))).toBe(true)
    expect(keys.vk).toBe(vkFromSk(keys.sk, addressToField(CONTRACT)))
    expect(keys.acctF).toBe(addressToField(ACCOUNT))
    // The root is the SEP-53 signature itself.
    const root = owner.signMessage(rootMessage(CONTRACT, ACCOUNT))
    expect(keys.sk).toBe(deriveSk(root, keys.addrF, keys.acctF))
  })

  it("is §5.1 to the byte: HKDF-SHA-512 (checked with node:crypto), be32 fields, le4 counter, top 2 bits cleared", () => {
    const root = new Uint8Array(32).fill(9)
    const [addrF, acctF] = [addressToField(CONTRACT), addressToField(ACCOUNT)]
    const expected = (() => {
      for (let j = 0; ; j++) {
        const counter = new Uint8Array(4)
        new DataView(counter.buffer).setUint32(0, j, true)
        const info = Buffer.concat([fieldToBytes(addrF), fieldToBytes(acctF), counter])
        const okm = Buffer.from(hkdfSync("sha512", root, "openzeppelin/confidential-token/v1/sk", info, 32))
        okm[0] = okm[0]! & 0x3f
        const sk = BigInt(`0x${okm.toString("hex")}`)
        if (sk > 0n && sk < R && vkFromSk(sk, addrF) !== 0n) return sk
      }
    })()
    expect(keysFromRawRoot(root, { contract: CONTRACT, account: ACCOUNT }).sk).toBe(expected)
  })

  it("binds sk to both the contract and the account", () => {
    const root = new Uint8Array(32).fill(3)
    const a = keysFromRawRoot(root, { contract: CONTRACT, account: ACCOUNT })
    const b = keysFromRawRoot(root, { contract: CONTRACT, account: stranger.publicKey() })
    const c = keysFromRawRoot(root, { contract: "CAAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQC526", account: ACCOUNT })
    expect(new Set([a.sk, b.sk, c.sk]).size).toBe(3)
  })

  it("takes @stellar/freighter-api's signMessage as it is (a compile-time check)", () => {
    const fromFreighter = (signMessage: typeof freighterSignMessage): MessageSigner => ({ signMessage })
    expect(fromFreighter).toBeTypeOf("function")
  })

  it("asks once when the keys come out as the ones registered on chain, twice (and compares) otherwise", async () => {
    const { signer: first } = localSigner(owner)
    const keys = await keysFromSigner({ signer: first, contract: CONTRACT, account: ACCOUNT })
    const registered = { spendingPublicKey: pointToBytes(keys.spendingPublicKey), viewingPublicKey: pointToBytes(keys.viewingPublicKey) }
    const once = localSigner(owner)
    expect((await keysFromSigner({ signer: once.signer, contract: CONTRACT, account: ACCOUNT, registered })).sk).toBe(keys.sk)
    expect(once.asked).toHaveLength(1)
    // Registered keys of another account: the signature does not reproduce them, so it is asked again and compared.
    const other = await keysFromSigner({ signer: localSigner(stranger).signer, contract: CONTRACT, account: stranger.publicKey() })
    const twice = localSigner(owner)
    const otherKeys = { spendingPublicKey: pointToBytes(other.spendingPublicKey), viewingPublicKey: pointToBytes(other.viewingPublicKey) }
    expect((await keysFromSigner({ signer: twice.signer, contract: CONTRACT, account: ACCOUNT, registered: otherKeys })).sk).toBe(keys.sk)
    expect(twice.asked).toHaveLength(2)
    // A signer that signs differently each time cannot pass for deterministic by reproducing nothing.
    let n = 0
    const drifting: MessageSigner = {
      signMessage: async (message) => ({ signedMessage: Buffer.from(owner.signMessage(n++ === 0 ? message : `${message} again`)).toString("base64"), signerAddress: ACCOUNT })
    }
    await expect(keysFromSigner({ signer: drifting, contract: CONTRACT, account: ACCOUNT, registered: otherKeys })).rejects.toBeInstanceOf(SignerNotDeterministic)
    // Another key's signature never derives keys, registered or not.
    await expect(keysFromSigner({ signer: localSigner(stranger).signer, contract: CONTRACT, account: ACCOUNT, registered })).rejects.toMatchObject({ reason: "SignatureInvalid" })
  })

  it("refuses a signer that answers differently twice", async () => {
    let n = 0
    const signer: MessageSigner = {
      signMessage: async (message) => ({
        signedMessage: Buffer.from(owner.signMessage(`${message}${n++}`)).toString("base64"),
        signerAddress: ACCOUNT
      })
    }
    await expect(keysFromSigner({ signer, contract: CONTRACT, account: ACCOUNT })).rejects.toBeInstanceOf(SignerNotDeterministic)
  })

  it("refuses a signature by another key (the wallet had another account selected)", async () => {
    const { signer } = localSigner(stranger)
    await expect(keysFromSigner({ signer, contract: CONTRACT, account: ACCOUNT })).rejects.toMatchObject({
      _tag: "KeyDerivationFailed",
      reason: "SignatureInvalid"
    })
    // Unless that key is the one named as the account's enrolled signer.
    const keys = await keysFromSigner({ signer, contract: CONTRACT, account: ACCOUNT, signerKey: stranger.publicKey() })
    expect(keys.acctF).toBe(addressToField(ACCOUNT))
  })

  it("refuses a refusal, a null answer, a thrown error and a malformed signature", async () => {
    const answering = (answer: SignedMessage | Error): MessageSigner => ({
      signMessage: async () => {
        if (answer instanceof Error) throw answer
        return answer
      }
    })
    const cases: ReadonlyArray<readonly [MessageSigner, string]> = [
      [answering({ signedMessage: null, signerAddress: "", error: { message: "User declined" } }), "SignerRefused"],
      [answering({ signedMessage: null, signerAddress: ACCOUNT }), "SignerRefused"],
      [answering(new Error("extension missing")), "SignerRefused"],
      [answering({ signedMessage: "c2lnbmF0dXJl", signerAddress: ACCOUNT }), "SignatureMalformed"],
      [answering({ signedMessage: new Uint8Array(63), signerAddress: ACCOUNT }), "SignatureMalformed"]
    ]
    for (const [signer, reason] of cases) {
      await expect(keysFromSigner({ signer, contract: CONTRACT, account: ACCOUNT })).rejects.toMatchObject({ reason })
    }
    const contractAccount = keysFromSigner({ signer: localSigner(owner).signer, contract: CONTRACT, account: CONTRACT })
    await expect(contractAccount).rejects.toMatchObject({ reason: "NoSignerKey" })
  })

  it("takes a raw root of 32 bytes only, and an imported sk in [1, r) only", () => {
    const deployment = { contract: CONTRACT, account: ACCOUNT }
    expect(() => keysFromRawRoot(new Uint8Array(31), deployment)).toThrow(KeyDerivationFailed)
    expect(() => keysFromSk(0n, deployment)).toThrow(KeyDerivationFailed)
    expect(() => keysFromSk(R, deployment)).toThrow(KeyDerivationFailed)
    expect(keysFromSk(0xdeadn, deployment).spendingPublicKey.equals(scalarMul(0xdeadn, H))).toBe(true)
  })

  it("gives 1 <= sk < r and vk != 0 for any 32-byte root", () => {
    const [addrF, acctF] = [addressToField(CONTRACT), addressToField(ACCOUNT)]
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (root) => {
        const sk = deriveSk(root, addrF, acctF)
        expect(sk >= 1n && sk < R).toBe(true)
        expect(vkFromSk(sk, addrF)).not.toBe(0n)
      }),
      { numRuns: 300 }
    )
  })

  it("never prints sk or vk", () => {
    const keys = keysFromSk(0xdeadn, { contract: CONTRACT, account: ACCOUNT })
    const secrets = [keys.sk, keys.vk].flatMap((v) => [v.toString(16), v.toString(10)])
    for (const shown of [JSON.stringify(keys), inspect(keys), String(keys), inspect({ nested: { keys } }, { depth: 5 })]) {
      expect(shown).toContain("<redacted>")
      for (const secret of secrets) expect(shown).not.toContain(secret)
    }
  })
})
