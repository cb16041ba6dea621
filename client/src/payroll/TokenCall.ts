import type { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { TokenCallRequest } from "../../../src/Domain/Transfer.ts"
import { type TokenCall, prepareCall } from "../confidential/chain/Calls.ts"
import { makeGroupClient } from "../Client.ts"
import type { ServiceChain } from "./ServiceChain.ts"

/** The calls a wallet makes on its own account through POST /token/calls (a payout goes through POST /transfer). */
export type OwnCall = Exclude<TokenCall, { readonly fn: "confidential_transfer" }>

/**
 * One call on the wallet's own account, as the console's Treasury and Payouts pages send it: prepared (simulated
 * through the gateway at the account's sequence number), signed with `key`, sponsored and followed to the ledger by
 * the service (POST /token/calls); its hash once there. A refusal in simulation is a `SimulationRefusedError`.
 */
export const sendTokenCall = (baseUrl: string, token: string, chain: ServiceChain, key: Keypair, call: OwnCall) =>
  Effect.gen(function*() {
    const account = key.publicKey()
    const prepared = yield* Effect.tryPromise({
      try: async () => {
        const source = await chain.server.getAccount(account)
        return await prepareCall(chain.server, chain.deployment, { account, sequence: source.sequenceNumber() }, call)
      },
      catch: (e) => e
    })
    prepared.sign(key)
    const calls = yield* makeGroupClient("tokenCalls", baseUrl, token)
    const sent = yield* calls.submit({ payload: new TokenCallRequest({ signedXDR: prepared.toXDR() }) })
    return sent.hash
  }).pipe(Effect.withSpan("Payroll.sendTokenCall", { attributes: { fn: call.fn } }))
