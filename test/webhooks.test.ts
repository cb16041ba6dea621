import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { call, employer } from "./support/Client.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { deliveryLog, logUntil, payPayout, readyPayout, registerWebhook } from "./support/WebhookPayroll.ts"
import { webhookReceiver } from "./support/WebhookReceiver.ts"

/** Loopback receivers are allowed here; the retry schedule runs in tenths of a second, four attempts in all. */
const CONFIG = {
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_BASE: "150 millis",
  WEBHOOK_MAX_ATTEMPTS: "4",
  WEBHOOK_TIMEOUT: "1 second"
}

const EVENTS = ["payout.settled", "payout.failed", "batch.completed", "batch_run.completed"]

layer(TestAppLive(CONFIG, { ledgerIntervalMs: 20 }), { timeout: 90_000, excludeTestServices: true })("webhooks", (it) => {
  it.scoped("a settled payout is delivered as payout.settled then batch.completed, signed as standardwebhooks verifies", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const receiver = yield* webhookReceiver("127.0.0.2")
      const payer = yield* walletEmployer(app, "Signed Co")
      const endpoint = yield* registerWebhook(app, payer.token, `${receiver.url}/hooks?token=abc`, EVENTS)
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      expect(Buffer.from(endpoint.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24)

      const payout = yield* readyPayout(app, payer.token)
      yield* payPayout(app, payer, payout)
      const arrived = yield* receiver.waitFor(2)
      const settled = arrived.find((r) => JSON.parse(r.body).type === "payout.settled")
      const completed = arrived.find((r) => JSON.parse(r.body).type === "batch.completed")

      const verifier = new Webhook(endpoint.secret)
      for (const request of [settled!, completed!]) {
        expect(request.path).toBe("/hooks?token=abc")
        expect(request.headers["content-type"]).toBe("application/json")
        expect(() => verifier.verify(request.body, request.headers)).not.toThrow()
      }
      expect(() => new Webhook(Buffer.alloc(32, 1).toString("base64")).verify(settled!.body, settled!.headers)).toThrow()
      expect(() => verifier.verify(settled!.body.replace("settled", "failed"), settled!.headers)).toThrow()

      const body = JSON.parse(settled!.body)
      expect(body).toMatchObject({
        type: "payout.settled",
        data: { payoutId: payout.payoutId, batchId: payout.batchId, contractorId: payout.contractorId }
      })
      expect(typeof body.data.hash).toBe("string")
      expect(Date.parse(body.timestamp)).not.toBeNaN()
      expect(JSON.parse(completed!.body)).toMatchObject({
        type: "batch.completed",
        data: { batchId: payout.batchId, payoutCount: 1, settledCount: 1, failedCount: 0 }
      })

      const log = yield* logUntil(app, payer.token, endpoint.id, (items) => items.length === 2 && items.every((d) => d.status === "delivered"))
      expect(log.map((d) => d.type).sort()).toEqual(["batch.completed", "payout.settled"])
      expect(log.every((d) => d.attempts === 1 && d.lastStatusCode === 200 && d.nextAttemptAt === null)).toBe(true)
      expect(new Set(log.map((d) => d.eventId))).toEqual(new Set([settled!.headers["webhook-id"], completed!.headers["webhook-id"]]))

      const listed = yield* call(app, "GET", "/webhooks", { token: payer.token })
      expect(listed.body.items).toEqual([{ id: endpoint.id, url: endpoint.url, events: EVENTS, createdAt: endpoint.createdAt, status: "enabled", disabledAt: null, disabledReason: null, previousSecretExpiresAt: null }])
      expect(JSON.stringify(listed.body)).not.toContain(endpoint.secret.slice(6))
    }))

  it.scoped("a receiver that fails and then recovers gets the event after backing off; the log shows each attempt", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const receiver = yield* webhookReceiver("::1", (n) => (n < 2 ? 500 : 204))
      const payer = yield* walletEmployer(app, "Flaky Co")
      const endpoint = yield* registerWebhook(app, payer.token, `${receiver.url}/`, ["payout.settled"])
      const payout = yield* readyPayout(app, payer.token)
      yield* payPayout(app, payer, payout)

      const tries = yield* receiver.waitFor(3)
      expect(new Set(tries.map((t) => t.headers["webhook-id"])).size).toBe(1)
      expect(new Set(tries.map((t) => t.body)).size).toBe(1)
      // Exponential backoff: 150 ms, then 300 ms.
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(140)
      expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(290)
      for (const t of tries) expect(() => new Webhook(endpoint.secret).verify(t.body, t.headers)).not.toThrow()

      const [delivery] = yield* logUntil(app, payer.token, endpoint.id, (items) => items[0]?.status === "delivered")
      expect(delivery).toMatchObject({ type: "payout.settled", status: "delivered", attempts: 3, lastStatusCode: 204, lastError: null, nextAttemptAt: null })
      const failedOnly = yield* call(app, "GET", `/webhooks/${endpoint.id}/deliveries?status=failed`, { token: payer.token })
      expect(failedOnly.body.items).toEqual([])
    }))

  it.scoped("a delivery failing every attempt fails, the endpoint is disabled and gets nothing; a resend enables it and delivers the same event", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const receiver = yield* webhookReceiver("127.0.0.1", () => 503)
      const payer = yield* walletEmployer(app, "Down Co")
      const endpoint = yield* registerWebhook(app, payer.token, `http://localhost:${new URL(receiver.url).port}/down`, ["payout.settled", "batch.completed"])
      const first = yield* readyPayout(app, payer.token)
      yield* payPayout(app, payer, first)

      const log = yield* logUntil(app, payer.token, endpoint.id, (items) => items.length === 2 && items.every((d) => d.status === "failed"))
      expect(log.some((d) => d.attempts === 4 && d.lastStatusCode === 503 && d.lastError === "HTTP 503")).toBe(true)
      const listed = yield* call(app, "GET", "/webhooks", { token: payer.token })
      expect(listed.body.items[0]).toMatchObject({ id: endpoint.id, status: "disabled" })
      expect(listed.body.items[0].disabledReason).toContain("every attempt")

      // A disabled endpoint is sent nothing new.
      const seen = receiver.received.length
      const second = yield* readyPayout(app, payer.token)
      yield* payPayout(app, payer, second)
      yield* Effect.sleep("1 second")
      expect(receiver.received.length).toBe(seen)
      expect((yield* deliveryLog(app, payer.token, endpoint.id)).length).toBe(2)

      receiver.answer = () => 200
      const settled = log.find((d) => d.type === "payout.settled")!
      const resent = yield* call(app, "POST", `/webhooks/${endpoint.id}/deliveries/${settled.id}/resend`, { token: payer.token })
      expect(resent.status).toBe(202)
      expect(resent.body).toMatchObject({ eventId: settled.eventId, type: "payout.settled", status: "pending" })
      const after = yield* logUntil(app, payer.token, endpoint.id, (items) => items.some((d) => d.id === resent.body.id && d.status === "delivered"))
      expect(after.find((d) => d.id === settled.id)).toMatchObject({ status: "failed", attempts: 4 })
      const last = receiver.received[receiver.received.length - 1]!
      expect(last.headers["webhook-id"]).toBe(settled.eventId)
      expect(() => new Webhook(endpoint.secret).verify(last.body, last.headers)).not.toThrow()
      expect((yield* call(app, "GET", "/webhooks", { token: payer.token })).body.items[0]).toMatchObject({ status: "enabled", disabledAt: null })
    }))

  it.scoped("another organization's endpoints and deliveries answer 404; API keys may not manage webhooks (403)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const receiver = yield* webhookReceiver("127.0.0.2")
      const owner = yield* walletEmployer(app, "Owner Co")
      const stranger = yield* employer(app, "Stranger Co")
      const endpoint = yield* registerWebhook(app, owner.token, receiver.url, ["payout.settled"])
      const payout = yield* readyPayout(app, owner.token)
      yield* payPayout(app, owner, payout)
      const [delivery] = yield* logUntil(app, owner.token, endpoint.id, (items) => items.length === 1)

      expect((yield* call(app, "GET", "/webhooks", { token: stranger.token })).body).toEqual({ items: [] })
      for (const [method, path] of [
        ["GET", `/webhooks/${endpoint.id}/deliveries`],
        ["POST", `/webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`],
        ["DELETE", `/webhooks/${endpoint.id}`]
      ] as const) {
        const answer = yield* call(app, method, path, { token: stranger.token })
        expect([path, answer.status, answer.body._tag]).toEqual([path, 404, "NotFound"])
      }
      const other = yield* registerWebhook(app, stranger.token, receiver.url, ["payout.settled"])
      const crossed = yield* call(app, "POST", `/webhooks/${other.id}/deliveries/${delivery.id}/resend`, { token: stranger.token })
      expect(crossed.status).toBe(404)

      const key = yield* call(app, "POST", "/api-keys", { token: owner.token, json: { name: "runner", scopes: ["batches:read", "batches:write", "directory:read"] } })
      for (const [method, path, json] of [
        ["GET", "/webhooks", undefined],
        ["POST", "/webhooks", { url: receiver.url, events: ["payout.settled"] }],
        ["GET", `/webhooks/${endpoint.id}/deliveries`, undefined]
      ] as const) {
        const answer = yield* call(app, method, path, { token: key.body.key, ...(json === undefined ? {} : { json }) })
        expect([path, answer.status]).toEqual([path, 403])
      }

      expect((yield* call(app, "DELETE", `/webhooks/${endpoint.id}`, { token: owner.token })).status).toBe(204)
      expect((yield* call(app, "GET", `/webhooks/${endpoint.id}/deliveries`, { token: owner.token })).status).toBe(404)
    }))

  it.scoped("registration refuses what is not a webhook URL (400) and more than 20 endpoints (409); an unknown cursor is 400", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app, "Form Co")
      for (const url of ["ftp://127.0.0.2/x", "http://user:pw@127.0.0.2/x", "http://127.0.0.2/x#frag", "not a url", "/relative"]) {
        const answer = yield* call(app, "POST", "/webhooks", { token, json: { url, events: ["payout.settled"] } })
        expect([url, answer.status, answer.body._tag]).toEqual([url, 400, "InvalidRequest"])
      }
      const none = yield* call(app, "POST", "/webhooks", { token, json: { url: "http://127.0.0.2/x", events: [] } })
      expect(none.status).toBe(400)
      const unknown = yield* call(app, "POST", "/webhooks", { token, json: { url: "http://127.0.0.2/x", events: ["payout.lost"] } })
      expect(unknown.status).toBe(400)
      for (let i = 0; i < 20; i++) yield* registerWebhook(app, token, `http://127.0.0.2:9/${i}`, ["batch.completed"])
      const over = yield* call(app, "POST", "/webhooks", { token, json: { url: "http://127.0.0.2:9/21", events: ["batch.completed"] } })
      expect(over.status).toBe(409)
      const listed = yield* call(app, "GET", "/webhooks", { token })
      expect(listed.body.items.length).toBe(20)
      const bad = yield* call(app, "GET", `/webhooks/${listed.body.items[0].id}/deliveries?cursor=nope`, { token })
      expect(bad.status).toBe(400)
    }))

  it.scoped("a pending delivery's next attempt goes to the endpoint's new URL", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      // The old receiver refuses the first attempt and leaves any later one unanswered (each then takes the whole
      // WEBHOOK_TIMEOUT): the move has seconds to land before the retries run out.
      const old = yield* webhookReceiver("127.0.0.2", (n) => (n === 0 ? 503 : "hold"))
      const moved = yield* webhookReceiver("127.0.0.3")
      const payer = yield* walletEmployer(app, "Moving Co")
      const endpoint = yield* registerWebhook(app, payer.token, `${old.url}/a`, ["payout.settled"])
      yield* payPayout(app, payer, yield* readyPayout(app, payer.token))
      const [refused] = yield* old.waitFor(1)
      const changed = yield* call(app, "PATCH", `/webhooks/${endpoint.id}`, { token: payer.token, json: { url: `${moved.url}/b` } })
      expect(changed.status).toBe(200)
      const [arrived] = yield* moved.waitFor(1)
      expect(arrived!.path).toBe("/b")
      expect(arrived!.headers["webhook-id"]).toBe(refused!.headers["webhook-id"])
      expect(arrived!.body).toBe(refused!.body)
      const [delivery] = yield* logUntil(app, payer.token, endpoint.id, (items) => items[0]?.status === "delivered")
      expect(delivery!.attempts).toBeGreaterThanOrEqual(2)
    }))

  it.scoped("a rotated-out secret signs beside the new one for its overlap; PATCH moves the endpoint and its event types", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const before = yield* webhookReceiver("127.0.0.2")
      const after = yield* webhookReceiver("127.0.0.3")
      const payer = yield* walletEmployer(app, "Rotating Co")
      const endpoint = yield* registerWebhook(app, payer.token, `${before.url}/old`, ["payout.settled"])
      const path = `/webhooks/${endpoint.id}`

      // A rotation with the default overlap: a day during which both secrets sign.
      const asked = Date.now()
      const rotated = yield* call(app, "POST", `${path}/secret`, { token: payer.token, json: {} })
      expect(rotated.status).toBe(200)
      expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      expect(rotated.body.secret).not.toBe(endpoint.secret)
      const overlapEnds = Date.parse(rotated.body.previousSecretExpiresAt)
      expect(overlapEnds - asked).toBeGreaterThanOrEqual(86_400_000 - 1_000)
      expect(overlapEnds - Date.now()).toBeLessThanOrEqual(86_400_000 + 1_000)
      const listed = yield* call(app, "GET", "/webhooks", { token: payer.token })
      expect(listed.body.items[0]).toMatchObject({ id: endpoint.id, previousSecretExpiresAt: rotated.body.previousSecretExpiresAt })
      expect(JSON.stringify(listed.body)).not.toContain(rotated.body.secret.slice(6))

      yield* payPayout(app, payer, yield* readyPayout(app, payer.token))
      const [signedByBoth] = yield* before.waitFor(1)
      expect(signedByBoth!.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
      for (const secret of [rotated.body.secret, endpoint.secret]) {
        expect(() => new Webhook(secret).verify(signedByBoth!.body, signedByBoth!.headers)).not.toThrow()
      }

      // Rotated again with no overlap: the newest secret alone signs, and the older two no longer verify.
      const again = yield* call(app, "POST", `${path}/secret`, { token: payer.token, json: { overlapSeconds: 0 } })
      expect(again.status).toBe(200)
      expect(again.body.previousSecretExpiresAt).toBeNull()

      // Moved to another receiver, with one more event type; the secret, status and log stay.
      const moved = yield* call(app, "PATCH", path, { token: payer.token, json: { url: `${after.url}/new`, events: ["payout.settled", "batch.completed"] } })
      expect(moved.status).toBe(200)
      expect(moved.body).toMatchObject({
        id: endpoint.id, url: `${after.url}/new`, events: ["payout.settled", "batch.completed"], status: "enabled", previousSecretExpiresAt: null
      })
      yield* payPayout(app, payer, yield* readyPayout(app, payer.token))
      const arrived = yield* after.waitFor(2)
      expect(arrived.map((r) => JSON.parse(r.body).type).sort()).toEqual(["batch.completed", "payout.settled"])
      for (const request of arrived) {
        expect(request.headers["webhook-signature"]!.split(" ")).toHaveLength(1)
        expect(() => new Webhook(again.body.secret).verify(request.body, request.headers)).not.toThrow()
        for (const old of [rotated.body.secret, endpoint.secret]) expect(() => new Webhook(old).verify(request.body, request.headers)).toThrow()
      }
      expect(before.received).toHaveLength(1)
      expect((yield* deliveryLog(app, payer.token, endpoint.id)).length).toBe(3)

      // Each change is in the audit trail; another organization sees no such endpoint; a change of nothing is refused.
      const audited = yield* call(app, "GET", `/audit?limit=100&subjectId=${endpoint.id}`, { token: payer.token })
      expect(audited.body.items.map((e: { action: string }) => e.action)).toEqual([
        "webhook.updated", "webhook.secret_rotated", "webhook.secret_rotated", "webhook.created"
      ])
      expect(audited.body.items[0]).toMatchObject({ from: "payout.settled", to: "payout.settled, batch.completed" })
      expect(JSON.stringify(audited.body)).not.toContain(after.url)
      const stranger = yield* employer(app)
      expect((yield* call(app, "PATCH", path, { token: stranger.token, json: { events: ["batch.completed"] } })).status).toBe(404)
      expect((yield* call(app, "POST", `${path}/secret`, { token: stranger.token, json: {} })).status).toBe(404)
      const nothing = yield* call(app, "PATCH", path, { token: payer.token, json: {} })
      expect([nothing.status, nothing.body.error]).toEqual([400, "nothing to change: give url, events or both"])
      const tooLong = yield* call(app, "POST", `${path}/secret`, { token: payer.token, json: { overlapSeconds: 604_801 } })
      expect(tooLong.status).toBe(400)
      expect(tooLong.body.error).toContain("overlapSeconds")
    }))
})

layer(TestAppLive({ WEBHOOK_RETRY_BASE: "150 millis" }), { timeout: 60_000, excludeTestServices: true })("webhooks without WEBHOOK_ALLOW_PRIVATE", (it) => {
  it.scoped("loopback URLs are refused with 400 at registration: IPv4, IPv6, IPv4-mapped IPv6 and names that resolve to them", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app, "Careful Co")
      for (const url of ["http://127.0.0.2:8080/hook", "https://[::1]/hook", "http://[::ffff:127.0.0.1]/hook", "http://localhost:3000/hook", "https://api.localhost/hook", "http://2130706433/hook"]) {
        const answer = yield* call(app, "POST", "/webhooks", { token, json: { url, events: ["payout.settled"] } })
        expect([url, answer.status, answer.body._tag]).toEqual([url, 400, "InvalidRequest"])
        expect(answer.body.error).toMatch(/^invalid url: /)
      }
      expect((yield* call(app, "GET", "/webhooks", { token })).body).toEqual({ items: [] })
    }))
})
