// The token's transfer events of one transaction (a payout's hash), read through a Stellar RPC: what a disclosure
// recipient names in a request for one payout, the (tx hash, event index) of SELECTIVE_DISCLOSURE.md §5.1 — the same
// reading as the verifier's step 1 (confidential/disclosure/VerifyChain.ts).
import { rpc, StrKey } from "@stellar/stellar-sdk"
import { Data, Effect } from "effect"
import { decodeTransferEvent, isTransferEvent, type TransferEvent } from "../confidential/disclosure/TransferEvent.ts"
import { contractEvents } from "../confidential/disclosure/VerifyChain.ts"

/** The transaction is not a successful one Stellar RPC holds (it may be outside its retention window). */
export class PayoutNotFound extends Data.TaggedError("PayoutNotFound")<{ readonly message: string }> {}
/** Stellar RPC did not answer. */
export class ChainUnavailable extends Data.TaggedError("ChainUnavailable")<{ readonly message: string }> {}


/** Every transfer or spender_transfer event `contract` emitted in the transaction `txHash`, with its reference. */
export const payoutEvents = (server: rpc.Server, contract: string, txHash: string) =>
  Effect.gen(function*() {
    const tx = yield* Effect.tryPromise({
      try: () => server.getTransaction(txHash),
      catch: (e) => new ChainUnavailable({ message: `Stellar RPC could not give the transaction ${txHash}: ${e instanceof Error ? e.message : String(e)}` })
    })
    if (tx.status !== rpc.Api.GetTransactionStatus.SUCCESS) {
      return yield* new PayoutNotFound({ message: `no successful transaction ${txHash} (${tx.status.toLowerCase()}): check the hash, or Stellar RPC's retention` })
    }
    return contractEvents(tx.resultMetaXdr).flatMap((event, eventIndex): ReadonlyArray<TransferEvent> => {
      if (event.contractId === null || StrKey.encodeContract(event.contractId.toBytes()) !== contract) return []
      const body = event.body.v0
      const decoded = decodeTransferEvent(body.topics, body.data, {
        ref: { txHash, opIndex: 0, eventIndex },
        ledger: tx.ledger,
        closedAt: tx.createdAt * 1000
      })
      return isTransferEvent(decoded) ? [decoded] : []
    })
  })
