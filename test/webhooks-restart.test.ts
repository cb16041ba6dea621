import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { signIn } from "./support/Client.ts"
import { spawnService } from "./support/Spawned.ts"
import { loopbackRpc } from "./support/TestApp.ts"
import { backend, freshDatabase } from "./support/TestDatabase.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { logUntil, payPayout, readyPayout, registerWebhook } from "./support/WebhookPayroll.ts"
import { webhookReceiver } from "./support/WebhookReceiver.ts"

const WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT: "2 seconds", WEBHOOK_RETRY_BASE: "200 millis" }
/** What the restarted instance must share with the killed one: its keys. */
const KEPT = ["JWT_SECRET", "SEP10_SIGNING_SECRET", "SPONSOR_SECRET", "FAUCET_SECRET"] as const

describe(`webhooks across a crash (${backend})`, () => {
  it.live("the instance delivering is SIGKILLed mid-attempt; the next instance on the database delivers the same event", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(50)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const receiver = yield* webhookReceiver("127.0.0.2", (n) => (n === 0 ? "hold" : 200))
      const first = yield* spawnService(rpc, { ...database, ...WEBHOOKS })
      const payer = yield* walletEmployer(first.app, "Crash Co")
      const endpoint = yield* registerWebhook(first.app, payer.token, `${receiver.url}/crash`, ["payout.settled"])
      const payout = yield* readyPayout(first.app, payer.token)
      yield* payPayout(first.app, payer, payout)

      const [held] = yield* receiver.waitFor(1)
      first.child.kill("SIGKILL")
      yield* Effect.promise(() => first.exited)

      const kept = Object.fromEntries(KEPT.map((name) => [name, first.app.config[name]!]))
      const second = yield* spawnService(rpc, { ...database, ...WEBHOOKS, ...kept })
      const [, again] = yield* receiver.waitFor(2, 20_000)
      expect(again!.headers["webhook-id"]).toBe(held!.headers["webhook-id"])
      expect(again!.body).toBe(held!.body)
      expect(() => new Webhook(endpoint.secret).verify(again!.body, again!.headers)).not.toThrow()
      expect(JSON.parse(again!.body)).toMatchObject({ type: "payout.settled", data: { payoutId: payout.payoutId } })

      // Sessions name the instance's URL as their issuer: sign in again at the new one.
      const token = yield* signIn(second.app, payer.wallet)
      const [delivery] = yield* logUntil(second.app, token, endpoint.id, (items) => items[0]?.status === "delivered")
      expect(delivery).toMatchObject({ status: "delivered", attempts: 2, lastStatusCode: 200 })
      expect(receiver.received.length).toBe(2)
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
