import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { ok, type Recipe, type Refusal, refused } from "./ConformanceRecipe.ts"
import { tokenEvents } from "./LoopbackRpc.ts"
import { CONFIDENTIAL_TOKEN } from "./TestApp.ts"

const token = { contractId: CONFIDENTIAL_TOKEN }

/** An account with a history on the loopback token: registered, then a transfer it sent (its checkpoint). */
const accountWithHistory: Recipe = (fx) =>
  Effect.sync(() => {
    const account = Keypair.random().publicKey()
    fx.app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.register(account, 0)])
    const field = () => new Uint8Array(randomBytes(32))
    fx.app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.transfer(account, Keypair.random().publicKey(), {
      r_e_point: new Uint8Array(randomBytes(64)), v_tilde: field(), sigma: field(), b_tilde: field(), v_tilde_aud_r: field(),
      r_tilde_aud_r: field(), v_tilde_aud_s: field(), b_tilde_aud_s: field()
    })])
    return ok({ params: { ...token, account } })
  })

/** Valid requests of the archive's operations (see ConformanceRequests.ts). */
export const archiveRequests: Readonly<Record<string, Recipe>> = {
  "GET /archive/status": () => Effect.succeed(ok({})),
  "GET /archive/tokens/{contractId}/events": () => Effect.succeed(ok({ params: token, query: { limit: "10", types: "register,transfer" } })),
  "GET /archive/tokens/{contractId}/accounts/{account}/events": (fx, e) =>
    Effect.map(accountWithHistory(fx, e), (request) => ({ ...request, query: { limit: "5" } })),
  "GET /archive/tokens/{contractId}/accounts/{account}/checkpoint": accountWithHistory
}

/** Requests of the archive's operations that the service refuses by its rules. */
export const archiveRefusals: Readonly<Record<string, Refusal>> = {
  "GET /archive/tokens/{contractId}/events": () =>
    Effect.succeed([
      ...refused("a token this service does not archive", ok({ params: { contractId: StrKey.encodeContract(randomBytes(32)) } }, 404)),
      ...refused("fromLedger after toLedger", ok({ params: token, query: { fromLedger: "2000", toLedger: "1000" } }, 400))
    ]),
  "GET /archive/tokens/{contractId}/accounts/{account}/events": () =>
    Effect.succeed(refused(
      "a cursor outside the range",
      ok({ params: { ...token, account: Keypair.random().publicKey() }, query: { fromLedger: "1", toLedger: "5", cursor: "0005302424889733120-0000000000" } }, 400)
    )),
  "GET /archive/tokens/{contractId}/accounts/{account}/checkpoint": () =>
    Effect.succeed(refused(
      "a token this service does not archive",
      ok({ params: { contractId: StrKey.encodeContract(randomBytes(32)), account: Keypair.random().publicKey() } }, 404)
    ))
}
