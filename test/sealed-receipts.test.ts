import { expect, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import fc from "fast-check"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import type { MemberRole } from "../src/Domain/Roles.ts"
import { SEALING_SUITE } from "../src/Domain/SealedAmounts.ts"
import { call } from "./support/Client.ts"
import { batchOf, type Member, must, orgWithEveryRole } from "./support/Members.ts"
import { psql } from "./support/Psql.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer } from "./support/Transfer.ts"

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/** The digest as the client computes it: SHA-256 of the key commitment's bytes, the nonce's, then the ciphertext's. */
const digestOf = (content: Content) =>
  createHash("sha256")
    .update(Buffer.from(content.keyCommitment, "base64url"))
    .update(Buffer.from(content.nonce, "base64url"))
    .update(Buffer.from(content.ciphertext, "base64url"))
    .digest("hex")

interface Content {
  readonly nonce: string
  readonly ciphertext: string
  readonly keyCommitment: string
}
/** A receipt's sealed content: random bytes of a receipt's size (the service never opens it). */
const newContent = (bytes = 240): Content =>
  ({ nonce: b64(randomBytes(12)), ciphertext: b64(randomBytes(bytes)), keyCommitment: b64(randomBytes(32)) })

/** Each member's published sealing key, by membership id: what their entries name. */
const published = new Map<string, string>()

/** A member's entry, wrapped (random bytes: the service never opens it) to their published key, else to a random one. */
const entryFor = (memberId: string) =>
  ({ memberId, sealingKey: published.get(memberId) ?? b64(randomBytes(32)), enc: b64(randomBytes(32)), wrappedKey: b64(randomBytes(48)) })

const envelopeJson = (content: Content, memberIds: ReadonlyArray<string>) => ({
  version: 2,
  suite: SEALING_SUITE,
  ...content,
  recipients: memberIds.map(entryFor)
})
type Envelope = ReturnType<typeof envelopeJson>

/** The members of the organization by role, with their membership ids. */
const withIds = (app: TestAppShape, members: Record<MemberRole, Member>) =>
  Effect.map(must(app, "GET", "/org/members?limit=100", members.owner.token), (page) => {
    const bySub = new Map((page.items as Array<{ id: string; sub: string }>).map((m) => [m.sub, m.id]))
    return Object.fromEntries(
      (Object.keys(members) as Array<MemberRole>).map((role) => [role, bySub.get(members[role].wallet.publicKey())!])
    ) as Record<MemberRole, string>
  })

const publish = (app: TestAppShape, member: Member) => {
  const sealingKey = b64(randomBytes(32))
  return Effect.tap(must(app, "PUT", "/me/sealing-key", member.token, { sealingKey }), (m) => Effect.sync(() => published.set(m.id, sealingKey)))
}

const receiptPath = (batchId: string, payoutId: string) => `/batches/${batchId}/payouts/${payoutId}/sealed-receipt`
const put = (app: TestAppShape, token: string, batchId: string, payoutId: string, json: unknown) =>
  call(app, "PUT", receiptPath(batchId, payoutId), { token, json })

const auditRows = (app: TestAppShape, token: string, query: string) =>
  Effect.map(must(app, "GET", `/audit?limit=100&${query}`, token), (page) =>
    page.items as Array<{ action: string; from?: string; to?: string; actor: { id: string } }>)

/** An organization with every role, the readers' sealing keys published, and a ready batch of `n` payouts. */
const readyBatch = (app: TestAppShape, name: string, n: number) =>
  Effect.gen(function*() {
    const m = yield* orgWithEveryRole(app, name)
    const ids = yield* withIds(app, m)
    for (const role of ["owner", "payer", "approver"] as const) yield* publish(app, m[role])
    const batch = yield* batchOf(app, m.owner.token, n)
    return { m, ids, batch, readers: [ids.owner, ids.payer, ids.approver] }
  })

layer(TestAppLive({}, { ledgerIntervalMs: 20 }), { timeout: 120_000 })("sealed receipts", (it) => {
  it.effect("PUT and GET: the payer stores a receipt (digest sha256(keyCommitment ‖ nonce ‖ ciphertext)), readers get it, viewers and other roles' new receipts are 403, the same one again changes nothing", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { batch, ids, m, readers } = yield* readyBatch(app, "Receipts Co", 2)
      const [payout] = batch.payouts
      const path = receiptPath(batch.batchId, payout!.id)

      expect((yield* call(app, "GET", path, { token: m.approver.token })).status).toBe(404)
      expect((yield* call(app, "GET", receiptPath(randomUUID(), payout!.id), { token: m.approver.token })).status).toBe(404)

      const content = newContent()
      const viewer = yield* put(app, m.viewer.token, batch.batchId, payout!.id, envelopeJson(content, readers))
      expect(viewer.status).toBe(403)
      expect(viewer.body.error).toContain("amounts:read")
      for (const role of ["initiator", "approver", "admin"] as const) {
        const refused = yield* put(app, m[role].token, batch.batchId, payout!.id, envelopeJson(content, readers))
        expect(refused.status, role).toBe(403)
        expect(refused.body.error, role).toContain("transfers:submit")
      }
      const toViewer = yield* put(app, m.payer.token, batch.batchId, payout!.id, envelopeJson(content, [...readers, ids.viewer]))
      expect(toViewer.status).toBe(422)
      expect(toViewer.body.error).toContain(`${ids.viewer} is a viewer`)
      const keyless = yield* put(app, m.payer.token, batch.batchId, payout!.id, envelopeJson(content, [ids.initiator]))
      expect(keyless.status).toBe(422)
      expect(keyless.body.error).toContain(`${ids.initiator} has published no sealing key`)
      expect((yield* put(app, m.payer.token, batch.batchId, randomUUID(), envelopeJson(content, readers))).status).toBe(404)

      const envelope = envelopeJson(content, readers)
      const stored = yield* put(app, m.payer.token, batch.batchId, payout!.id, envelope)
      expect(stored.status).toBe(200)
      expect(stored.body).toMatchObject({ payoutId: payout!.id, digest: digestOf(content), updatedBy: m.payer.wallet.publicKey() })
      expect(stored.body.envelope).toEqual(envelope)

      const again = yield* put(app, m.payer.token, batch.batchId, payout!.id, envelope)
      expect(again.status).toBe(200)
      expect(again.body).toEqual(stored.body)

      const read = yield* call(app, "GET", path, { token: m.approver.token })
      expect(read.status).toBe(200)
      expect(read.body).toEqual(stored.body)
      expect((yield* call(app, "GET", path, { token: m.viewer.token })).status).toBe(403)

      const rows = (yield* auditRows(app, m.viewer.token, `subjectId=${payout!.id}`)).filter((r) => r.action.startsWith("payout.receipt"))
      expect(rows.map((r) => r.action)).toEqual(["payout.receipt_sealed"])
      expect(rows[0]).toMatchObject({ to: digestOf(content), actor: { id: m.payer.wallet.publicKey() } })
      expect(rows[0]!.from).toBeUndefined()

      // A draft batch's payouts hold no receipt: nothing was readied to be paid.
      const draft = yield* batchOf(app, m.owner.token, 1, { ready: false })
      const early = yield* put(app, m.payer.token, draft.batchId, draft.payouts[0]!.id, envelopeJson(newContent(), readers))
      expect(early.status).toBe(409)
      expect(early.body.error).toContain("the payout is draft")
    }))

  it.effect("a new receipt replaces one only while no transfer of the payout is in flight or landed; once it settled, only the same receipt is shared, by any reader", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { batch, ids, m, readers } = yield* readyBatch(app, "Settled Receipts Co", 2)
      const [paid, retried] = batch.payouts

      // Sealed before the transfer is posted, then again after a new proof (the first was never sent): replaced.
      const first = newContent()
      yield* must(app, "PUT", receiptPath(batch.batchId, paid!.id), m.payer.token, envelopeJson(first, readers))
      const second = newContent()
      const replaced = yield* must(app, "PUT", receiptPath(batch.batchId, paid!.id), m.owner.token, envelopeJson(second, readers))
      expect(replaced.digest).toBe(digestOf(second))

      const signedXDR = innerTransfer(app, m.payer.wallet, { to: paid!.to.publicKey() })
      const sent = yield* call(app, "POST", "/transfer", { token: m.payer.token, json: { signedXDR, payoutId: paid!.id } })
      expect(sent.status, JSON.stringify(sent.body)).toBe(200)
      yield* must(app, "GET", `/batches/${batch.batchId}/payouts?limit=100`, m.viewer.token).pipe(
        Effect.filterOrFail((page) => (page.items as Array<{ id: string; status: string }>).some((p) => p.id === paid!.id && p.status === "settled")),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("10 seconds")))
      )

      const late = yield* put(app, m.payer.token, batch.batchId, paid!.id, envelopeJson(newContent(), readers))
      expect(late.status).toBe(409)
      expect(late.body.error).toContain("the payout is settled")

      // An admin publishes a key later: the approver (who may not pay) shares the same receipt with them.
      yield* publish(app, m.admin)
      const onFile = replaced.envelope as Envelope
      const shared = yield* put(app, m.approver.token, batch.batchId, paid!.id, { ...onFile, recipients: [...onFile.recipients, entryFor(ids.admin)] })
      expect(shared.status).toBe(200)
      expect(shared.body.digest).toBe(digestOf(second))
      expect(shared.body.envelope.recipients).toHaveLength(4)
      expect(shared.body.updatedBy).toBe(m.approver.wallet.publicKey())
      const rows = yield* auditRows(app, m.viewer.token, `subjectId=${paid!.id}&subjectType=payout`)
      expect(rows.filter((r) => r.action.startsWith("payout.receipt")).map((r) => [r.action, r.from ?? null, r.to])).toEqual([
        ["payout.receipt_shared", digestOf(second), digestOf(second)],
        ["payout.receipt_sealed", digestOf(first), digestOf(second)],
        ["payout.receipt_sealed", null, digestOf(first)]
      ])

      // A failed payout is paid again with another proof: its receipt is replaced; once resubmitted, it stays.
      yield* must(app, "PUT", receiptPath(batch.batchId, retried!.id), m.payer.token, envelopeJson(newContent(), readers))
      const moveTo = (status: string) => psql(app, "UPDATE payouts SET status = $1 WHERE id = $2", [status, retried!.id])
      yield* moveTo("submitted")
      expect((yield* put(app, m.payer.token, batch.batchId, retried!.id, envelopeJson(newContent(), readers))).status).toBe(409)
      yield* moveTo("failed")
      const retry = newContent()
      expect((yield* put(app, m.payer.token, batch.batchId, retried!.id, envelopeJson(retry, readers))).body.digest).toBe(digestOf(retry))
      yield* moveTo("canceled")
      const canceled = yield* put(app, m.payer.token, batch.batchId, retried!.id, envelopeJson(retry, [...readers, ids.admin]))
      expect(canceled.status).toBe(409)
      expect(canceled.body.error).toContain("the payout is canceled")
    }))

  it.effect("a share only adds recipients: generated hostile shares of a sent payout's receipt (drop, replace, reorder, another digest) are refused; adding a member and dropping one who left are accepted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { batch, ids, m, readers } = yield* readyBatch(app, "Hostile Receipts Co", 1)
      const payout = batch.payouts[0]!
      yield* publish(app, m.initiator)
      const stored = (yield* must(app, "PUT", receiptPath(batch.batchId, payout.id), m.payer.token,
        envelopeJson(newContent(), [...readers, ids.initiator]))).envelope as Envelope
      yield* psql(app, "UPDATE payouts SET status = 'submitted' WHERE id = $1", [payout.id])
      const n = stored.recipients.length

      // The issue's own case: the approver, who may not pay, leaves only themselves as a reader.
      const alone = yield* put(app, m.approver.token, batch.batchId, payout.id, { ...stored, recipients: [stored.recipients[2]] })
      expect(alone.status).toBe(409)
      expect(alone.body.error).toContain("would be dropped")

      type Hostile = { readonly what: string; readonly status: number; readonly make: (e: Envelope) => unknown }
      const random = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => b64(b))
      const hostile: fc.Arbitrary<Hostile> = fc.oneof(
        fc.subarray([...Array(n).keys()], { minLength: 1, maxLength: n - 1 }).map((dropped): Hostile => ({
          what: `drop ${dropped.join(",")}`,
          status: 409,
          make: (e) => ({ ...e, recipients: e.recipients.filter((_, i) => !dropped.includes(i)) })
        })),
        fc.tuple(fc.nat(n - 1), random(32), random(48), fc.constantFrom("enc", "wrappedKey", "both")).map(([at, enc, wrappedKey, part]): Hostile => ({
          what: `replace ${part} of entry ${at}`,
          status: 409,
          make: (e) => ({
            ...e,
            recipients: e.recipients.map((r, i) =>
              i !== at ? r : { ...r, ...(part === "wrappedKey" ? {} : { enc }), ...(part === "enc" ? {} : { wrappedKey }) })
          })
        })),
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n })
          .filter((order) => order.some((x, i) => x !== i))
          .map((order): Hostile => ({ what: `reorder ${order.join(",")}`, status: 409, make: (e) => ({ ...e, recipients: order.map((i) => e.recipients[i]) }) })),
        fc.constantFrom("nonce", "ciphertext", "keyCommitment").chain((part) =>
          random(part === "nonce" ? 12 : 32).map((bytes): Hostile => ({ what: `another ${part}`, status: 403, make: (e) => ({ ...e, [part]: bytes }) })))
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(hostile, async ({ what, status, make }) => {
            const reply = await Effect.runPromise(put(app, m.approver.token, batch.batchId, payout.id, make(stored)))
            expect(reply.status, what).toBe(status)
            expect(typeof reply.body.error, what).toBe("string")
          }),
          { numRuns: 40, seed: 35 }
        )
      )
      expect((yield* must(app, "GET", receiptPath(batch.batchId, payout.id), m.owner.token)).envelope)
        .toEqual(stored)

      yield* publish(app, m.admin)
      const added = { ...stored, recipients: [...stored.recipients, entryFor(ids.admin)] }
      expect((yield* must(app, "PUT", receiptPath(batch.batchId, payout.id), m.approver.token, added)).envelope).toEqual(added)
      yield* must(app, "DELETE", `/org/members/${ids.initiator}`, m.owner.token)
      const withoutInitiator = { ...added, recipients: added.recipients.filter((r) => r.memberId !== ids.initiator) }
      expect((yield* must(app, "PUT", receiptPath(batch.batchId, payout.id), m.approver.token, withoutInitiator)).envelope)
        .toEqual(withoutInitiator)
    }))

  it.effect("GET /batches/{id}/sealed-receipts pages a batch's receipts newest first; another organization's batch, payout and receipts are 404; API keys are 403", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { batch, m, readers } = yield* readyBatch(app, "Reconciling Co", 3)
      const digests: Array<string> = []
      for (const payout of batch.payouts) {
        const content = newContent()
        digests.push(digestOf(content))
        yield* must(app, "PUT", receiptPath(batch.batchId, payout.id), m.payer.token, envelopeJson(content, readers))
      }
      const list = `/batches/${batch.batchId}/sealed-receipts`
      const first = yield* must(app, "GET", `${list}?limit=2`, m.approver.token)
      expect(first.items).toHaveLength(2)
      expect(first.nextCursor).toEqual(expect.any(String))
      const rest = yield* must(app, "GET", `${list}?limit=2&cursor=${first.nextCursor}`, m.approver.token)
      expect(rest.items).toHaveLength(1)
      expect(rest.nextCursor).toBeUndefined()
      const all = [...first.items, ...rest.items] as Array<{ payoutId: string; digest: string }>
      expect(all.map((r) => r.payoutId).sort()).toEqual(batch.payouts.map((p) => p.id).sort())
      expect(all.map((r) => r.digest)).toEqual([...digests].reverse())
      expect((yield* call(app, "GET", `${list}?cursor=not-a-cursor`, { token: m.approver.token })).status).toBe(400)
      expect((yield* call(app, "GET", list, { token: m.viewer.token })).status).toBe(403)
      expect((yield* must(app, "GET", `/batches/${(yield* batchOf(app, m.owner.token, 1)).batchId}/sealed-receipts`, m.owner.token)).items).toEqual([])

      const other = yield* readyBatch(app, "Other Co", 1)
      const otherReaders = other.readers
      for (const reply of [
        yield* call(app, "GET", list, { token: other.m.owner.token }),
        yield* call(app, "GET", receiptPath(batch.batchId, batch.payouts[0]!.id), { token: other.m.owner.token }),
        yield* put(app, other.m.payer.token, batch.batchId, batch.payouts[0]!.id, envelopeJson(newContent(), otherReaders)),
        // Its own batch, with this organization's payout: no such payout there.
        yield* put(app, other.m.payer.token, other.batch.batchId, batch.payouts[0]!.id, envelopeJson(newContent(), otherReaders))
      ]) {
        expect(reply.status).toBe(404)
      }

      const key = yield* must(app, "POST", "/api-keys", m.owner.token, { name: "Reader", scopes: ["batches:read", "transfers:submit"] })
      expect((yield* call(app, "GET", list, { token: key.key })).status).toBe(403)
      expect((yield* put(app, key.key, batch.batchId, batch.payouts[0]!.id, envelopeJson(newContent(), readers))).status).toBe(403)
    }))

  it.effect("malformed envelopes are 400 with {error}, never 500, and nothing is stored", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { batch, m, readers } = yield* readyBatch(app, "Malformed Receipts Co", 1)
      const payout = batch.payouts[0]!
      type Mutation = (e: ReturnType<typeof envelopeJson>) => unknown
      const mutations: fc.Arbitrary<Mutation> = fc.oneof(
        fc.integer({ min: 0, max: 40 }).filter((n) => n !== 12).map((n): Mutation => (e) => ({ ...e, nonce: b64(randomBytes(n)) })),
        fc.integer({ min: 0, max: 15 }).map((n): Mutation => (e) => ({ ...e, ciphertext: b64(randomBytes(n)) })),
        fc.constant<Mutation>((e) => ({ ...e, ciphertext: b64(randomBytes(65_537)) })),
        fc.constant<Mutation>((e) => ({ ...e, ciphertext: `${e.ciphertext}=` })),
        fc.constant<Mutation>((e) => ({ ...e, recipients: [] })),
        fc.constant<Mutation>((e) => ({ ...e, recipients: [e.recipients[0], e.recipients[0]] })),
        fc.constantFrom(0, 1, 3, "2", null).map((version): Mutation => (e) => ({ ...e, version })),
        fc.integer({ min: 0, max: 40 }).filter((n) => n !== 32).map((n): Mutation => (e) => ({ ...e, keyCommitment: b64(randomBytes(n)) })),
        fc.string({ maxLength: 40 }).map((suite): Mutation => (e) => ({ ...e, suite })),
        fc.constantFrom("version", "suite", "nonce", "ciphertext", "keyCommitment", "recipients").map((key): Mutation => (e) =>
          Object.fromEntries(Object.entries(e).filter(([k]) => k !== key))),
        fc.jsonValue().map((v): Mutation => () => v)
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(mutations, async (mutate) => {
            const body = mutate(envelopeJson(newContent(), readers))
            const reply = await Effect.runPromise(put(app, m.payer.token, batch.batchId, payout.id, body))
            expect(reply.status, JSON.stringify(body).slice(0, 300)).toBe(400)
            expect(typeof reply.body.error).toBe("string")
          }),
          { numRuns: 40, seed: 31 }
        )
      )
      expect((yield* call(app, "GET", receiptPath(batch.batchId, payout.id), { token: m.payer.token })).status).toBe(404)
    }))
})
