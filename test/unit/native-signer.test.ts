import { describe, expect, it } from "@effect/vitest"
import { Account, Keypair, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk"
import fc from "fast-check"
import { nativeSigner } from "../../src/Auth/NativeSigner.ts"

describe("nativeSigner", () => {
  it("signs exactly as Keypair.sign does, for any key and transaction", () =>
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), (seed, value, minTime) => {
        const keypair = Keypair.fromRawEd25519Seed(Buffer.from(seed))
        const build = () =>
          new TransactionBuilder(new Account(keypair.publicKey(), "-1"), {
            fee: "100",
            networkPassphrase: Networks.TESTNET,
            timebounds: { minTime, maxTime: minTime + 300 }
          }).addOperation(Operation.manageData({ name: "payroll.test auth", value: Buffer.from(value) })).build()
        const bySdk = build()
        bySdk.sign(keypair)
        const native = build()
        nativeSigner(keypair)(native)
        expect(native.toXDR()).toBe(bySdk.toXDR())
      }),
      { numRuns: 100, seed: 23 }
    ))
})
