import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import type { MemberRole } from "../src/Domain/Roles.ts"
import { ApproveBatch, PublishSealingKey, SEALING_SUITE, SealedEnvelope, SealedRecipient } from "../src/Domain/SealedAmounts.ts"
import { api } from "./support/Api.ts"
import { call } from "./support/Client.ts"
import { batchOf, type Member, must, orgWithEveryRole } from "./support/Members.ts"
import { psql } from "./support/Psql.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")
const newKey = () => b64(randomBytes(32))

/** The digest as the client computes it: SHA-256 of the key commitment's bytes, the nonce's, then the ciphertext's. */
const digestOf = (envelope: Content) =>
  createHash("sha256")
    .update(Buffer.from(envelope.keyCommitment, "base64url"))
    .update(Buffer.from(envelope.nonce, "base64url"))
    .update(Buffer.from(envelope.ciphertext, "base64url"))
    .digest("hex")

interface Content {
  readonly nonce: string
  readonly ciphertext: string
  readonly keyCommitment: string
}
const newContent = (bytes = 64): Content => ({ nonce: b64(randomBytes(12)), ciphertext: b64(randomBytes(bytes)), keyCommitment: newKey() })

/** Each member's published sealing key, by membership id, as `publish` left it: what their entries name. */
const published = new Map<string, string>()

interface Entry {
  readonly memberId: string
  readonly sealingKey: string
  readonly enc: string
  readonly wrappedKey: string
}
/** A member's entry, wrapped (random bytes: the service never opens it) to their published key, else to a random one. */
const entryFor = (memberId: string): Entry =>
  ({ memberId, sealingKey: published.get(memberId) ?? newKey(), enc: b64(randomBytes(32)), wrappedKey: b64(randomBytes(48)) })

/** An envelope of `content` for `memberIds`, as JSON. */
const envelopeJson = (content: Content, memberIds: ReadonlyArray<string>) => ({
  version: 2,
  suite: SEALING_SUITE,
  ...content,
  recipients: memberIds.map(entryFor)
})

/** The members of the organization by role, with their membership ids. */
const withIds = (app: TestAppShape, members: Record<MemberRole, Member>) =>
  Effect.gen(function*() {
    const page = yield* must(app, "GET", "/org/members?limit=100", members.owner.token)
    const bySub = new Map((page.items as Array<{ id: string; sub: string }>).map((m) => [m.sub, m.id]))
    const ids = Object.fromEntries(
      (Object.keys(members) as Array<MemberRole>).map((role) => [role, bySub.get(members[role].wallet.publicKey())!])
    ) as Record<MemberRole, string>
    return ids
  })

const publish = (app: TestAppShape, member: Member, key = newKey()) =>
  Effect.flatMap(api(app, member.token), (client) =>
    client.account.publishSealingKey({ payload: new PublishSealingKey({ sealingKey: key }) })).pipe(
      Effect.tap((m) => Effect.sync(() => published.set(m.id, key))),
      Effect.orDie
    )

const put = (app: TestAppShape, token: string, batchId: string, json: unknown) =>
  call(app, "PUT", `/batches/${batchId}/sealed-amounts`, { token, json })

const auditActions = (app: TestAppShape, token: string, query: string) =>
  Effect.map(must(app, "GET", `/audit?limit=100&${query}`, token), (page) =>
    page.items as Array<{ action: string; from?: string; to?: string; subject: { id: string } }>)

layer(TestAppLive({}, { ledgerIntervalMs: 20 }), { timeout: 90_000 })("sealed amounts", (it) => {
  it.effect("sealing keys: every role but viewer publishes one, checked; the members list carries them; a new key is an audit row", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Keys Co")
      const ids = yield* withIds(app, m)

      const viewer = yield* call(app, "PUT", "/me/sealing-key", { token: m.viewer.token, json: { sealingKey: newKey() } })
      expect(viewer.status).toBe(403)
      expect(viewer.body.error).toContain("amounts:read")
      expect((yield* call(app, "GET", "/org/members", { token: m.viewer.token })).status).toBe(403)

      for (const bad of ["A".repeat(43), b64(randomBytes(31)), b64(randomBytes(33)), `${b64(randomBytes(32))}=`, "+".repeat(43), "", 42]) {
        const refused = yield* call(app, "PUT", "/me/sealing-key", { token: m.approver.token, json: { sealingKey: bad } })
        expect(refused.status, String(bad)).toBe(400)
        expect(typeof refused.body.error).toBe("string")
      }

      const key = newKey()
      for (const role of ["owner", "admin", "initiator", "approver", "payer"] as const) {
        const member = yield* publish(app, m[role], role === "approver" ? key : newKey())
        expect(member.role).toBe(role)
      }
      expect((yield* publish(app, m.approver, key)).sealingKey).toBe(key) // the same key again: no new row
      const replaced = newKey()
      expect((yield* publish(app, m.approver, replaced)).sealingKey).toBe(replaced)

      // Whoever seals needs the readers' keys: the initiator lists the members too.
      const listed = yield* Effect.flatMap(api(app, m.initiator.token), (client) => client.members.list({ urlParams: { limit: 100 } }))
      const keys = new Map(listed.items.map((x) => [x.id as string, x.sealingKey]))
      expect(keys.get(ids.approver)).toBe(replaced)
      expect(keys.get(ids.viewer)).toBeUndefined()
      expect(keys.get(ids.payer)).toMatch(/^[A-Za-z0-9_-]{43}$/)

      const rows = yield* auditActions(app, m.owner.token, `action=member.sealing_key_published&subjectId=${ids.approver}`)
      expect(rows).toHaveLength(2)
      // The key itself is public, but the trail keeps ids and states only.
      expect(JSON.stringify(rows)).not.toContain(replaced)
    }))

  it.effect("PUT and GET: viewers get 403; recipients must be members who read amounts with a key (422 naming them); the digest is sha256(keyCommitment ‖ nonce ‖ ciphertext)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Seal Co")
      const ids = yield* withIds(app, m)
      for (const role of ["owner", "initiator", "approver"] as const) yield* publish(app, m[role])
      const { batchId } = yield* batchOf(app, m.initiator.token, 2, { ready: false })

      const none = yield* call(app, "GET", `/batches/${batchId}/sealed-amounts`, { token: m.approver.token })
      expect(none.status).toBe(404)
      expect((yield* call(app, "GET", `/batches/${randomUUID()}/sealed-amounts`, { token: m.approver.token })).status).toBe(404)

      const content = newContent(200)
      const viewerPut = yield* put(app, m.viewer.token, batchId, envelopeJson(content, [ids.initiator]))
      expect(viewerPut.status).toBe(403)
      expect(viewerPut.body.error).toContain("amounts:read")

      const toViewer = yield* put(app, m.initiator.token, batchId, envelopeJson(content, [ids.initiator, ids.viewer]))
      expect(toViewer.status).toBe(422)
      expect(toViewer.body.error).toContain(`${ids.viewer} is a viewer`)
      const keyless = yield* put(app, m.initiator.token, batchId, envelopeJson(content, [ids.initiator, ids.payer]))
      expect(keyless.status).toBe(422)
      expect(keyless.body.error).toContain(`${ids.payer} has published no sealing key`)
      const stranger = randomUUID()
      const outsider = yield* put(app, m.initiator.token, batchId, envelopeJson(content, [stranger]))
      expect(outsider.status).toBe(422)
      expect(outsider.body.error).toContain(`${stranger} is not a member`)
      const otherKey = envelopeJson(content, [ids.initiator, ids.approver])
      const misnamed = yield* put(app, m.initiator.token, batchId, { ...otherKey, recipients: [otherKey.recipients[0], { ...otherKey.recipients[1], sealingKey: newKey() }] })
      expect(misnamed.status).toBe(422)
      expect(misnamed.body.error).toContain(`${ids.approver}'s entry names another key than the one they published`)
      // A version 1 envelope (no key commitment) is refused, saying why.
      const { keyCommitment: _, ...uncommitted } = envelopeJson(content, [ids.initiator])
      const v1 = yield* put(app, m.initiator.token, batchId, { ...uncommitted, version: 1, recipients: [{ memberId: ids.initiator, enc: b64(randomBytes(32)), wrappedKey: b64(randomBytes(48)) }] })
      expect(v1.status).toBe(400)
      expect(v1.body.error).toContain("version 1 commits to no content key")

      const client = yield* api(app, m.initiator.token)
      const envelope = new SealedEnvelope({
        ...envelopeJson(content, []),
        version: 2,
        suite: SEALING_SUITE,
        recipients: [ids.owner, ids.initiator, ids.approver].map((memberId) =>
          new SealedRecipient({ ...entryFor(memberId), memberId: memberId as SealedRecipient["memberId"] }))
      })
      const stored = yield* client.batches.sealAmounts({ path: { id: batchId as never }, payload: envelope })
      expect(stored.digest).toBe(digestOf(content))
      expect(stored.updatedBy).toBe(m.initiator.wallet.publicKey())

      const read = yield* Effect.flatMap(api(app, m.approver.token), (c) => c.batches.sealedAmounts({ path: { id: batchId as never } }))
      expect(read.digest).toBe(digestOf(content))
      expect(read.envelope.ciphertext).toBe(content.ciphertext)
      expect(read.envelope.recipients.map((r) => r.memberId)).toEqual([ids.owner, ids.initiator, ids.approver])
      expect((yield* call(app, "GET", `/batches/${batchId}/sealed-amounts`, { token: m.viewer.token })).status).toBe(403)

      const batch = yield* must(app, "GET", `/batches/${batchId}`, m.viewer.token)
      expect(batch.sealedAmountsDigest).toBe(digestOf(content))
      const [row] = yield* auditActions(app, m.viewer.token, `action=batch.amounts_sealed&subjectId=${batchId}`)
      expect(row).toMatchObject({ to: digestOf(content) })
      expect(row!.from).toBeUndefined()
    }))

  it.effect("new amounts clear approvals in draft and are 409 once ready; sharing the same amounts keeps them; an approval binds the current digest", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Four Eyes on Amounts Co")
      const ids = yield* withIds(app, m)
      for (const role of ["owner", "initiator", "approver"] as const) yield* publish(app, m[role])
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 1 })
      const { batchId } = yield* batchOf(app, m.initiator.token, 1, { ready: false })
      const readers = [ids.initiator, ids.approver]

      const first = newContent()
      yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.initiator.token, envelopeJson(first, readers))
      // A draft holds no approval through the API (only a ready batch is approved, and reject clears them): one is
      // written by hand to see that new amounts clear whatever approvals the batch holds.
      yield* psql(app, "INSERT INTO batch_approvals (batch_id, member_sub, approved_at, sealed_amounts_digest) VALUES ($1, $2, now(), $3)", [
        batchId,
        m.approver.wallet.publicKey(),
        digestOf(first)
      ])
      expect((yield* must(app, "GET", `/batches/${batchId}`, m.viewer.token)).approvals).toHaveLength(1)
      const second = newContent()
      const changed = yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.initiator.token, envelopeJson(second, readers))
      expect(changed.digest).toBe(digestOf(second))
      expect((yield* must(app, "GET", `/batches/${batchId}`, m.viewer.token)).approvals).toEqual([])
      const [sealedRow] = yield* auditActions(app, m.viewer.token, `action=batch.amounts_sealed&subjectId=${batchId}`)
      expect(sealedRow).toMatchObject({ from: digestOf(first), to: digestOf(second) })

      yield* must(app, "POST", `/batches/${batchId}/ready`, m.initiator.token)
      const late = yield* put(app, m.initiator.token, batchId, envelopeJson(newContent(), readers))
      expect(late.status).toBe(409)
      expect(late.body.error).toContain("the batch is ready")
      const notAnEditor = yield* put(app, m.approver.token, batchId, envelopeJson(newContent(), readers))
      expect(notAnEditor.status).toBe(403)
      expect(notAnEditor.body.error).toContain("batches:write")

      const approver = yield* api(app, m.approver.token)
      const approve = (digest?: string) =>
        approver.batches.approve({ path: { id: batchId as never }, payload: new ApproveBatch(digest === undefined ? {} : { sealedAmountsDigest: digest }) })
      const unnamed = yield* Effect.flip(approve())
      expect(unnamed).toMatchObject({ _tag: "Conflict", error: expect.stringContaining("name their digest") })
      const stale = yield* Effect.flip(approve(digestOf(first)))
      expect(stale).toMatchObject({ _tag: "Conflict", error: expect.stringContaining("the amounts changed since you looked") })
      const approved = yield* approve(digestOf(second))
      expect(approved.approvals.map((a) => [a.by, a.sealedAmountsDigest])).toEqual([[m.approver.wallet.publicKey(), digestOf(second)]])
      expect(approved.sealedAmountsDigest).toEqual(expect.objectContaining({ _tag: "Some" }))

      // A payer joins the readers later: any reader (here the approver, who may not edit batches) shares the same amounts.
      yield* publish(app, m.payer)
      const share = { ...changed.envelope, recipients: [...changed.envelope.recipients, entryFor(ids.payer)] }
      const shared = yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.approver.token, share)
      expect(shared.digest).toBe(digestOf(second))
      expect(shared.envelope.recipients).toHaveLength(3)
      const after = yield* must(app, "GET", `/batches/${batchId}`, m.viewer.token)
      expect(after.approvals).toEqual([{ by: m.approver.wallet.publicKey(), at: expect.any(String), sealedAmountsDigest: digestOf(second) }])
      const actions = (yield* auditActions(app, m.viewer.token, `subjectId=${batchId}`)).map((r) => r.action)
      expect(actions.slice(0, 3)).toEqual(["batch.amounts_shared", "batch.approved", "batch.readied"])

      yield* must(app, "POST", `/batches/${batchId}/cancel`, m.initiator.token)
      const final = yield* put(app, m.approver.token, batchId, envelopeJson(second, readers))
      expect(final.status).toBe(409)
      expect(final.body.error).toContain("canceled")

      // Without sealed amounts an approval names none, as before; naming one is a stale look.
      const plain = yield* batchOf(app, m.initiator.token, 1)
      const named = yield* call(app, "POST", `/batches/${plain.batchId}/approve`, { token: m.approver.token, json: { sealedAmountsDigest: digestOf(first) } })
      expect(named.status).toBe(409)
      const bare = yield* must(app, "POST", `/batches/${plain.batchId}/approve`, m.approver.token)
      expect(bare.approvals).toEqual([{ by: m.approver.wallet.publicKey(), at: expect.any(String) }])
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 0 })
    }))

  it.effect("malformed envelopes (lengths, base64url, duplicate members, too many recipients) are 400 with {error}, never 500", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Malformed Co")
      const ids = yield* withIds(app, m)
      yield* publish(app, m.initiator)
      const { batchId } = yield* batchOf(app, m.initiator.token, 1, { ready: false })
      const valid = () => envelopeJson(newContent(), [ids.initiator])
      const bytesNot = (n: number) => fc.integer({ min: 0, max: 80 }).filter((k) => k !== n).map((k) => b64(randomBytes(k)))
      const badText = fc.constantFrom("+", "/", "=", "!", " ", "é", "\n").chain((c) =>
        fc.integer({ min: 0, max: 15 }).map((at) => { const s = b64(randomBytes(12)); return `${s.slice(0, at)}${c}${s.slice(at)}` }))
      type Mutation = (e: ReturnType<typeof valid>) => unknown
      const mutations: fc.Arbitrary<Mutation> = fc.oneof(
        bytesNot(12).map((nonce): Mutation => (e) => ({ ...e, nonce })),
        fc.integer({ min: 0, max: 15 }).map((n): Mutation => (e) => ({ ...e, ciphertext: b64(randomBytes(n)) })),
        fc.constant<Mutation>((e) => ({ ...e, ciphertext: b64(randomBytes(65_537)) })),
        badText.map((nonce): Mutation => (e) => ({ ...e, nonce })),
        fc.constant<Mutation>((e) => ({ ...e, ciphertext: `${e.ciphertext}=` })),
        bytesNot(32).map((enc): Mutation => (e) => ({ ...e, recipients: e.recipients.map((r) => ({ ...r, enc })) })),
        bytesNot(48).map((wrappedKey): Mutation => (e) => ({ ...e, recipients: e.recipients.map((r) => ({ ...r, wrappedKey })) })),
        fc.integer({ min: 2, max: 5 }).map((n): Mutation => (e) => ({ ...e, recipients: Array.from({ length: n }, () => e.recipients[0]) })),
        fc.integer({ min: 101, max: 130 }).map((n): Mutation => (e) => ({
          ...e,
          recipients: Array.from({ length: n }, () => ({ ...e.recipients[0]!, memberId: randomUUID() }))
        })),
        fc.constant<Mutation>((e) => ({ ...e, recipients: [] })),
        fc.constantFrom(0, 1, 3, "2", null).map((version): Mutation => (e) => ({ ...e, version })),
        bytesNot(32).map((keyCommitment): Mutation => (e) => ({ ...e, keyCommitment })),
        fc.constantFrom(b64(new Uint8Array(32)), b64(randomBytes(31)), undefined).map((sealingKey): Mutation => (e) => ({
          ...e,
          recipients: e.recipients.map((r) => ({ ...r, sealingKey }))
        })),
        fc.string({ maxLength: 60 }).map((suite): Mutation => (e) => ({ ...e, suite })),
        fc.string({ maxLength: 40 }).map((memberId): Mutation => (e) => ({ ...e, recipients: [{ ...e.recipients[0]!, memberId }] })),
        fc.constantFrom("version", "suite", "nonce", "ciphertext", "keyCommitment", "recipients").map((key): Mutation => (e) =>
          Object.fromEntries(Object.entries(e).filter(([k]) => k !== key))),
        fc.jsonValue().map((v): Mutation => () => v)
      )
      const seen: Array<number> = []
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(mutations, async (mutate) => {
            const body = mutate(valid())
            const reply = await Effect.runPromise(put(app, m.initiator.token, batchId, body))
            seen.push(reply.status)
            expect(reply.status, JSON.stringify(body).slice(0, 300)).toBe(400)
            expect(typeof reply.body.error).toBe("string")
          }),
          { numRuns: 80, seed: 31 }
        )
      )
      expect(seen.length).toBeGreaterThanOrEqual(80)
      // The largest envelope the shape allows fits the 256 KiB body limit: it reaches the recipients' check (422), not 413.
      const largest = envelopeJson(newContent(65_536), Array.from({ length: 100 }, () => randomUUID()))
      expect(JSON.stringify(largest).length).toBeLessThan(256 * 1024)
      const big = yield* put(app, m.initiator.token, batchId, largest)
      expect(big.status).toBe(422)
      // None of them was stored.
      expect((yield* call(app, "GET", `/batches/${batchId}/sealed-amounts`, { token: m.initiator.token })).status).toBe(404)
    }))

  it.effect("a share only adds recipients: generated hostile shares of an approved batch's amounts (drop, replace, reorder, another digest) are refused and change nothing; adding a member, dropping one who left, re-wrapping one who rotated are accepted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Share Only Adds Co")
      const ids = yield* withIds(app, m)
      for (const role of ["initiator", "approver", "payer", "admin"] as const) yield* publish(app, m[role])
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 1 })
      const { batchId } = yield* batchOf(app, m.initiator.token, 1, { ready: false })
      const content = newContent()
      const sealed = yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.initiator.token,
        envelopeJson(content, [ids.initiator, ids.approver, ids.payer, ids.admin]))
      yield* must(app, "POST", `/batches/${batchId}/ready`, m.initiator.token)
      yield* must(app, "POST", `/batches/${batchId}/approve`, m.approver.token, { sealedAmountsDigest: digestOf(content) })
      type Stored = ReturnType<typeof envelopeJson>
      const stored = sealed.envelope as Stored
      const n = stored.recipients.length

      // The issue's own case: the payer leaves only themselves as a reader.
      const alone = yield* put(app, m.payer.token, batchId, { ...stored, recipients: [stored.recipients[2]] })
      expect(alone.status).toBe(409)
      expect(alone.body.error).toMatch(new RegExp(`the entry of member (${ids.initiator}|${ids.approver}|${ids.admin}) would be dropped`))

      type Hostile = { readonly what: string; readonly status: number; readonly make: (e: Stored) => unknown }
      const random = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => b64(b))
      const hostile: fc.Arbitrary<Hostile> = fc.oneof(
        fc.subarray([...Array(n).keys()], { minLength: 1, maxLength: n - 1 }).chain((dropped) =>
          fc.boolean().map((withNewcomer): Hostile => ({
            what: `drop ${dropped.join(",")}${withNewcomer ? " and add the owner" : ""}`,
            status: 409,
            make: (e) => ({
              ...e,
              recipients: [...e.recipients.filter((_, i) => !dropped.includes(i)), ...(withNewcomer ? [entryFor(ids.owner)] : [])]
            })
          }))),
        fc.tuple(fc.nat(n - 1), fc.constantFrom("enc", "wrappedKey"), fc.boolean()).chain(([at, part, both]) =>
          fc.tuple(random(32), random(48)).map(([enc, wrappedKey]): Hostile => ({
            what: `replace ${both ? "enc and wrappedKey" : part} of entry ${at}`,
            status: 409,
            make: (e) => ({
              ...e,
              recipients: e.recipients.map((r, i) =>
                i !== at ? r : both ? { ...r, enc, wrappedKey } : part === "enc" ? { ...r, enc } : { ...r, wrappedKey })
            })
          }))),
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n })
          .filter((order) => order.some((x, i) => x !== i))
          .map((order): Hostile => ({ what: `reorder ${order.join(",")}`, status: 409, make: (e) => ({ ...e, recipients: order.map((i) => e.recipients[i]) }) })),
        fc.constantFrom("nonce", "ciphertext", "keyCommitment").chain((part) =>
          random(part === "nonce" ? 12 : 32).map((bytes): Hostile => ({ what: `another ${part}`, status: 403, make: (e) => ({ ...e, [part]: bytes }) })))
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(hostile, async ({ what, status, make }) => {
            const reply = await Effect.runPromise(put(app, m.payer.token, batchId, make(stored)))
            expect(reply.status, what).toBe(status)
            expect(typeof reply.body.error, what).toBe("string")
          }),
          { numRuns: 60, seed: 35 }
        )
      )
      const unchanged = yield* must(app, "GET", `/batches/${batchId}/sealed-amounts`, m.payer.token)
      expect(unchanged.envelope).toEqual(stored)
      expect((yield* must(app, "GET", `/batches/${batchId}`, m.viewer.token)).approvals).toHaveLength(1)

      // The owner publishes a key: any reader (the payer) adds them, every entry kept; the approval stands.
      yield* publish(app, m.owner)
      const withOwner = { ...stored, recipients: [...stored.recipients, entryFor(ids.owner)] }
      const added = yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.payer.token, withOwner)
      expect(added.envelope).toEqual(withOwner)
      expect(added.digest).toBe(digestOf(content))

      // The admin leaves: their entry may go (and must: they are no member to seal to).
      yield* must(app, "DELETE", `/org/members/${ids.admin}`, m.owner.token)
      const kept = yield* put(app, m.payer.token, batchId, withOwner)
      expect(kept.status).toBe(422)
      expect(kept.body.error).toContain(`${ids.admin} is not a member`)
      const withoutAdmin = { ...withOwner, recipients: withOwner.recipients.filter((r) => r.memberId !== ids.admin) }
      expect((yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.approver.token, withoutAdmin)).envelope).toEqual(withoutAdmin)

      // The approver publishes another key: their entry is re-wrapped, in place or at the end; the old one no longer opens.
      yield* publish(app, m.approver)
      const stale = yield* put(app, m.payer.token, batchId, withoutAdmin)
      expect(stale.status).toBe(422)
      expect(stale.body.error).toContain(`${ids.approver}'s entry names another key`)
      const rewrapped = {
        ...withoutAdmin,
        recipients: [...withoutAdmin.recipients.filter((r) => r.memberId !== ids.approver), entryFor(ids.approver)]
      }
      expect((yield* must(app, "PUT", `/batches/${batchId}/sealed-amounts`, m.payer.token, rewrapped)).envelope).toEqual(rewrapped)
      // Once re-wrapped, that entry is kept like any other.
      const swapped = yield* put(app, m.payer.token, batchId, {
        ...rewrapped,
        recipients: rewrapped.recipients.map((r) => (r.memberId === ids.approver ? entryFor(ids.approver) : r))
      })
      expect(swapped.status).toBe(409)
      expect(swapped.body.error).toContain(`the entry of member ${ids.approver} would change`)
      const after = yield* must(app, "GET", `/batches/${batchId}`, m.viewer.token)
      expect(after.approvals.map((a: { sealedAmountsDigest: string }) => a.sealedAmountsDigest)).toEqual([digestOf(content)])
      const actions = (yield* auditActions(app, m.viewer.token, `action=batch.amounts_shared&subjectId=${batchId}`)).length
      expect(actions).toBe(3)
      yield* must(app, "PATCH", "/org/settings", m.owner.token, { approvalsRequired: 0 })
    }))

  it.effect("a sealing key is one membership's: publishing another member's, of this organization or another, is 409; one's own again is not", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Own Keys Co")
      const other = yield* orgWithEveryRole(app, "Other Keys Co")
      const key = newKey()
      yield* publish(app, m.approver, key)
      for (const copier of [m.payer, other.owner]) {
        const copied = yield* call(app, "PUT", "/me/sealing-key", { token: copier.token, json: { sealingKey: key } })
        expect(copied.status).toBe(409)
        expect(copied.body.error).toContain("already published by another member")
      }
      expect((yield* publish(app, m.approver, key)).sealingKey).toBe(key)
      const page = yield* must(app, "GET", "/org/members?limit=100", m.owner.token)
      expect((page.items as Array<{ sealingKey?: string }>).filter((x) => x.sealingKey === key)).toHaveLength(1)
      // Once the approver moves to another key, the old one is free again.
      yield* publish(app, m.approver)
      expect((yield* publish(app, m.payer, key)).sealingKey).toBe(key)
    }))
})
