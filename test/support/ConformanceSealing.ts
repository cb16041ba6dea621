import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { ok, type Recipe, type Refusal, refused } from "./ConformanceRecipe.ts"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"

export const b64 = (n: number) => randomBytes(n).toString("base64url")

/** A member to seal to: their membership id and the sealing key their entry names. */
export interface Reader {
  readonly memberId: string
  readonly sealingKey: string
}

/**
 * An envelope of the agreed shape (version 2) for `readers`, of `bytes` of ciphertext (random: the service never opens
 * it); sealed amounts and sealed receipts alike (ConformanceReceipts.ts).
 */
export const envelope = (readers: ReadonlyArray<Reader>, bytes = 96) => ({
  version: 2,
  suite: "X25519-HKDF-SHA256/HKDF-SHA256/ChaCha20Poly1305",
  nonce: b64(12),
  ciphertext: b64(bytes),
  keyCommitment: b64(32),
  recipients: readers.map(({ memberId, sealingKey }) => ({ memberId, sealingKey, enc: b64(32), wrappedKey: b64(48) }))
})

/**
 * The member `token` signs in as: their key published, their membership id and that key. The key is one per member
 * (a hash of who they are), so that recipes made for one member at once never replace each other's key.
 */
export const reader = (fx: ConformanceFixtures, token: string) =>
  Effect.gen(function*() {
    const me = yield* fx.setUp("GET", "/me", token)
    const sealingKey = createHash("sha256").update(`conformance sealing key of ${me.sub}`).digest("base64url")
    const member = yield* fx.setUp("PUT", "/me/sealing-key", token, { sealingKey })
    return { memberId: member.id as string, sealingKey } satisfies Reader
  })

/** A draft batch with sealed amounts for the employer. */
const sealed = (fx: ConformanceFixtures, token: string) =>
  Effect.gen(function*() {
    const id = yield* fx.draftBatch(token)
    const member = yield* reader(fx, token)
    const stored = yield* fx.setUp("PUT", `/batches/${id}/sealed-amounts`, token, envelope([member]))
    return { id, member, stored: stored.envelope as ReturnType<typeof envelope> }
  })

/** Sealed amounts (issue 31 §1): sealing keys, and a batch's sealed amounts. */
export const sealingRequests: Readonly<Record<string, Recipe>> = {
  "PUT /me/sealing-key": (_, e) => Effect.succeed(ok({ token: e.token, json: { sealingKey: b64(32) } })),
  "PUT /batches/{id}/sealed-amounts": (fx, e) =>
    Effect.zipWith(fx.draftBatch(e.token), reader(fx, e.token), (id, member) => ok({ token: e.token, params: { id }, json: envelope([member]) })),
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
      const { id, member, stored } = yield* sealed(fx, e.token)
      const ready = yield* fx.readyBatch(e.token)
      const invite = yield* fx.setUp("POST", "/orgs/invites", e.token, { role: "approver" })
      const approver = yield* fx.session()
      yield* fx.setUp("POST", `/orgs/join/${invite.token}`, approver)
      const me = yield* fx.setUp("GET", "/me", approver)
      const members = yield* fx.setUp("GET", "/org/members?limit=100", e.token)
      const keyless = (members.items as Array<{ id: string; sub: string }>).find((m) => m.sub === me.sub)!.id
      const rewrapped = { ...stored, recipients: envelope([member]).recipients }
      return [
        ["new amounts for a ready batch", ok({ token: e.token, params: { id: ready }, json: envelope([member]) }, 409)],
        ["a share that changes a reader's entry", ok({ token: e.token, params: { id }, json: rewrapped }, 409)],
        ["a recipient without a sealing key", ok({ token: e.token, params: { id }, json: envelope([{ memberId: keyless, sealingKey: b64(32) }]) }, 422)]
      ] as const
    })
}
