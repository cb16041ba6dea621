import { describe, expect, it } from "@effect/vitest"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { StrKey as BrowserStrKey } from "../../console/src/lib/StrKey.ts"

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** A key with one character changed: the checksum (or the version) no longer holds, mostly. */
const mutate = (key: string, at: number) => {
  const next = ALPHABET[(ALPHABET.indexOf(key[at]!) + 1 + (at % 31)) % 32]!
  return key.slice(0, at) + next + key.slice(at + 1)
}

describe("the console's StrKey (the browser's stand-in for the SDK's)", () => {
  it("answers as the SDK does for accounts, contracts, their mutations and other strings", () => {
    const samples: Array<unknown> = ["", "G", "not a key", 42, null, `G${"A".repeat(55)}`, `C${"A".repeat(55)}`]
    for (let i = 0; i < 200; i++) {
      const account = Keypair.random().publicKey()
      const contract = StrKey.encodeContract(randomBytes(32))
      samples.push(account, contract, StrKey.encodeEd25519SecretSeed(randomBytes(32)), StrKey.encodeMed25519PublicKey(randomBytes(40)))
      samples.push(mutate(account, i % 56), mutate(contract, (i * 7) % 56), account.toLowerCase(), `${account}A`, account.slice(1))
    }
    for (const sample of samples) {
      expect([sample, BrowserStrKey.isValidEd25519PublicKey(sample)]).toEqual([sample, StrKey.isValidEd25519PublicKey(sample as string)])
      expect([sample, BrowserStrKey.isValidContract(sample)]).toEqual([sample, StrKey.isValidContract(sample as string)])
    }
  })
})
