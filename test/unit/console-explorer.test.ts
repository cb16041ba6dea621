import { describe, expect, it } from "@effect/vitest"
import { Networks } from "@stellar/stellar-sdk"
import fc from "fast-check"
import { explorerName, explorerTxUrl } from "../../console/src/lib/Explorer.ts"

const HASH = "4142bd200f05c01eab15b78a49f33d71aeb7d2166fedc23c2a903fbb5628ed93"

describe("the console's explorer links", () => {
  it("link testnet and the public network to their StellarExpert explorer, and nothing else", () => {
    expect(explorerTxUrl(Networks.TESTNET, HASH)).toBe(`https://stellar.expert/explorer/testnet/tx/${HASH}`)
    expect(explorerTxUrl(Networks.PUBLIC, HASH)).toBe(`https://stellar.expert/explorer/public/tx/${HASH}`)
    expect(explorerTxUrl(Networks.PUBLIC, HASH.toUpperCase())).toBe(`https://stellar.expert/explorer/public/tx/${HASH}`)
    expect([explorerName(Networks.TESTNET), explorerName(Networks.PUBLIC)]).toEqual(["testnet", "public network"])
    // A standalone network (the proving suites' loopback), futurenet (StellarExpert does not explore it), a network not
    // known yet.
    for (const other of [Networks.STANDALONE, Networks.FUTURENET, Networks.SANDBOX, undefined]) {
      expect([other, explorerTxUrl(other, HASH), explorerName(other)]).toEqual([other, undefined, undefined])
    }
  })

  it("link only a transaction hash, and only to stellar.expert, whatever the passphrase and the hash", () => {
    const passphrase = fc.oneof(
      fc.constantFrom(Networks.TESTNET, Networks.PUBLIC, Networks.FUTURENET, "__proto__", "constructor", "toString"),
      fc.string()
    )
    const hash = fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{64}$/), fc.string(), fc.stringMatching(/^[0-9a-f]{64}[/?#.][\s\S]*$/))
    fc.assert(fc.property(passphrase, hash, (network, tx) => {
      const url = explorerTxUrl(network, tx)
      const linked = (network === Networks.TESTNET || network === Networks.PUBLIC) && /^[0-9a-f]{64}$/i.test(tx)
      expect(url === undefined).toBe(!linked)
      if (url !== undefined) {
        expect(url).toMatch(/^https:\/\/stellar\.expert\/explorer\/(testnet|public)\/tx\/[0-9a-f]{64}$/)
        expect(new URL(url).host).toBe("stellar.expert")
      }
    }), { numRuns: 2000 })
  })
})
