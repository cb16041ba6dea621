// Sealing (issue 31 §1–2): wallet-derived sealing keys, batch amounts and payout receipts sealed among members with
// HPKE (RFC 9180, @hpke/core), and @hpke/core held to RFC 9180's published A.2.1 vector.
import { describe, expect, it } from "@effect/vitest"
import { Chacha20Poly1305 } from "@hpke/chacha20poly1305"
import { CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "@hpke/core"
import { Keypair } from "@stellar/stellar-sdk"
import type { Metafile } from "esbuild"
import fc from "fast-check"
import { createHash, hkdfSync } from "node:crypto"
import * as Path from "node:path"
import { inspect } from "node:util"
import { KeyDerivationFailed, SignerNotDeterministic } from "../../client/src/confidential/Errors.ts"
import type { MessageSigner } from "../../client/src/confidential/crypto/KeyDerivation.ts"
import {
  deriveSealingKey,
  digest,
  fromBase64Url,
  keyCommitment,
  openAmounts,
  openReceipt,
  type PayoutAmount,
  type Recipient,
  SealedOpenFailed,
  type SealedEnvelope,
  SealingInputInvalid,
  SealingKeyPair,
  sealAmounts,
  sealingKeyMessage,
  sealReceipt,
  shareWith,
  toBase64Url,
  unsharedReaders
} from "../../client/src/sealing/index.ts"

const ORG = "org_7f3a"
const BATCH = "bat_01"
const alice = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1))
const bob = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2))

const localSigner = (key: Keypair): MessageSigner => ({
  signMessage: async (message, { address }) => {
    expect(address).toBe(key.publicKey())
    return { signedMessage: Buffer.from(key.signMessage(message)).toString("base64"), signerAddress: key.publicKey() }
  }
})

const keyFrom = (seed: number) => SealingKeyPair.fromIkm(new Uint8Array(32).fill(seed))

interface Member {
  readonly memberId: string
  readonly keyPair: SealingKeyPair
}
const members = async (n: number, offset = 0): Promise<Array<Member>> =>
  Promise.all(Array.from({ length: n }, async (_, i) => ({ memberId: `mem_${offset + i}`, keyPair: await keyFrom(offset + i + 1) })))
const recipientsOf = (ms: ReadonlyArray<Member>): Array<Recipient> =>
  ms.map((m) => ({ memberId: m.memberId, sealingKey: m.keyPair.publicKey }))

const AMOUNTS: ReadonlyArray<PayoutAmount> = [
  { payoutId: "pay_1", amount: 12_345_000_0000n },
  { payoutId: "pay_2", amount: 1n },
  { payoutId: "pay_3", amount: 0n }
]

const openFailure = async (attempt: Promise<unknown>): Promise<string> => {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(SealedOpenFailed)
  return (error as SealedOpenFailed).reason
}

/** The envelope with one bit of byte `at` of a base64url part flipped. */
const flip = (text: string, at: number): string => {
  const bytes = fromBase64Url(text)!
  bytes[at]! ^= 0x01
  return toBase64Url(bytes)
}

describe("sealing keys", () => {
  it("re-derive the same key from the same signer, and differ per organization and per account", async () => {
    const first = await deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: localSigner(alice) })
    const again = await deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: localSigner(alice) })
    const otherOrg = await deriveSealingKey({ organizationId: "org_other", account: alice.publicKey(), signer: localSigner(alice) })
    const otherAccount = await deriveSealingKey({ organizationId: ORG, account: bob.publicKey(), signer: localSigner(bob) })
    expect(first.publicKey).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(again.publicKey).toBe(first.publicKey)
    expect(otherOrg.publicKey).not.toBe(first.publicKey)
    expect(otherAccount.publicKey).not.toBe(first.publicKey)
    // A key from one device opens what was sealed for the key from another.
    const envelope = await sealAmounts(BATCH, AMOUNTS, [{ memberId: "mem_a", sealingKey: first.publicKey }])
    expect(await openAmounts(envelope, BATCH, "mem_a", again)).toEqual(AMOUNTS)
  })

  it("asks once when the key comes out as the one published before, twice otherwise", async () => {
    const published = (await deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: localSigner(alice) })).publicKey
    let asked = 0
    const counting = { signMessage: (message: string, opts: { address: string }) => {
      asked++
      return localSigner(alice).signMessage(message, opts)
    } }
    expect((await deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: counting, published })).publicKey).toBe(published)
    expect(asked).toBe(1)
    asked = 0
    const other = (await deriveSealingKey({ organizationId: "org_other", account: alice.publicKey(), signer: localSigner(alice) })).publicKey
    expect((await deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: counting, published: other })).publicKey).toBe(published)
    expect(asked).toBe(2)
  })

  it("is RFC 9180 DeriveKeyPair of HKDF-SHA-256(signature, the label as salt) over the documented message", async () => {
    const message = sealingKeyMessage(ORG, alice.publicKey())
    expect(message).toBe(`confidential-payroll/sealing-key/v1\n${ORG}\n${alice.publicKey()}`)
    const signature = alice.signMessage(message)
    const ikm = new Uint8Array(hkdfSync("sha256", signature, "confidential-payroll/sealing-key/v1", "x25519 ikm", 32))
    const expected = await new DhkemX25519HkdfSha256().deriveKeyPair(ikm)
    const raw = new Uint8Array(await new DhkemX25519HkdfSha256().serializePublicKey(expected.publicKey))
    const derived = await deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: localSigner(alice) })
    expect(derived.publicKey).toBe(toBase64Url(raw))
  })

  it("refuses a signer that answers differently twice, or with another key's signature, or not at all", async () => {
    let n = 0
    const wobbly: MessageSigner = {
      signMessage: async (message) => ({
        signedMessage: Buffer.from(alice.signMessage(`${message}${n++}`)).toString("base64"),
        signerAddress: alice.publicKey()
      })
    }
    await expect(deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: wobbly })).rejects.toBeInstanceOf(
      SignerNotDeterministic
    )
    const impostor = deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: localSignerAs(bob, alice) })
    await expect(impostor).rejects.toMatchObject({ _tag: "KeyDerivationFailed", reason: "SignatureInvalid" })
    const refusing: MessageSigner = { signMessage: async () => ({ signedMessage: null, signerAddress: "", error: { message: "no" } }) }
    await expect(deriveSealingKey({ organizationId: ORG, account: alice.publicKey(), signer: refusing })).rejects.toBeInstanceOf(
      KeyDerivationFailed
    )
    await expect(
      deriveSealingKey({ organizationId: "a\nb", account: alice.publicKey(), signer: localSigner(alice) })
    ).rejects.toBeInstanceOf(SealingInputInvalid)
  })

  it("never shows or exports the private key", async () => {
    const key = await keyFrom(9)
    expect(JSON.stringify(key)).toBe(JSON.stringify({ publicKey: key.publicKey, privateKey: "<redacted>" }))
    expect(inspect(key)).not.toMatch(/CryptoKey/)
    expect(inspect(key)).toContain("<redacted>")
    expect(key.cryptoKeyPair.privateKey.extractable).toBe(false)
    await expect(crypto.subtle.exportKey("jwk", key.cryptoKeyPair.privateKey)).rejects.toThrow()
  })
})

/** A signer that signs with `key` but claims to be `claimed` (a wallet answering for the wrong account). */
const localSignerAs = (key: Keypair, claimed: Keypair): MessageSigner => ({
  signMessage: async (message) => ({
    signedMessage: Buffer.from(key.signMessage(message)).toString("base64"),
    signerAddress: claimed.publicKey()
  })
})

describe("sealed amounts", () => {
  it("round-trips for three members, in the agreed shape, with digest = sha256(keyCommitment ‖ nonce ‖ ciphertext)", async () => {
    const three = await members(3)
    const envelope = await sealAmounts(BATCH, AMOUNTS, recipientsOf(three))
    expect(envelope.version).toBe(2)
    expect(envelope.suite).toBe("X25519-HKDF-SHA256/HKDF-SHA256/ChaCha20Poly1305")
    expect(fromBase64Url(envelope.nonce)).toHaveLength(12)
    expect(envelope.recipients.map((r) => r.memberId)).toEqual(["mem_0", "mem_1", "mem_2"])
    expect(fromBase64Url(envelope.keyCommitment)).toHaveLength(32)
    for (const [i, r] of envelope.recipients.entries()) {
      expect(r.sealingKey).toBe(three[i]!.keyPair.publicKey)
      expect(fromBase64Url(r.enc)).toHaveLength(32)
      expect(fromBase64Url(r.wrappedKey)).toHaveLength(48)
    }
    for (const m of three) expect(await openAmounts(envelope, BATCH, m.memberId, m.keyPair)).toEqual(AMOUNTS)
    const hash = createHash("sha256")
      .update(fromBase64Url(envelope.keyCommitment)!)
      .update(fromBase64Url(envelope.nonce)!)
      .update(fromBase64Url(envelope.ciphertext)!)
      .digest("hex")
    expect(digest(envelope)).toBe(hash)
    expect(JSON.stringify(envelope)).not.toContain("1234.5")
  })

  it("spells amounts as decimals with 7 places in the sealed document, its key committed to as sha256(label ‖ key)", async () => {
    const [m] = await members(1)
    const envelope = await sealAmounts(BATCH, AMOUNTS, recipientsOf([m!]))
    const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })
    const entry = envelope.recipients[0]!
    const contentKey = await suite.open(
      { recipientKey: m!.keyPair.cryptoKeyPair, enc: fromBase64Url(entry.enc)!, info: utf8("confidential-payroll/sealed-amounts/v1") },
      fromBase64Url(entry.wrappedKey)!,
      utf8(`${BATCH}\nmem_0`)
    )
    const commitment = createHash("sha256").update("confidential-payroll/key-commitment/v1").update(new Uint8Array(contentKey)).digest()
    expect(toBase64Url(commitment)).toBe(envelope.keyCommitment)
    const plaintext = await new Chacha20Poly1305()
      .createEncryptionContext(contentKey)
      .open(fromBase64Url(envelope.nonce)!, fromBase64Url(envelope.ciphertext)!, utf8(BATCH))
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({
      batchId: BATCH,
      amounts: [
        { payoutId: "pay_1", amount: "12345.0000000" },
        { payoutId: "pay_2", amount: "0.0000001" },
        { payoutId: "pay_3", amount: "0.0000000" }
      ]
    })
  })

  it("does not open for a member it was not sealed for", async () => {
    const [a, b, outsider] = await members(3)
    const envelope = await sealAmounts(BATCH, AMOUNTS, recipientsOf([a!, b!]))
    expect(await openFailure(openAmounts(envelope, BATCH, outsider!.memberId, outsider!.keyPair))).toBe("NotARecipient")
    // Claiming a recipient's id does not help without their key.
    expect(await openFailure(openAmounts(envelope, BATCH, a!.memberId, outsider!.keyPair))).toBe("WrappedKeyRejected")
  })

  it("fails with the typed error on any altered byte, batch id or member id", async () => {
    const three = await members(3)
    const [a] = three
    const envelope = await sealAmounts(BATCH, AMOUNTS, recipientsOf(three))
    const opens = (e: SealedEnvelope, batchId = BATCH, memberId = a!.memberId) => openAmounts(e, batchId, memberId, a!.keyPair)
    const entry = envelope.recipients[0]!
    const withEntry = (changed: Partial<typeof entry>): SealedEnvelope => ({
      ...envelope,
      recipients: [{ ...entry, ...changed }, ...envelope.recipients.slice(1)]
    })
    for (let i = 0; i < 12; i++) {
      expect(await openFailure(opens({ ...envelope, nonce: flip(envelope.nonce, i) }))).toBe("CiphertextRejected")
    }
    const ciphertextLength = fromBase64Url(envelope.ciphertext)!.length
    for (let i = 0; i < ciphertextLength; i++) {
      expect(await openFailure(opens({ ...envelope, ciphertext: flip(envelope.ciphertext, i) }))).toBe("CiphertextRejected")
    }
    for (let i = 0; i < 32; i++) {
      expect(await openFailure(opens(withEntry({ enc: flip(entry.enc, i) })))).toBe("WrappedKeyRejected")
    }
    for (let i = 0; i < 48; i++) {
      expect(await openFailure(opens(withEntry({ wrappedKey: flip(entry.wrappedKey, i) })))).toBe("WrappedKeyRejected")
    }
    // The batch id is the document's AAD and part of each wrapped key's AAD.
    expect(await openFailure(opens(envelope, "bat_02"))).toBe("WrappedKeyRejected")
    // A renamed entry: the member is no longer listed, and the new name does not authenticate.
    const renamed = withEntry({ memberId: "mem_9" })
    expect(await openFailure(opens(renamed))).toBe("NotARecipient")
    expect(await openFailure(opens(renamed, BATCH, "mem_9"))).toBe("WrappedKeyRejected")
    // Two members' entries swapped: each name now points at the other's wrapped key.
    const [e0, e1, e2] = envelope.recipients
    const swapped = { ...envelope, recipients: [{ ...e0!, memberId: e1!.memberId }, { ...e1!, memberId: e0!.memberId }, e2!] }
    expect(await openFailure(opens(swapped))).toBe("WrappedKeyRejected")
    // Another commitment: the member's key is not the one it names.
    for (let i = 0; i < 32; i++) {
      expect(await openFailure(opens({ ...envelope, keyCommitment: flip(envelope.keyCommitment, i) }))).toBe("KeyCommitmentMismatch")
    }
    // Version 1 (no commitment) opens no more; not this version or suite, a short nonce, a member listed twice, not base64url.
    const { keyCommitment: _, ...uncommitted } = envelope
    expect(await openFailure(opens({ ...uncommitted, version: 1 } as unknown as SealedEnvelope))).toBe("VersionOutdated")
    expect(await openFailure(opens({ ...envelope, version: 3 } as unknown as SealedEnvelope))).toBe("Malformed")
    expect(await openFailure(opens(uncommitted as unknown as SealedEnvelope))).toBe("Malformed")
    expect(await openFailure(opens({ ...envelope, suite: "X25519/AES" } as unknown as SealedEnvelope))).toBe("Malformed")
    expect(await openFailure(opens({ ...envelope, nonce: envelope.nonce.slice(0, 8) }))).toBe("Malformed")
    expect(await openFailure(opens({ ...envelope, recipients: [entry, entry] }))).toBe("Malformed")
    expect(await openFailure(opens({ ...envelope, ciphertext: `${envelope.ciphertext}=` }))).toBe("Malformed")
  })

  it("shares with a member who joins later, keeping every entry, the nonce, the ciphertext and so the digest", async () => {
    const [a, b, late] = await members(3)
    const envelope = await sealAmounts(BATCH, AMOUNTS, recipientsOf([a!, b!]))
    expect(unsharedReaders(envelope, recipientsOf([a!, b!, late!])).map((r) => r.memberId)).toEqual([late!.memberId])
    const shared = await shareWith(envelope, BATCH, b!, recipientsOf([a!, b!, late!]))
    expect(shared.nonce).toBe(envelope.nonce)
    expect(shared.ciphertext).toBe(envelope.ciphertext)
    expect(shared.keyCommitment).toBe(envelope.keyCommitment)
    expect(digest(shared)).toBe(digest(envelope))
    expect(shared.recipients.slice(0, 2)).toEqual(envelope.recipients)
    expect(shared.recipients.map((r) => r.memberId)).toEqual(["mem_0", "mem_1", "mem_2"])
    expect(unsharedReaders(shared, recipientsOf([a!, b!, late!]))).toEqual([])
    for (const m of [a!, b!, late!]) expect(await openAmounts(shared, BATCH, m.memberId, m.keyPair)).toEqual(AMOUNTS)
    // Only a reader can share.
    expect(await openFailure(shareWith(envelope, BATCH, late!, recipientsOf([late!])))).toBe("NotARecipient")
  })

  it("re-wraps for a member who published another key and leaves out one who is no reader any more, keeping the rest in place", async () => {
    const [a, b, c] = await members(3)
    const envelope = await sealAmounts(BATCH, AMOUNTS, recipientsOf([a!, b!, c!]))
    const rotated = { memberId: b!.memberId, keyPair: await keyFrom(42) }
    const shared = await shareWith(envelope, BATCH, c!, recipientsOf([a!, rotated, c!]))
    expect(shared.recipients).toEqual([envelope.recipients[0], envelope.recipients[2], expect.objectContaining({ memberId: b!.memberId, sealingKey: rotated.keyPair.publicKey })])
    expect(await openAmounts(shared, BATCH, b!.memberId, rotated.keyPair)).toEqual(AMOUNTS)
    const without = await shareWith(envelope, BATCH, a!, recipientsOf([a!, c!]))
    expect(without.recipients).toEqual([envelope.recipients[0], envelope.recipients[2]])
    expect(digest(without)).toBe(digest(envelope))
  })

  it("detects a reader handed another content key than the one the digest commits to", async () => {
    // A hostile sealer: one ciphertext, the commitment of key 1, and reader b's entry wrapping key 2 instead.
    const [a, b] = await members(2)
    const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })
    const honest = await sealAmounts(BATCH, AMOUNTS, recipientsOf([a!, b!]))
    const other = crypto.getRandomValues(new Uint8Array(32))
    const wrapped = await suite.seal(
      { recipientPublicKey: await suite.kem.deserializePublicKey(fromBase64Url(b!.keyPair.publicKey)!), info: utf8("confidential-payroll/sealed-amounts/v1") },
      other,
      utf8(`${BATCH}
${b!.memberId}`)
    )
    const entry = { ...honest.recipients[1]!, enc: toBase64Url(new Uint8Array(wrapped.enc)), wrappedKey: toBase64Url(new Uint8Array(wrapped.ct)) }
    const hostile: SealedEnvelope = { ...honest, recipients: [honest.recipients[0]!, entry] }
    expect(await openAmounts(hostile, BATCH, a!.memberId, a!.keyPair)).toEqual(AMOUNTS)
    expect(await openFailure(openAmounts(hostile, BATCH, b!.memberId, b!.keyPair))).toBe("KeyCommitmentMismatch")
    // Nor can the sealer commit to key 2 for the same digest: the digest covers the commitment.
    const recommitted = { ...hostile, keyCommitment: toBase64Url(keyCommitment(other)) }
    expect(digest(recommitted)).not.toBe(digest(honest))
    expect(await openFailure(openAmounts(recommitted, BATCH, a!.memberId, a!.keyPair))).toBe("KeyCommitmentMismatch")
    // Shares check the commitment too: a reader with the wrong key shares nothing.
    expect(await openFailure(shareWith(hostile, BATCH, b!, recipientsOf([a!, b!])))).toBe("KeyCommitmentMismatch")
  })

  it("refuses inputs it cannot seal", async () => {
    const [a] = await members(1)
    const to = recipientsOf([a!])
    await expect(sealAmounts(BATCH, [{ payoutId: "p", amount: -1n }], to)).rejects.toMatchObject({ reason: "AmountInvalid" })
    await expect(sealAmounts(BATCH, [...AMOUNTS, AMOUNTS[0]!], to)).rejects.toMatchObject({ reason: "AmountInvalid" })
    await expect(sealAmounts(BATCH, AMOUNTS, [])).rejects.toMatchObject({ reason: "NoRecipients" })
    await expect(sealAmounts(BATCH, AMOUNTS, [...to, ...to])).rejects.toMatchObject({ reason: "DuplicateRecipient" })
    await expect(sealAmounts(BATCH, AMOUNTS, [{ memberId: "m", sealingKey: "abc" }])).rejects.toMatchObject({
      reason: "SealingKeyInvalid"
    })
    // The all-zero X25519 point (and any low-order one) gives an all-zero shared secret, which X25519 refuses.
    await expect(sealAmounts(BATCH, AMOUNTS, [{ memberId: "m", sealingKey: toBase64Url(new Uint8Array(32)) }])).rejects.toMatchObject({
      reason: "SealingKeyInvalid"
    })
    await expect(sealAmounts("a\nb", AMOUNTS, to)).rejects.toMatchObject({ reason: "IdentifierInvalid" })
  })

  it("opens exactly the amounts sealed, for every one of 1..10 recipients (property)", async () => {
    const pool = await members(10, 100)
    const amountList = fc.uniqueArray(
      fc.record({ payoutId: fc.stringMatching(/^pay_[a-z0-9]{1,12}$/), amount: fc.bigInt({ min: 0n, max: (1n << 127n) - 1n }) }),
      { maxLength: 40, selector: (a) => a.payoutId }
    )
    await fc.assert(
      fc.asyncProperty(amountList, fc.integer({ min: 1, max: 10 }), async (amounts, n) => {
        const readers = pool.slice(0, n)
        const envelope = await sealAmounts(BATCH, amounts, recipientsOf(readers))
        for (const m of readers) expect(await openAmounts(envelope, BATCH, m.memberId, m.keyPair)).toEqual(amounts)
      }),
      { numRuns: 30 }
    )
  })
})

describe("sealed receipts", () => {
  const receipt = {
    batchId: BATCH,
    payoutId: "pay_1",
    amount: 12_345_000_0000n,
    ephemeral: 0x1234n,
    sigma: (1n << 250n) + 7n
  }

  it("round-trips per payout and opens neither as another payout's receipt nor as the batch's amounts", async () => {
    const [a, b] = await members(2)
    const envelope = await sealReceipt(receipt, recipientsOf([a!, b!]))
    for (const m of [a!, b!]) {
      expect(await openReceipt(envelope, { batchId: BATCH, payoutId: "pay_1" }, m.memberId, m.keyPair)).toEqual(receipt)
    }
    const elsewhere = openReceipt(envelope, { batchId: BATCH, payoutId: "pay_2" }, a!.memberId, a!.keyPair)
    expect(await openFailure(elsewhere)).toBe("WrappedKeyRejected")
    expect(await openFailure(openAmounts(envelope, BATCH, a!.memberId, a!.keyPair))).toBe("WrappedKeyRejected")
  })
})

const utf8 = (text: string) => new TextEncoder().encode(text)
const hex = (text: string) => Uint8Array.from(Buffer.from(text, "hex"))

// RFC 9180 Appendix A.2.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305, mode base (0), and its first
// encryption (sequence number 0), as the RFC prints them.
const A_2_1 = {
  info: "4f6465206f6e2061204772656369616e2055726e",
  ikmE: "909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b",
  pkEm: "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a",
  ikmR: "1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df",
  pkRm: "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a",
  skRm: "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb",
  enc: "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a",
  pt: "4265617574792069732074727574682c20747275746820626561757479",
  aad: "436f756e742d30",
  ct: "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28"
}

describe("RFC 9180 conformance of @hpke/core with @hpke/chacha20poly1305", () => {
  const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })
  const rawPublic = async (key: Awaited<ReturnType<typeof crypto.subtle.importKey>>) =>
    Buffer.from(await suite.kem.serializePublicKey(key)).toString("hex")

  it("derives A.2.1's key pairs (DeriveKeyPair) and reproduces its enc and first ciphertext", async () => {
    const recipient = await suite.kem.deriveKeyPair(hex(A_2_1.ikmR))
    expect(await rawPublic(recipient.publicKey)).toBe(A_2_1.pkRm)
    expect(Buffer.from(await suite.kem.serializePrivateKey(recipient.privateKey)).toString("hex")).toBe(A_2_1.skRm)
    expect(await rawPublic((await suite.kem.deriveKeyPair(hex(A_2_1.ikmE))).publicKey)).toBe(A_2_1.pkEm)
    const recipientPublicKey = await suite.kem.deserializePublicKey(hex(A_2_1.pkRm))
    // ekm fixes the ephemeral key to DeriveKeyPair(ikmE), as the RFC's vectors do; sealing never passes it.
    const sealed = await suite.seal({ recipientPublicKey, info: hex(A_2_1.info), ekm: hex(A_2_1.ikmE) }, hex(A_2_1.pt), hex(A_2_1.aad))
    expect(Buffer.from(sealed.enc).toString("hex")).toBe(A_2_1.enc)
    expect(Buffer.from(sealed.ct).toString("hex")).toBe(A_2_1.ct)
    const recipientKey = await suite.kem.importKey("raw", hex(A_2_1.skRm).buffer, false)
    const opened = await suite.open({ recipientKey, enc: hex(A_2_1.enc), info: hex(A_2_1.info) }, hex(A_2_1.ct), hex(A_2_1.aad))
    expect(Buffer.from(opened).toString("hex")).toBe(A_2_1.pt)
  })
})

describe("sealing in a browser bundle", () => {
  it("has no node:* import; only @hpke/common's never-taken fallback names 'crypto'", async () => {
    const esbuild = await import("esbuild")
    const root = Path.resolve(import.meta.dirname, "../..")
    const result = await esbuild.build({
      entryPoints: [Path.join(root, "client/src/sealing/index.ts")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent"
    })
    const metafile: Metafile = result.metafile
    const external = Object.entries(metafile.inputs).flatMap(([file, input]) =>
      input.imports.filter((i) => i.external === true || /^node:/.test(i.path)).map((i) => ({ file, path: i.path }))
    )
    expect(external.filter((i) => i.path.startsWith("node:"))).toEqual([])
    for (const i of external) {
      expect(i.path).toBe("crypto")
      expect(i.file).toMatch(/node_modules\/@hpke\/common\//)
    }
  })
})
