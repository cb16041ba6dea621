import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { psql } from "./support/Psql.ts"
import { waitFor } from "./support/WaitFor.ts"
import { call } from "./support/Client.ts"
import { batchOf, must, orgWithEveryRole } from "./support/Members.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { parseToml } from "./support/Toml.ts"
import { innerTransfer, postTransfer } from "./support/Transfer.ts"

/** Sends made to the loopback RPC so far: the network never hears of a refused transfer. */
const sends = (app: TestAppShape) => app.rpc.calls.filter((c) => c.method === "sendTransaction").length

const batchState = (app: TestAppShape, token: string, batchId: string) => must(app, "GET", `/batches/${batchId}`, token)
const payoutStates = (app: TestAppShape, token: string, batchId: string) =>
  Effect.map(must(app, "GET", `/batches/${batchId}/payouts?limit=100`, token), (page) =>
    (page.items as Array<{ id: string; status: string }>).reduce<Record<string, string>>((all, p) => ({ ...all, [p.id]: p.status }), {}))

interface AuditItem {
  readonly id: string
  readonly actor: { readonly type: string; readonly id: string }
  readonly action: string
  readonly subject: { readonly type: string; readonly id: string }
  readonly from?: string
  readonly to?: string
}
const auditOf = (app: TestAppShape, token: string, query: string) =>
  Effect.map(must(app, "GET", `/audit?limit=100&${query}`, token), (page) => page.items as Array<AuditItem>)

/** A loopback endpoint nobody listens on (the discard port): its deliveries are logged, and fail at once. */
const NOWHERE = "http://127.0.0.2:9/controls"

layer(TestAppLive({ WEBHOOK_ALLOW_PRIVATE: "true" }, { ledgerIntervalMs: 20 }), { timeout: 90_000 })("payroll controls", (it) => {
  it.effect("every control writes its webhook event", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Events Co")
      const events = ["batch.approved", "batch.rejected", "batch.paused", "batch.resumed", "batch.canceled", "payout.canceled"]
      const endpoint = yield* must(app, "POST", "/webhooks", m.owner.token, { url: NOWHERE, events })
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 1 })
      const { batchId, payouts } = yield* batchOf(app, m.initiator.token, 2)
      yield* must(app, "POST", `/batches/${batchId}/approve`, m.approver.token)
      yield* must(app, "POST", `/batches/${batchId}/reject`, m.approver.token, { reason: "wrong month" })
      yield* must(app, "POST", `/batches/${batchId}/ready`, m.initiator.token)
      yield* must(app, "POST", `/batches/${batchId}/pause`, m.payer.token)
      yield* must(app, "POST", `/batches/${batchId}/resume`, m.payer.token)
      yield* must(app, "POST", `/batches/${batchId}/payouts/${payouts[0]!.id}/cancel`, m.initiator.token)
      yield* must(app, "POST", `/batches/${batchId}/cancel`, m.initiator.token)
      const log = yield* must(app, "GET", `/webhooks/${endpoint.id}/deliveries?limit=100`, m.owner.token)
      // Events of one transaction may share a millisecond (the log's order then falls to their ids): compared as a set.
      expect((log.items as Array<{ type: string }>).map((d) => d.type).sort()).toEqual([
        "batch.approved",
        "batch.rejected",
        "batch.paused",
        "batch.resumed",
        "payout.canceled",
        "payout.canceled",
        "batch.canceled"
      ].sort())
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 0 })
    }))

  it.effect("four eyes: the creator and the readier may not approve; a second member does; short of approvals nothing reaches the network", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Four Eyes Co")
      expect((yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 2 })).approvalsRequired).toBe(2)
      expect((yield* must(app, "GET", "/org/settings", m.viewer.token)).approvalsRequired).toBe(2)
      const { batchId, payouts } = yield* batchOf(app, m.initiator.token, 1, { readyBy: m.admin.token })
      const [payout] = payouts

      const byCreator = yield* call(app, "POST", `/batches/${batchId}/approve`, { token: m.initiator.token })
      expect(byCreator.status).toBe(403) // the initiator's role cannot approve at all
      const byReadier = yield* call(app, "POST", `/batches/${batchId}/approve`, { token: m.admin.token })
      expect(byReadier.status).toBe(403)
      expect(byReadier.body.error).toContain("readied")

      const before = sends(app)
      const early = yield* postTransfer(app, m.owner.token, innerTransfer(app, m.owner.wallet, { to: payout!.to.publicKey() }))
      expect(early.status).toBe(403) // no payoutId while approvals are required
      const short = yield* call(app, "POST", "/transfer", {
        token: m.payer.token,
        json: { signedXDR: innerTransfer(app, m.payer.wallet, { to: payout!.to.publicKey() }), payoutId: payout!.id }
      })
      expect(short.status).toBe(409)
      expect(short.body.error).toBe("the batch has 0 of the 2 approvals it needs before it is paid")

      const once = yield* must(app, "POST", `/batches/${batchId}/approve`, m.approver.token)
      expect(once.approvals.map((a: { by: string }) => a.by)).toEqual([m.approver.wallet.publicKey()])
      expect((yield* call(app, "POST", `/batches/${batchId}/approve`, { token: m.approver.token })).status).toBe(409)
      const stillShort = yield* call(app, "POST", "/transfers/prepare", {
        token: m.payer.token,
        json: { to: payout!.to.publicKey(), data: "AAAA", payoutId: payout!.id }
      })
      expect(stillShort.status).toBe(409)
      expect(stillShort.body.error).toContain("1 of the 2")
      expect(sends(app)).toBe(before)

      const twice = yield* must(app, "POST", `/batches/${batchId}/approve`, m.owner.token)
      expect(twice).toMatchObject({ approvalsRequired: 2, createdBy: m.initiator.wallet.publicKey(), readiedBy: m.admin.wallet.publicKey() })
      expect(twice.approvals).toHaveLength(2)
      const paid = yield* call(app, "POST", "/transfer", {
        token: m.payer.token,
        json: { signedXDR: innerTransfer(app, m.payer.wallet, { to: payout!.to.publicKey() }), payoutId: payout!.id }
      })
      expect(paid.status).toBe(200)
      expect((yield* batchState(app, m.viewer.token, batchId))).toMatchObject({ status: "completed", settledCount: 1 })

      const actions = (yield* auditOf(app, m.viewer.token, `subjectId=${batchId}`)).map((r) => `${r.action} ${r.actor.type}`)
      expect(actions).toEqual([
        "batch.completed system",
        "batch.started member",
        "batch.approved member",
        "batch.approved member",
        "batch.readied member",
        "batch.created member"
      ])
      const payoutRows = yield* auditOf(app, m.viewer.token, `subjectId=${payout!.id}`)
      expect(payoutRows.map((r) => [r.action, r.actor.type, r.from ?? null, r.to ?? null])).toEqual([
        ["payout.settled", "system", "submitted", "settled"],
        ["payout.submitted", "member", "ready", "submitted"],
        ["batch.payout_added", "member", null, "draft"]
      ])
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 0 })
    }))

  it.effect("a rejected batch returns to draft with its approvals cleared; its payouts can change again", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Reject Co")
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 1 })
      const { batchId, payouts } = yield* batchOf(app, m.initiator.token, 2)
      yield* must(app, "POST", `/batches/${batchId}/approve`, m.approver.token)
      const rejected = yield* must(app, "POST", `/batches/${batchId}/reject`, m.admin.token, { reason: "wrong month" })
      expect(rejected).toMatchObject({ status: "draft", approvals: [] })
      expect(rejected.readiedBy).toBeUndefined()
      expect(Object.values(yield* payoutStates(app, m.viewer.token, batchId))).toEqual(["draft", "draft"])
      yield* must(app, "DELETE", `/batches/${batchId}/payouts/${payouts[0]!.id}`, m.initiator.token)
      const again = yield* call(app, "POST", `/batches/${batchId}/reject`, { token: m.admin.token, json: { reason: "twice" } })
      expect(again.status).toBe(409)
      expect(again.body.error).toContain("draft")
    }))

  it.effect("pause during a batch run: its items stay queued (none sent, none failed); after resume all land", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Pause Co")
      const { batchId, payouts } = yield* batchOf(app, m.owner.token, 3)
      yield* must(app, "POST", `/batches/${batchId}/pause`, m.payer.token)
      const paused = yield* call(app, "POST", "/transfer", {
        token: m.owner.token,
        json: { signedXDR: innerTransfer(app, m.owner.wallet, { to: payouts[0]!.to.publicKey() }), payoutId: payouts[0]!.id }
      })
      expect(paused.status).toBe(409)
      expect(paused.body.error).toContain("paused")

      const base = app.rpc.account(m.owner.wallet.publicKey())!.sequence
      const transactions = payouts.map((p, i) => ({
        signedXDR: innerTransfer(app, m.owner.wallet, { to: p.to.publicKey(), sequence: base + BigInt(i), validFor: 300 }),
        payoutId: p.id
      }))
      const sent = sends(app)
      const { jobId } = yield* must(app, "POST", "/batch", m.owner.token, { transactions })
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2_500)))
      const waiting = yield* must(app, "GET", `/batch/${jobId}`, m.owner.token)
      expect(waiting.results).toEqual([])
      expect(sends(app)).toBe(sent)
      expect(Object.values(yield* payoutStates(app, m.owner.token, batchId))).toEqual(["ready", "ready", "ready"])
      expect((yield* batchState(app, m.owner.token, batchId)).status).toBe("paused")

      const resumed = yield* must(app, "POST", `/batches/${batchId}/resume`, m.approver.token)
      expect(resumed.status).toBe("ready")
      const done = yield* Effect.promise(() => waitFor(async () => {
        const r = await fetch(`${app.url}/batch/${jobId}`, { headers: { authorization: `Bearer ${m.owner.token}` } })
        const body = await r.json() as { results: Array<{ status: string }> }
        return body.results.length === 3 ? body : undefined
      }, 30_000))
      expect(done.results.map((r) => r.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"])
      expect((yield* batchState(app, m.owner.token, batchId))).toMatchObject({ status: "completed", settledCount: 3, failedCount: 0 })
      const moves = (yield* auditOf(app, m.owner.token, `subjectId=${batchId}&actor=${m.payer.wallet.publicKey()}`)).map((r) => r.action)
      expect(moves).toEqual(["batch.paused"])
    }))

  it.effect("cancel with a payout in flight: it settles, the rest are canceled, the counts are true, nothing canceled is sponsored later", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Cancel Co")
      const { batchId, payouts } = yield* batchOf(app, m.owner.token, 3)
      const [first, second, third] = payouts
      // The node lags: the first transfer is sent and applied, but not yet seen to land.
      app.rpc.lag(app.rpc.latestLedger)
      const inFlight = yield* Effect.fork(call(app, "POST", "/transfer", {
        token: m.owner.token,
        json: { signedXDR: innerTransfer(app, m.owner.wallet, { to: first!.to.publicKey(), validFor: 120 }), payoutId: first!.id }
      }))
      yield* Effect.promise(() => waitFor(async () => {
        const r = await fetch(`${app.url}/batches/${batchId}/payouts?limit=10`, { headers: { authorization: `Bearer ${m.owner.token}` } })
        const body = await r.json() as { items: Array<{ id: string; status: string }> }
        return body.items.some((p) => p.id === first!.id && p.status === "submitted") ? true : undefined
      }, 30_000))
      yield* must(app, "POST", `/batches/${batchId}/payouts/${third!.id}/cancel`, m.initiator.token)
      const canceling = yield* must(app, "POST", `/batches/${batchId}/cancel`, m.initiator.token)
      expect(canceling.status).toBe("started")
      expect(canceling.cancelRequestedAt).toBeDefined()
      expect(canceling).toMatchObject({ canceledCount: 2, settledCount: 0 })
      expect(yield* payoutStates(app, m.owner.token, batchId)).toEqual({ [first!.id]: "submitted", [second!.id]: "canceled", [third!.id]: "canceled" })
      expect((yield* call(app, "POST", `/batches/${batchId}/cancel`, { token: m.owner.token })).status).toBe(409)

      app.rpc.lag(null)
      const landed = yield* Fiber.join(inFlight)
      expect(landed.status).toBe(200)
      const final = yield* batchState(app, m.owner.token, batchId)
      expect(final).toMatchObject({ status: "canceled", payoutCount: 3, settledCount: 1, failedCount: 0, canceledCount: 2 })

      const sent = sends(app)
      const late = yield* call(app, "POST", "/transfer", {
        token: m.owner.token,
        json: { signedXDR: innerTransfer(app, m.owner.wallet, { to: second!.to.publicKey() }), payoutId: second!.id }
      })
      expect(late.status).toBe(409)
      expect(late.body.error).toContain("canceled")
      expect(sends(app)).toBe(sent)
      const actions = (yield* auditOf(app, m.owner.token, `subjectId=${batchId}`)).map((r) => `${r.action} ${r.actor.type}`)
      expect(actions.slice(0, 2)).toEqual(["batch.canceled system", "batch.cancel_requested member"])
    }))

  it.effect("the audit chain verifies; a row edited by hand (its trigger dropped) is named", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Chain Co")
      yield* batchOf(app, m.owner.token, 2)
      const verified = yield* must(app, "GET", "/audit/verify", m.viewer.token)
      expect(verified).toMatchObject({ verified: true, pending: 0 })
      expect(verified.rows).toBeGreaterThan(10)
      // Its head comes back signed with the key the service publishes in its stellar.toml (SEP-1's SIGNING_KEY).
      const toml = yield* call(app, "GET", "/.well-known/stellar.toml")
      expect(parseToml<{ readonly SIGNING_KEY?: string }>(String(toml.body)).SIGNING_KEY).toBe(verified.checkpoint.signingKey)
      expect(verified.checkpoint).toMatchObject({ position: verified.rows, signingKey: app.sep10Key.publicKey() })
      const checkpoint = `${verified.checkpoint.position}:${verified.checkpoint.hash}`
      const updates = yield* call(app, "PATCH", "/org/settings", { token: m.owner.token, json: { approvalsRequired: 1 } })
      expect(updates.status).toBe(200)
      // Verifying links the rows appended since (the sealer would within a second): only linked rows are sealed.
      expect(yield* must(app, "GET", `/audit/verify?checkpoint=${checkpoint}`, m.viewer.token)).toMatchObject({ verified: true, checkpointKept: true })
      const unreadable = yield* call(app, "GET", "/audit/verify?checkpoint=12:nothex", { token: m.viewer.token })
      expect(unreadable.status).toBe(400)
      expect(unreadable.body.error).toContain("checkpoint must be position:hash")
      const [row] = yield* auditOf(app, m.viewer.token, "action=settings.approvals_required_changed")
      expect(row).toMatchObject({ actor: { type: "member", id: m.owner.wallet.publicKey() }, from: "0", to: "1" })

      const refused = yield* Effect.either(psql(app, "UPDATE audit_log SET to_state = '0' WHERE id = $1", [row!.id]))
      expect(refused._tag).toBe("Left")
      yield* psql(app, "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
      yield* psql(app, "UPDATE audit_log SET to_state = '0' WHERE id = $1", [row!.id])
      yield* psql(app, "ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only")
      const broken = yield* must(app, "GET", "/audit/verify", m.viewer.token)
      expect(broken).toMatchObject({ verified: false, firstBrokenId: row!.id })
      expect(broken.checkpoint).toBeUndefined()
      // The edited row came after the checkpoint: the entries up to it are still as they were.
      expect(yield* must(app, "GET", `/audit/verify?checkpoint=${checkpoint}`, m.viewer.token)).toMatchObject({ verified: false, checkpointKept: true })
    }))
})
