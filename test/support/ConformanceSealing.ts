import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { ok, type Recipe, type Refusal, refused } from "./ConformanceRecipe.ts"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"

const b64 = (n: number) => randomBytes(n).toString("base64url")

/**
 * An envelope of the agreed shape for `memberIds`, of `bytes` of ciphertext (random: the service never opens it);
 * sealed amounts and sealed receipts alike (ConformanceReceipts.ts).
 */
export const envelope = (memberIds: ReadonlyArray<string>, bytes = 96) => ({
  version: 1,
  suite: "X25519-HKDF-SHA256/HKDF-SHA256/ChaCha20Poly1305",
  nonce: b64(12),
  ciphertext: b64(bytes),
  recipients: memberIds.map((memberId) => ({ memberId, enc: b64(32), wrappedKey: b64(48) }))
})

/** The member `token` signs in as: their key published, their membership id. */
export const reader = (fx: ConformanceFixtures, token: string) =>
  Effect.gen(function*() {
    yield* fx.setUp("PUT", "/me/sealing-key", token, { sealingKey: b64(32) })
    const me = yield* fx.setUp("GET", "/me", token)
    const members = yield* fx.setUp("GET", "/org/members?limit=100", token)
    return (members.items as Array<{ id: string; sub: string }>).find((m) => m.sub === me.sub)!.id
  })

/** A draft batch with sealed amounts for the employer. */
const sealed = (fx: ConformanceFixtures, token: string) =>
  Effect.gen(function*() {
    const id = yield* fx.draftBatch(token)
    const memberId = yield* reader(fx, token)
    yield* fx.setUp("PUT", `/batches/${id}/sealed-amounts`, token, envelope([memberId]))
    return { id, memberId }
  })

/** Sealed amounts (issue 31 §1): sealing keys, and a batch's sealed amounts. */
export const sealingRequests: Readonly<Record<string, Recipe>> = {
  "PUT /me/sealing-key": (_, e) => Effect.succeed(ok({ token: e.token, json: { sealingKey: b64(32) } })),
  "PUT /batches/{id}/sealed-amounts": (fx, e) =>
    Effect.zipWith(fx.draftBatch(e.token), reader(fx, e.token), (id, memberId) => ok({ token: e.token, params: { id }, json: envelope([memberId]) })),
  "GET /batches/{id}/sealed-amounts": (fx, e) => Effect.map(sealed(fx, e.token), ({ id }) => ok({ token: e.token, params: { id } }))
}

export const sealingRefusals: Readonly<Record<string, Refusal>> = {
  "PUT /me/sealing-key": (fx, e) =>
    Effect.gen(function*() {
      const invite = yield* fx.setUp("POST", "/orgs/invites", e.token, { role: "viewer" })
      const viewer = yield* fx.session()
      yield* fx.setUp("POST", `/orgs/join/${invite.token}`, viewer)
      return refused("a viewer", ok({ token: viewer, json: { sealingKey: b64(32) } }, 403))
    }),
  "PUT /batches/{id}/sealed-amounts": (fx, e) =>
    Effect.gen(function*() {
      const { id, memberId } = yield* sealed(fx, e.token)
      const ready = yield* fx.readyBatch(e.token)
      const invite = yield* fx.setUp("POST", "/orgs/invites", e.token, { role: "approver" })
      const approver = yield* fx.session()
      yield* fx.setUp("POST", `/orgs/join/${invite.token}`, approver)
      const me = yield* fx.setUp("GET", "/me", approver)
      const members = yield* fx.setUp("GET", "/org/members?limit=100", e.token)
      const keyless = (members.items as Array<{ id: string; sub: string }>).find((m) => m.sub === me.sub)!.id
      return [
        ["new amounts for a ready batch", ok({ token: e.token, params: { id: ready }, json: envelope([memberId]) }, 409)],
        ["a recipient without a sealing key", ok({ token: e.token, params: { id }, json: envelope([keyless]) }, 422)]
      ] as const
    })
}
