import { describe, expect, it } from "@effect/vitest"
import { Account, Address, FeeBumpTransaction, Keypair, Networks, Operation, StrKey, Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Duration, Either } from "effect"
import fc from "fast-check"
import { decodeInner, envelopeXdr, txHash, txHashHex, validSigners } from "../../src/Transfers/Envelope.ts"
import { makeSponsor } from "../../src/Transfers/Sponsor.ts"
import { sourceAuthorization, transferData } from "../support/ConfidentialData.ts"

// The transfer path hashes, signs and encodes envelopes with node:crypto and one XDR encode instead of the SDK's
// `hash()`, `sign()` and `toXDR()`. These properties pin every shortcut to the SDK's own results, which are the
// reference: same hash, a signature the SDK verifies, byte-identical envelopes.

const TOKEN = StrKey.encodeContract(Buffer.alloc(32, 3))

const signedTransfer = (wallet: Keypair, sequence: bigint, fee: number, proofBytes: number, passphrase: string) => {
  const args = [
    Address.fromString(wallet.publicKey()).toScVal(),
    Address.fromString(Keypair.random().publicKey()).toScVal(),
    xdr.ScVal.scvBytes(Buffer.from(transferData(proofBytes)))
  ]
  const tx = new TransactionBuilder(new Account(wallet.publicKey(), sequence.toString()), { fee: String(fee), networkPassphrase: passphrase })
    .addOperation(Operation.invokeContractFunction({
      contract: TOKEN,
      function: "confidential_transfer",
      args,
      auth: [sourceAuthorization(TOKEN, "confidential_transfer", args)]
    }))
    .setTimeout(60)
    .build()
  tx.sign(wallet)
  return tx.toXDR()
}

const envelopes = fc.record({
  sequence: fc.bigInt({ min: 0n, max: 2n ** 62n }),
  fee: fc.integer({ min: 100, max: 1_000_000 }),
  proofBytes: fc.integer({ min: 0, max: 16_000 }),
  passphrase: fc.constantFrom(Networks.TESTNET, Networks.PUBLIC, Networks.FUTURENET)
})

describe("envelope work", () => {
  it("hashes, fee-bumps and encodes exactly as the SDK does", () => {
    fc.assert(
      fc.property(envelopes, ({ sequence, fee, proofBytes, passphrase }) => {
        const wallet = Keypair.random()
        const sponsorKey = Keypair.random()
        const signedXDR = signedTransfer(wallet, sequence, fee, proofBytes, passphrase)
        const inner = Either.getOrThrow(decodeInner(signedXDR, passphrase))
        const reference = new Transaction(signedXDR, passphrase)
        expect(txHash(inner).equals(Buffer.from(reference.hash()))).toBe(true)
        expect(validSigners(inner, [wallet.publicKey(), sponsorKey.publicKey()])).toEqual([wallet.publicKey()])

        const sponsor = makeSponsor(
          { allowedContracts: new Set([TOKEN]), maxInnerFee: 2_000_000, quota: 1, quotaWindow: Duration.hours(1) },
          sponsorKey,
          passphrase
        )
        const bumped = sponsor.feeBump(inner)
        // The SDK reads the envelope back: the fee, the inner transaction and its signature are intact.
        const read = new FeeBumpTransaction(envelopeXdr(bumped), passphrase)
        expect(read.toXDR()).toBe(envelopeXdr(bumped))
        expect(read.fee).toBe(String(2 * fee))
        expect(read.feeSource).toBe(sponsorKey.publicKey())
        expect(read.innerTransaction.toXDR()).toBe(reference.toXDR())
        expect(txHashHex(bumped)).toBe(Buffer.from(read.hash()).toString("hex"))
        const [signature] = read.signatures
        expect(read.signatures).toHaveLength(1)
        expect(Buffer.from(signature!.hint.toBytes()).equals(Buffer.from(sponsorKey.signatureHint()))).toBe(true)
        expect(sponsorKey.verify(Buffer.from(read.hash()), Buffer.from(signature!.signature.toBytes()))).toBe(true)
        // Nothing about the inner transaction changed by being wrapped.
        expect(txHash(read.innerTransaction).equals(txHash(inner))).toBe(true)
      }),
      { numRuns: 40 }
    )
  })
})
