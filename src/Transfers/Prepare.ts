import { Account, Address, BASE_FEE, Contract, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Clock, DateTime, Effect, Option } from "effect"
import { StellarConfig } from "../Config.ts"
import { Forbidden, NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import type { Actor } from "../Domain/Actor.ts"
import { SettlementHooks } from "./SettlementHooks.ts"
import type { AccountId } from "../Domain/Stellar.ts"
import { type PrepareTransferRequest, PreparedTransfer, SimulationRefused } from "../Domain/Transfer.ts"
import { confidentialContractError, refuserOf } from "../Stellar/ConfidentialErrors.ts"
import { CONFIDENTIAL_TRANSFER, contractErrorCode } from "../Stellar/ConfidentialToken.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { txHashHex } from "./Envelope.ts"
import { Sponsor } from "./Sponsor.ts"
import * as Spans from "../Observability/Spans.ts"

/** A prepared transaction's validity when the caller names none: time to sign it, short enough to expire soon. */
export const DEFAULT_VALIDITY_SECONDS = 300
/** Simulations this instance runs at once; more callers wait their turn instead of crowding Stellar RPC. */
const CONCURRENT_SIMULATIONS = 16

const rpcDown = (what: string) => () => new UpstreamUnavailable({ error: `could not ${what} through Stellar RPC` })

/**
 * POST /transfers/prepare: the inner `confidential_transfer(from = the caller's wallet, to, data)` built as the
 * network and the sponsor will take it — the account's next sequence number, simulated through Stellar RPC
 * (footprint, resource fee, the source's authorization entry), time bounds and fee within the sponsor's policy —
 * and handed back unsigned. The service never signs it: the wallet does, then posts it to POST /transfer.
 */
export class TransferPreparer extends Effect.Service<TransferPreparer>()("Transfers/TransferPreparer", {
  effect: Effect.gen(function*() {
    const { networkPassphrase, confidentialTokenContract } = yield* StellarConfig
    const rpc = yield* RpcClient
    const sponsor = yield* Sponsor
    const hooks = yield* SettlementHooks
    const permits = yield* Effect.makeSemaphore(CONCURRENT_SIMULATIONS)

    // A code of the token's ranges gets its name; any other keeps its number alone, never a guessed name.
    const refusedBy = (hostError: string) => {
      const code = contractErrorCode(hostError)
      const known = Option.flatMap(code, confidentialContractError)
      return new SimulationRefused({
        error: Option.match(known, {
          onNone: () =>
            Option.match(code, {
              onNone: () => "the simulated transfer failed: the ledger would refuse it too",
              onSome: (n) => `the simulated transfer failed: a contract refused it with error #${n}`
            }),
          onSome: (e) => `the simulated transfer failed: ${refuserOf(e.enumName)} refused it (${e.name}, #${e.code})`
        }),
        hostError,
        ...Option.match(code, { onNone: () => ({}), onSome: (contractError) => ({ contractError }) }),
        ...Option.match(known, { onNone: () => ({}), onSome: (e) => ({ contractErrorName: e.name }) })
      })
    }

    const prepare = Spans.fn("TransferPreparer.prepare")(function*(source: AccountId, actor: Actor, request: PrepareTransferRequest) {
      if (Option.isNone(confidentialTokenContract)) {
        return yield* new NotImplemented({ error: "no confidential token is configured (CONFIDENTIAL_TOKEN_CONTRACT)" })
      }
      const contract = confidentialTokenContract.value
      // The payroll controls before anything reaches the network: the payout must be payable now (409 while its
      // batch is paused, canceled or short of approvals), and with approvals required a transfer must name one.
      if (request.payoutId !== undefined) yield* hooks.checkPayout(actor.orgId, request.payoutId, request.to)
      else if (actor.approvalsRequired > 0) {
        return yield* new Forbidden({
          error: "the organization requires approved batches: the sponsor pays only transfers that name a payout (payoutId)"
        })
      }
      const nowMs = yield* Clock.currentTimeMillis
      const sequence = yield* rpc.getSequence(source).pipe(Effect.mapError(rpcDown("read the wallet's account")))
      if (Option.isNone(sequence)) {
        return yield* new SimulationRefused({
          error: "the wallet's account does not exist on the network: create and fund it first",
          hostError: `Account not found: ${source}`
        })
      }
      const maxTime = Math.floor(nowMs / 1000) + (request.validFor ?? DEFAULT_VALIDITY_SECONDS)
      const call = new Contract(contract).call(
        CONFIDENTIAL_TRANSFER,
        Address.fromString(source).toScVal(),
        Address.fromString(request.to).toScVal(),
        xdr.ScVal.scvBytes(Buffer.from(request.data, "base64"))
      )
      const draft = new TransactionBuilder(new Account(source, sequence.value.toString()), {
        fee: BASE_FEE,
        networkPassphrase,
        timebounds: { minTime: 0, maxTime }
      }).addOperation(call).build()
      const tx = yield* rpc.simulateAndAssemble(draft).pipe(
        Effect.catchTags({
          SimulationFailed: (e) => Effect.fail(refusedBy(e.message)),
          RpcError: rpcDown("simulate the transfer"),
          RpcUnreadable: rpcDown("simulate the transfer")
        }),
        permits.withPermits(1)
      )
      // What POST /transfer will check: the same policy (the fee within the cap above all), as of now.
      yield* sponsor.check(tx, new Date(nowMs))
      return new PreparedTransfer({
        xdr: tx.toXDR(),
        hash: txHashHex(tx),
        networkPassphrase,
        source,
        sequence: tx.sequence,
        fee: tx.fee,
        validUntil: DateTime.unsafeMake(maxTime * 1000)
      })
    })

    return { prepare } as const
  }),
  dependencies: [RpcClient.Default, Sponsor.Default]
}) {}
