import { Effect } from "effect"
import { ok, type Recipe, type Refusal, refused } from "./ConformanceRecipe.ts"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"

/** A fresh session joining the employer's organization with `role`: its token and its membership id. */
const member = (fx: ConformanceFixtures, token: string, role: string) =>
  Effect.gen(function*() {
    const invite = yield* fx.setUp("POST", "/orgs/invites", token, { role })
    const session = yield* fx.session()
    yield* fx.setUp("POST", `/orgs/join/${invite.token}`, session)
    const me = yield* fx.setUp("GET", "/me", session)
    const members = yield* fx.setUp("GET", "/org/members?limit=100", token)
    const id = (members.items as Array<{ id: string; sub: string }>).find((m) => m.sub === me.sub)!.id
    return { token: session, id }
  })

/** A ready batch the employer made; another member (an approver) approves it, since its maker may not. */
const ready = (fx: ConformanceFixtures, token: string) => fx.readyBatch(token)

/** The payroll controls' routes (issue 22): members and settings, approvals, pause, resume and cancel. */
export const controlsRequests: Readonly<Record<string, Recipe>> = {
  "GET /org/members": (_, e) => Effect.succeed(ok({ token: e.token, query: { limit: "10" } })),
  "PATCH /org/members/{id}": (fx, e) =>
    Effect.map(member(fx, e.token, "viewer"), ({ id }) => ok({ token: e.token, params: { id }, json: { role: "payer" } })),
  "DELETE /org/members/{id}": (fx, e) => Effect.map(member(fx, e.token, "viewer"), ({ id }) => ok({ token: e.token, params: { id } }, 204)),
  "GET /org/settings": (_, e) => Effect.succeed(ok({ token: e.token })),
  "PATCH /org/settings": (_, e) => Effect.succeed(ok({ token: e.token, json: { approvalsRequired: 0 } })),
  "POST /batches/{id}/approve": (fx, e) =>
    Effect.zipWith(ready(fx, e.token), member(fx, e.token, "approver"), (id, approver) => ok({ token: approver.token, params: { id } })),
  "POST /batches/{id}/reject": (fx, e) => Effect.map(ready(fx, e.token), (id) => ok({ token: e.token, params: { id }, json: { reason: "wrong month" } })),
  "POST /batches/{id}/pause": (fx, e) => Effect.map(ready(fx, e.token), (id) => ok({ token: e.token, params: { id } })),
  "POST /batches/{id}/resume": (fx, e) =>
    Effect.gen(function*() {
      const id = yield* ready(fx, e.token)
      yield* fx.setUp("POST", `/batches/${id}/pause`, e.token)
      return ok({ token: e.token, params: { id } })
    }),
  "POST /batches/{id}/cancel": (fx, e) => Effect.map(ready(fx, e.token), (id) => ok({ token: e.token, params: { id } })),
  "POST /batches/{id}/payouts/{payoutId}/cancel": (fx, e) =>
    Effect.map(fx.batchWithPayout(e.token), ({ batchId, payoutId }) => ok({ token: e.token, params: { id: batchId, payoutId } }, 204))
}

export const controlsRefusals: Readonly<Record<string, Refusal>> = {
  "PATCH /org/members/{id}": (fx, e) =>
    Effect.gen(function*() {
      const members = yield* fx.setUp("GET", "/org/members?limit=100", e.token)
      const owner = (members.items as Array<{ id: string; role: string }>).find((m) => m.role === "owner")!.id
      return refused("the last owner demoted", ok({ token: e.token, params: { id: owner }, json: { role: "viewer" } }, 409))
    }),
  "POST /batches/{id}/approve": (fx, e) =>
    Effect.gen(function*() {
      const id = yield* ready(fx, e.token)
      const approver = yield* member(fx, e.token, "approver")
      return [
        ["approved by the batch's maker", ok({ token: e.token, params: { id } }, 403)],
        ["a digest for a batch without sealed amounts", ok({ token: approver.token, params: { id }, json: { sealedAmountsDigest: "0".repeat(64) } }, 409)]
      ] as const
    }),
  "POST /batches/{id}/reject": (fx, e) =>
    Effect.map(fx.draftBatch(e.token), (id) => refused("a draft rejected", ok({ token: e.token, params: { id }, json: { reason: "no" } }, 409))),
  "POST /batches/{id}/pause": (fx, e) => Effect.map(fx.draftBatch(e.token), (id) => refused("a draft paused", ok({ token: e.token, params: { id } }, 409))),
  "POST /batches/{id}/resume": (fx, e) => Effect.map(ready(fx, e.token), (id) => refused("not paused", ok({ token: e.token, params: { id } }, 409))),
  "POST /batches/{id}/cancel": (fx, e) =>
    Effect.gen(function*() {
      const id = yield* ready(fx, e.token)
      yield* fx.setUp("POST", `/batches/${id}/cancel`, e.token)
      return refused("canceled twice", ok({ token: e.token, params: { id } }, 409))
    }),
  "POST /batches/{id}/payouts/{payoutId}/cancel": (fx, e) =>
    Effect.gen(function*() {
      const { batchId, payoutId } = yield* fx.batchWithPayout(e.token)
      yield* fx.setUp("POST", `/batches/${batchId}/payouts/${payoutId}/cancel`, e.token)
      return refused("canceled twice", ok({ token: e.token, params: { id: batchId, payoutId } }, 409))
    })
}
