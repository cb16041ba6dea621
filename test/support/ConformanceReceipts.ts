import { Effect } from "effect"
import { ok, type Recipe, type Refusal } from "./ConformanceRecipe.ts"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"
import { b64, envelope, type Reader, reader } from "./ConformanceSealing.ts"

/** A receipt's envelope: the sealed amounts' shape, a receipt's size. */
const receiptEnvelope = (readers: ReadonlyArray<Reader>) => envelope(readers, 240)

/** A ready batch's payout, and the employer's membership id to seal to. */
const readyPayout = (fx: ConformanceFixtures, token: string) =>
  Effect.gen(function*() {
    const { batchId, payoutId } = yield* fx.batchWithPayout(token)
    yield* fx.setUp("POST", `/batches/${batchId}/ready`, token)
    return { id: batchId, payoutId, member: yield* reader(fx, token) }
  })

/** A ready batch's payout with a sealed receipt. */
const sealed = (fx: ConformanceFixtures, token: string) =>
  Effect.gen(function*() {
    const payout = yield* readyPayout(fx, token)
    yield* fx.setUp("PUT", `/batches/${payout.id}/payouts/${payout.payoutId}/sealed-receipt`, token, receiptEnvelope([payout.member]))
    return payout
  })

/** Sealed receipts (issue 31 §2): a payout's, and a batch's. */
export const receiptRequests: Readonly<Record<string, Recipe>> = {
  "PUT /batches/{id}/payouts/{payoutId}/sealed-receipt": (fx, e) =>
    Effect.map(readyPayout(fx, e.token), ({ id, member, payoutId }) => ok({ token: e.token, params: { id, payoutId }, json: receiptEnvelope([member]) })),
  "GET /batches/{id}/payouts/{payoutId}/sealed-receipt": (fx, e) =>
    Effect.map(sealed(fx, e.token), ({ id, payoutId }) => ok({ token: e.token, params: { id, payoutId } })),
  "GET /batches/{id}/sealed-receipts": (fx, e) => Effect.map(sealed(fx, e.token), ({ id }) => ok({ token: e.token, params: { id }, query: { limit: "10" } }))
}

export const receiptRefusals: Readonly<Record<string, Refusal>> = {
  "PUT /batches/{id}/payouts/{payoutId}/sealed-receipt": (fx, e) =>
    Effect.gen(function*() {
      const draft = yield* fx.batchWithPayout(e.token)
      const settled = yield* sealed(fx, e.token)
      const invite = yield* fx.setUp("POST", "/orgs/invites", e.token, { role: "approver" })
      const approver = yield* fx.session()
      yield* fx.setUp("POST", `/orgs/join/${invite.token}`, approver)
      const me = yield* fx.setUp("GET", "/me", approver)
      const members = yield* fx.setUp("GET", "/org/members?limit=100", e.token)
      const keyless = (members.items as Array<{ id: string; sub: string }>).find((m) => m.sub === me.sub)!.id
      const member = settled.member
      return [
        ["a draft batch's payout", ok({ token: e.token, params: { id: draft.batchId, payoutId: draft.payoutId }, json: receiptEnvelope([member]) }, 409)],
        [
          "a recipient without a sealing key",
          ok({ token: e.token, params: { id: settled.id, payoutId: settled.payoutId }, json: receiptEnvelope([{ memberId: keyless, sealingKey: b64(32) }]) }, 422)
        ],
        ["a new receipt from a member who may not pay", ok({ token: approver, params: { id: settled.id, payoutId: settled.payoutId }, json: receiptEnvelope([member]) }, 403)]
      ] as const
    })
}
