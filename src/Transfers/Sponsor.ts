import { FeeBumpTransaction, type Transaction, xdr } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import { SponsorConfig, StellarConfig } from "../Config.ts"
import { OperationalKeys } from "../Auth/Keys.ts"
import type { Policy } from "./Envelope.ts"

/**
 * The fee sponsor: its policy and its CAP-15 fee-bump. The outer fee is exactly twice the inner fee, which keeps
 * the outer fee rate (fee / (ops + 1)) equal to the inner one for a one-operation transaction; the SDK's
 * `buildFeeBumpTransaction` derives the fee from a base fee instead, so the envelope is built here.
 */
export class Sponsor extends Effect.Service<Sponsor>()("Transfers/Sponsor", {
  effect: Effect.gen(function*() {
    const config = yield* SponsorConfig
    const { networkPassphrase, confidentialTokenContract } = yield* StellarConfig
    const keys = yield* OperationalKeys

    const policy: Policy = {
      allowedContracts: new Set(
        Option.getOrElse(config.allowedContracts, () => Option.toArray(confidentialTokenContract))
      ),
      maxInnerFee: config.maxInnerFee
    }

    const feeBump = (inner: Transaction): FeeBumpTransaction => {
      const envelope = inner.toEnvelope()
      if (envelope.type !== "envelopeTypeTx") throw new Error("the inner transaction must be a v1 envelope")
      const outer = xdr.TransactionEnvelope.envelopeTypeTxFeeBump(
        new xdr.FeeBumpTransactionEnvelope({
          tx: new xdr.FeeBumpTransaction({
            feeSource: keys.sponsor.xdrMuxedAccount(),
            fee: 2n * BigInt(inner.fee),
            innerTx: xdr.FeeBumpTransactionInnerTx.envelopeTypeTx(envelope.v1),
            ext: xdr.FeeBumpTransactionExt.v0()
          }),
          signatures: []
        })
      )
      const tx = new FeeBumpTransaction(outer, networkPassphrase)
      tx.sign(keys.sponsor)
      return tx
    }

    return { policy, quota: config.quota, quotaWindow: config.quotaWindow, feeBump, account: keys.sponsor.publicKey() } as const
  }),
  dependencies: [OperationalKeys.Default]
}) {}
