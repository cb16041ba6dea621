import { Effect } from "effect"
import { ok, type Recipe, type Refusal } from "./ConformanceRecipe.ts"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"
import { innerTransfer } from "./Transfer.ts"

/**
 * A loopback endpoint nobody listens on (the discard port): registering it needs WEBHOOK_ALLOW_PRIVATE=true, and its
 * deliveries fail at once without leaving the machine.
 */
const TARGET = "http://127.0.0.2:9/conformance"

const register = (fx: ConformanceFixtures, token: string, events: ReadonlyArray<string> = ["batch.completed"]) =>
  Effect.map(fx.setUp("POST", "/webhooks", token, { url: TARGET, events }), (endpoint) => endpoint.id as string)

/** An employer's endpoint with one delivery in its log: a payout.settled of a payout paid after it was registered. */
const withDelivery = (fx: ConformanceFixtures) =>
  Effect.gen(function*() {
    const { token, wallet } = yield* fx.payer()
    const id = yield* register(fx, token, ["payout.settled"])
    const { batchId, payoutId, contractor } = yield* fx.batchWithPayout(token)
    yield* fx.setUp("POST", `/batches/${batchId}/ready`, token)
    yield* fx.setUp("POST", "/transfer", token, { signedXDR: innerTransfer(fx.app, wallet, { to: contractor.wallet.publicKey() }), payoutId })
    for (let i = 0; i < 200; i++) {
      const log = yield* fx.setUp("GET", `/webhooks/${id}/deliveries`, token)
      if (log.items.length > 0) return { token, id, deliveryId: log.items[0].id as string }
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage("the settled payout's webhook delivery was never queued")
  })

/** Valid requests of the webhooks' operations (see ConformanceRequests.ts). */
export const webhookRequests: Readonly<Record<string, Recipe>> = {
  "POST /webhooks": (_, e) => Effect.succeed(ok({ token: e.token, json: { url: TARGET, events: ["payout.settled", "batch.completed"] } }, 201)),
  "GET /webhooks": (fx, e) => Effect.map(register(fx, e.token), () => ok({ token: e.token })),
  "DELETE /webhooks/{id}": (fx, e) => Effect.map(register(fx, e.token), (id) => ok({ token: e.token, params: { id } }, 204)),
  "PATCH /webhooks/{id}": (fx, e) =>
    Effect.map(register(fx, e.token), (id) => ok({ token: e.token, params: { id }, json: { events: ["batch.completed", "batch.canceled"] } })),
  "POST /webhooks/{id}/secret": (fx, e) =>
    Effect.map(register(fx, e.token), (id) => ok({ token: e.token, params: { id }, json: { overlapSeconds: 3_600 } })),
  "GET /webhooks/{id}/deliveries": (fx) =>
    Effect.map(withDelivery(fx), ({ token, id }) => ok({ token, params: { id }, query: { limit: "10" } })),
  "POST /webhooks/{id}/deliveries/{deliveryId}/resend": (fx) =>
    Effect.map(withDelivery(fx), ({ token, id, deliveryId }) => ok({ token, params: { id, deliveryId } }, 202))
}

/** Requests of the webhooks' operations that the service refuses by its rules. */
export const webhookRefusals: Readonly<Record<string, Refusal>> = {
  "POST /webhooks": (fx, e) =>
    Effect.gen(function*() {
      const { key } = yield* fx.apiKey(e.token)
      const { token } = yield* fx.payer()
      for (let i = 0; i < 20; i++) yield* register(fx, token)
      return [
        ["url not http(s)", ok({ token: e.token, json: { url: "ftp://127.0.0.2/x", events: ["batch.completed"] } }, 400)],
        ["url with credentials", ok({ token: e.token, json: { url: "http://user:pw@127.0.0.2:9/x", events: ["batch.completed"] } }, 400)],
        ["an API key registering an endpoint", ok({ token: key, json: { url: TARGET, events: ["batch.completed"] } }, 403)],
        ["a 21st endpoint", ok({ token, json: { url: TARGET, events: ["batch.completed"] } }, 409)]
      ] as const
    }),
  "PATCH /webhooks/{id}": (fx, e) =>
    Effect.map(register(fx, e.token), (id) => [
      ["nothing to change", ok({ token: e.token, params: { id }, json: {} }, 400)],
      ["a url with credentials", ok({ token: e.token, params: { id }, json: { url: "http://user:pw@127.0.0.2:9/x" } }, 400)]
    ] as const),
  "POST /webhooks/{id}/secret": (fx, e) =>
    Effect.map(register(fx, e.token), (id) => [
      ["an overlap past a week", ok({ token: e.token, params: { id }, json: { overlapSeconds: 604_801 } }, 400)]
    ] as const),
  "GET /webhooks/{id}/deliveries": (fx, e) =>
    Effect.map(register(fx, e.token), (id) => [
      ["a cursor the service did not hand out", ok({ token: e.token, params: { id }, query: { cursor: "bm9wZQ" } }, 400)]
    ] as const)
}
