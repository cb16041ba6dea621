import { Reactivity } from "@effect/experimental"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, DateTime, Deferred, Effect, Fiber, Layer, Option, Ref, Schedule } from "effect"
import { Keypair } from "@stellar/stellar-sdk"
import { randomUUID } from "node:crypto"
import { AuditLog } from "../src/Audit/AuditLog.ts"
import type { AuditVerification } from "../src/Audit/AuditRecord.ts"
import { AuditRepo } from "../src/Audit/AuditRepo.ts"
import { AuditSealerLive } from "../src/Audit/Sealer.ts"
import type { OrgId } from "../src/Domain/Ids.ts"
import { Drain } from "../src/Http/Drain.ts"
import { AuditTrail } from "../src/Sql/AuditTrail.ts"
import { MIGRATIONS } from "../src/Sql/Migrations.ts"
import { PgLive } from "../src/Sql/PgLive.ts"
import { GENESIS, link } from "../src/Audit/Chain.ts"
import { CheckpointSigner } from "../src/Audit/Checkpoint.ts"
import { backend, freshDatabase, MigratedDatabase } from "./support/TestDatabase.ts"

/** The key checkpoints are signed with (the service's SEP-10 key in the app). */
const signer = Keypair.random()
const Checkpoints = Layer.succeed(CheckpointSigner, signer)

const Audit = Layer.mergeAll(AuditLog.Default, AuditRepo.Default, AuditTrail.Default).pipe(
  Layer.provideMerge(Layer.merge(MigratedDatabase, Checkpoints))
)

const newOrg = () => randomUUID() as OrgId

/** `n` rows for `orgId` through the one writer, each in its own transaction, as features append them. */
const appendRows = (orgId: OrgId, n: number, action = "batch.approved") =>
  Effect.gen(function*() {
    const trail = yield* AuditTrail
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < n; i++) {
      yield* sql.withTransaction(trail.append({
        orgId,
        actor: i % 2 === 0 ? { type: "member", id: "GMEMBER" } : { type: "system", id: "ledger" },
        action,
        subject: { type: i % 3 === 0 ? "payout" : "batch", id: `subject-${i}` },
        from: i % 2 === 0 ? null : "submitted",
        to: i % 2 === 0 ? null : "settled"
      }))
    }
  })

/** The id of the row the organization's chain holds at `position`, as its seal recorded it. */
const idAt = (orgId: OrgId, position: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly id: string }>`
      SELECT (ids[${position} - first_position + 1])::text AS id FROM audit_seals
      WHERE org_id = ${orgId} AND ${position} BETWEEN first_position AND last_position`).pipe(
      Effect.map((rows) => rows[0]!.id)
    )

/** The organization's chain as its seals hold it: the row ids in position order. */
const chainOf = (orgId: OrgId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly id: string; readonly position: string }>`
      SELECT u.id::text AS id, s.first_position + u.i - 1 AS position
      FROM audit_seals s, unnest(s.ids) WITH ORDINALITY AS u(id, i)
      WHERE s.org_id = ${orgId} ORDER BY s.last_position, u.i`).pipe(Effect.orDie)

/** A hand edit by someone who can switch the tables' guards off, as an operator with the owner's rights could. */
const handEdit = (table: "audit_log" | "audit_seals", statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`ALTER TABLE ${table} DISABLE TRIGGER ${table}_append_only`)
    yield* statement(sql).pipe(Effect.ensuring(Effect.orDie(sql.unsafe(`ALTER TABLE ${table} ENABLE TRIGGER ${table}_append_only`))))
  }).pipe(Effect.orDie)

layer(Audit, { excludeTestServices: true })(`the audit trail's hash chain (${backend})`, (it) => {
  it.effect("rows appended by the writer are linked by a seal and verify; the trail pages newest first and filters", () =>
    Effect.gen(function*() {
      const audit = yield* AuditLog
      const org = newOrg()
      yield* appendRows(org, 7).pipe(Effect.annotateLogs({ requestId: "req-7" }))
      yield* appendRows(newOrg(), 3)
      expect(yield* audit.verify(org)).toMatchObject({ rows: 7, verified: true, pending: 0 })
      expect((yield* audit.verify(org)).firstBrokenId).toBeUndefined()

      const first = yield* audit.list(org, { limit: 3 })
      expect(first.items.map((r) => r.subject.id)).toEqual(["subject-6", "subject-5", "subject-4"])
      expect(first.items[1]).toMatchObject({ actor: { type: "system", id: "ledger" }, action: "batch.approved" })
      expect([first.items[1]!.from, first.items[1]!.to, first.items[1]!.requestId])
        .toEqual([Option.some("submitted"), Option.some("settled"), Option.some("req-7")])
      expect([first.items[0]!.from, first.items[0]!.to]).toEqual([Option.none(), Option.none()])
      const second = yield* audit.list(org, { limit: 3, cursor: first.nextCursor! })
      const third = yield* audit.list(org, { limit: 3, cursor: second.nextCursor! })
      expect([...second.items, ...third.items].map((r) => r.subject.id)).toEqual(["subject-3", "subject-2", "subject-1", "subject-0"])
      expect(third.nextCursor).toBeUndefined()

      const ids = (params: Parameters<typeof audit.list>[1]) => Effect.map(audit.list(org, params), (p) => p.items.map((r) => r.subject.id))
      expect(yield* ids({ subjectType: "payout" })).toEqual(["subject-6", "subject-3", "subject-0"])
      expect(yield* ids({ subjectId: "subject-4" })).toEqual(["subject-4"])
      expect(yield* ids({ actor: "ledger" })).toEqual(["subject-5", "subject-3", "subject-1"])
      expect(yield* ids({ action: "member.removed" })).toEqual([])
      const now = DateTime.unsafeNow()
      expect((yield* ids({ from: DateTime.subtract(now, { minutes: 1 }), to: DateTime.add(now, { minutes: 1 }) })).length).toBe(7)
      expect(yield* ids({ from: DateTime.add(now, { minutes: 1 }) })).toEqual([])
      const bad = yield* Effect.flip(audit.list(org, { cursor: "not a cursor" }))
      expect(bad).toMatchObject({ _tag: "InvalidRequest", error: "invalid cursor" })
    }))

  it.effect("the trail and its seals refuse UPDATE, DELETE and TRUNCATE", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const audit = yield* AuditLog
      const repo = yield* AuditRepo
      const org = newOrg()
      yield* appendRows(org, 2)
      expect(yield* repo.pending(org)).toBe(2)
      yield* audit.verify(org)
      const id = yield* idAt(org, 1)
      const refused = (statement: Effect.Effect<unknown, unknown>) =>
        Effect.map(Effect.flip(statement), (e) => String((e as { cause?: { message?: string } }).cause?.message))
      expect(yield* refused(sql`UPDATE audit_log SET action = 'edited' WHERE id = ${id}`)).toMatch(/append-only: UPDATE refused/)
      expect(yield* refused(sql`UPDATE audit_log SET xid = xid WHERE id = ${id}`)).toMatch(/append-only: UPDATE refused/)
      expect(yield* refused(sql`DELETE FROM audit_log WHERE id = ${id}`)).toMatch(/append-only: DELETE refused/)
      expect(yield* refused(sql`TRUNCATE audit_log`)).toMatch(/audit_log is append-only: TRUNCATE refused/)
      expect(yield* refused(sql`UPDATE audit_seals SET hashes = hashes WHERE org_id = ${org}`)).toMatch(/audit_seals is append-only: UPDATE refused/)
      expect(yield* refused(sql`DELETE FROM audit_seals WHERE org_id = ${org}`)).toMatch(/audit_seals is append-only: DELETE refused/)
      expect(yield* refused(sql`TRUNCATE audit_seals`)).toMatch(/audit_seals is append-only: TRUNCATE refused/)
      expect(yield* audit.verify(org)).toMatchObject({ rows: 2, verified: true })
    }))

  it.effect("names the row a hand edit changed or removed, and the place after a seal removed or edited", () =>
    Effect.gen(function*() {
      const audit = yield* AuditLog
      const edited = newOrg()
      yield* appendRows(edited, 6)
      expect(yield* audit.verify(edited)).toMatchObject({ rows: 6, verified: true })
      const target = yield* idAt(edited, 4)
      yield* handEdit("audit_log", (sql) => sql`UPDATE audit_log SET action = 'batch.rejected' WHERE id = ${target}`)
      expect(yield* audit.verify(edited)).toEqual(expect.objectContaining({ rows: 4, verified: false, firstBrokenId: target, pending: 0 }))

      const removed = newOrg()
      yield* appendRows(removed, 5)
      yield* audit.verify(removed)
      const gone = yield* idAt(removed, 2)
      yield* handEdit("audit_log", (sql) => sql`DELETE FROM audit_log WHERE id = ${gone}`)
      expect(yield* audit.verify(removed)).toMatchObject({ rows: 2, verified: false, firstBrokenId: gone })

      // A seal removed: the chain resumes at a later position, and the first place after the gap is named.
      const unsealed = newOrg()
      yield* appendRows(unsealed, 2)
      yield* audit.verify(unsealed)
      yield* appendRows(unsealed, 2)
      yield* audit.verify(unsealed)
      const third = yield* idAt(unsealed, 3)
      yield* handEdit("audit_seals", (sql) => sql`DELETE FROM audit_seals WHERE org_id = ${unsealed} AND last_position <= 2`)
      expect(yield* audit.verify(unsealed)).toMatchObject({ rows: 1, verified: false, firstBrokenId: third })

      // A recorded hash edited in the middle of a seal is named; rows sealed after it are still linked and counted.
      const hollow = newOrg()
      yield* appendRows(hollow, 3)
      yield* audit.verify(hollow)
      const middle = yield* idAt(hollow, 2)
      yield* handEdit("audit_seals", (sql) =>
        sql`UPDATE audit_seals SET hashes = overlay(hashes PLACING decode(repeat('07', 32), 'hex') FROM ((2 - first_position) * 32 + 1)::int FOR 32)
          WHERE org_id = ${hollow} AND 2 BETWEEN first_position AND last_position`)
      yield* appendRows(hollow, 2)
      expect(yield* audit.verify(hollow)).toMatchObject({ rows: 2, verified: false, firstBrokenId: middle, pending: 0 })
      expect((yield* chainOf(hollow)).map((r) => Number(r.position))).toEqual([1, 2, 3, 4, 5])
    }))

  it.effect("a signed checkpoint kept outside shows what the chain alone cannot: its newest entries removed, or the chain recomputed whole", () =>
    Effect.gen(function*() {
      const audit = yield* AuditLog
      const repo = yield* AuditRepo
      const org = newOrg()
      const checkpointOf = (v: AuditVerification) => `${v.checkpoint!.position}:${v.checkpoint!.hash}`
      yield* appendRows(org, 5)
      const first = yield* audit.verify(org)
      expect(first).toMatchObject({ rows: 5, verified: true, checkpoint: { position: 5, signingKey: signer.publicKey() } })
      expect(first.checkpointKept).toBeUndefined()
      // The signature is SEP-53's, as the Stellar SDK checks it, over the organization, the position and the hash.
      const signed = first.checkpoint!
      expect(signed.message).toBe(`Confidential payroll audit checkpoint\norganization: ${org}\nposition: 5\nhash: ${signed.hash}`)
      expect(Keypair.fromPublicKey(signed.signingKey).verifyMessage(signed.message, Buffer.from(signed.signature, "base64"))).toBe(true)
      expect(Keypair.fromPublicKey(signed.signingKey).verifyMessage(signed.message.replace("position: 5", "position: 4"), Buffer.from(signed.signature, "base64")))
        .toBe(false)
      expect(Keypair.random().verifyMessage(signed.message, Buffer.from(signed.signature, "base64"))).toBe(false)

      yield* appendRows(org, 2)
      const grown = yield* audit.verify(org, { checkpoint: checkpointOf(first) })
      expect(grown).toMatchObject({ rows: 7, verified: true, checkpointKept: true, checkpoint: { position: 7 } })
      expect(yield* audit.verify(org, { checkpoint: `0:${"0".repeat(64)}` })).toMatchObject({ verified: true, checkpointKept: true })
      expect(yield* audit.verify(org, { checkpoint: `5:${"ab".repeat(32)}` })).toMatchObject({ verified: false, checkpointKept: false })
      expect((yield* audit.verify(org, { checkpoint: `5:${"ab".repeat(32)}` })).checkpoint).toBeUndefined()

      // The newest seal and its rows removed by hand: the chain that is left still verifies; the checkpoint does not.
      const newest = (yield* chainOf(org)).filter((r) => Number(r.position) > 5).map((r) => r.id)
      yield* handEdit("audit_seals", (sql) => sql`DELETE FROM audit_seals WHERE org_id = ${org} AND first_position > 5`)
      yield* handEdit("audit_log", (sql) => sql`DELETE FROM audit_log WHERE id = ANY(${newest}::uuid[])`)
      expect(yield* audit.verify(org)).toMatchObject({ rows: 5, verified: true })
      expect(yield* audit.verify(org, { checkpoint: checkpointOf(grown) })).toMatchObject({ rows: 5, verified: false, checkpointKept: false })
      expect(yield* audit.verify(org, { checkpoint: checkpointOf(first) })).toMatchObject({ verified: true, checkpointKept: true })

      // A row edited and every seal recomputed from the edited rows: the chain verifies; the checkpoint does not.
      const chain = yield* chainOf(org)
      yield* handEdit("audit_log", (sql) => sql`UPDATE audit_log SET action = 'batch.rejected' WHERE id = ${chain[2]!.id}`)
      const byId = new Map((yield* repo.rows(chain.map((r) => r.id))).map((r) => [r.id, r]))
      const recomputed = Buffer.concat(link(GENESIS, chain.map((r) => byId.get(r.id)!)))
      yield* handEdit("audit_seals", (sql) =>
        Effect.zipRight(
          sql`DELETE FROM audit_seals WHERE org_id = ${org}`,
          sql`INSERT INTO audit_seals ${sql.insert({ orgId: org, firstPosition: 1, lastPosition: chain.length, ids: chain.map((r) => r.id), hashes: recomputed })}`
        ))
      expect(yield* audit.verify(org)).toMatchObject({ rows: 5, verified: true })
      expect(yield* audit.verify(org, { checkpoint: checkpointOf(first) })).toMatchObject({ rows: 5, verified: false, checkpointKept: false })
    }))

  it.effect("sealers running at once, beside writers whose transactions commit late, never break the chain", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const trail = yield* AuditTrail
      const repo = yield* AuditRepo
      const audit = yield* AuditLog
      const org = newOrg()
      const writer = (w: number) =>
        Effect.forEach(Array.from({ length: 15 }, (_, i) => i), (i) =>
          sql.withTransaction(
            trail.append({ orgId: org, actor: { type: "system", id: "worker" }, action: "payout.settled", subject: { type: "payout", id: `${w}-${i}` } })
              // Some commit well after rows appended later: a lower seq linked after a higher one.
              .pipe(Effect.zipLeft(Effect.sleep(i % 4 === 0 ? "40 millis" : "1 millis")))
          ))
      const writing = yield* Ref.make(true)
      // Each sealer goes on until a round that began after the last write linked nothing; a round that finds
      // another sealer running links nothing either, and that sealer goes on.
      const sealer = (wait: boolean) =>
        Effect.gen(function*() {
          for (;;) {
            const finished = !(yield* Ref.get(writing))
            if ((yield* repo.seal(wait)).sealed === 0 && finished) return
            yield* Effect.sleep("2 millis")
          }
        })
      const writers = Effect.all([0, 1, 2, 3].map(writer), { concurrency: "unbounded" }).pipe(Effect.zipRight(Ref.set(writing, false)))
      yield* Effect.all([writers, sealer(false), sealer(false), sealer(true)], { concurrency: "unbounded" })
      // A transaction open elsewhere on the server holds the last rows back a moment: verify waits for it.
      expect(yield* audit.verify(org)).toMatchObject({ rows: 60, verified: true, pending: 0 })
      expect(yield* repo.pending(org)).toBe(0)
      const chained = yield* chainOf(org)
      expect(chained.map((r) => Number(r.position))).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
      expect(new Set(chained.map((r) => r.id)).size).toBe(60)
    }))

  it.effect("a transaction still open holds the sealer back, so a row committed late is linked in its place", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const trail = yield* AuditTrail
      const repo = yield* AuditRepo
      const audit = yield* AuditLog
      const org = newOrg()
      yield* repo.seal(true)
      const entry = (id: string) => ({ orgId: org, actor: { type: "system", id: "worker" } as const, action: "payout.settled", subject: { type: "payout", id } })
      const inserted = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const late = yield* sql.withTransaction(
        trail.append(entry("late")).pipe(Effect.zipRight(Deferred.succeed(inserted, undefined)), Effect.zipRight(Deferred.await(commit)))
      ).pipe(Effect.fork)
      yield* Deferred.await(inserted)
      yield* sql.withTransaction(trail.append(entry("early")))
      // "early" committed, but "late" (appended first, in a transaction begun first) may still commit: nothing passes it.
      expect((yield* repo.seal(true)).sealed).toBe(0)
      expect(yield* repo.pending(org)).toBe(1)
      // A verification waits for transactions begun before it, and so covers a row they commit while it waits.
      const verifying = yield* Effect.fork(audit.verify(org))
      yield* Effect.sleep("200 millis")
      // Meanwhile a second verification of the same organization waits its turn; another organization's goes ahead
      // (and waits for the same open transaction).
      const second = yield* Effect.fork(audit.verify(org))
      const other = yield* Effect.fork(audit.verify(newOrg()))
      yield* Effect.sleep("100 millis")
      expect(second.unsafePoll()).toBeNull()
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(late)
      expect(yield* Fiber.join(verifying)).toMatchObject({ rows: 2, verified: true, pending: 0 })
      expect(yield* Fiber.join(second)).toMatchObject({ rows: 2, verified: true, pending: 0 })
      expect(yield* Fiber.join(other)).toMatchObject({ rows: 0, verified: true })
      const rows = yield* sql<{ readonly subjectId: string; readonly seq: string }>`
        SELECT a.subject_id, a.seq FROM audit_seals s, unnest(s.ids) WITH ORDINALITY AS u(id, i)
        JOIN audit_log a ON a.id = u.id WHERE s.org_id = ${org} ORDER BY s.last_position, u.i`
      expect(rows.map((r) => r.subjectId)).toEqual(["late", "early"])
      expect(Number(rows[0]!.seq)).toBeLessThan(Number(rows[1]!.seq))
    }))
})

const Sealing = Layer.mergeAll(AuditSealerLive, AuditTrail.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(AuditLog.Default, AuditRepo.Default, Drain.Default)),
  Layer.provideMerge(Layer.merge(MigratedDatabase, Checkpoints))
)

layer(Sealing, { excludeTestServices: true })(`the audit sealer (${backend})`, (it) => {
  it.effect("links every organization's new rows within seconds, without a verification asking", () =>
    Effect.gen(function*() {
      const repo = yield* AuditRepo
      const orgs = [newOrg(), newOrg(), newOrg()]
      for (const org of orgs) yield* appendRows(org, 3)
      yield* Effect.forEach(orgs, (org) =>
        repo.pending(org).pipe(
          Effect.filterOrFail((n) => n === 0),
          Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("10 seconds")))
        ))
      for (const org of orgs) expect(yield* (yield* AuditLog).verify(org)).toMatchObject({ rows: 3, verified: true })
    }))
})

const Unmigrated = Layer.unwrapScoped(
  Effect.map(freshDatabase, (settings) =>
    Layer.mergeAll(PgLive, NodeContext.layer).pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))))
    ))
).pipe(Layer.provide(Reactivity.layer))

layer(Layer.mergeAll(AuditLog.Default, AuditRepo.Default).pipe(Layer.provideMerge(Layer.merge(Unmigrated, Checkpoints))), {
  excludeTestServices: true
})(
  `the audit trail across migration 0022 (${backend})`,
  (it) => {
    it.effect("rows linked before are sealed as they were linked, rows not yet linked are linked next, nothing is lost", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < "0022"))
        yield* PgMigrator.run({ loader: PgMigrator.fromRecord(before) })
        // As the code before 0022 wrote and linked them: rows appended, then `position`, `prev_hash`, `hash` set once.
        const org = newOrg()
        const rows = Array.from({ length: 5 }, (_, i) => ({
          id: randomUUID(),
          orgId: org,
          at: new Date(Date.UTC(2026, 10, 20, 9, 0, i)),
          actorType: "member",
          actorId: "GMEMBER",
          action: "batch.approved",
          subjectType: "batch",
          subjectId: `batch-${i}`,
          fromState: null,
          toState: null,
          requestId: i === 0 ? null : `req-${i}`
        }))
        yield* sql`INSERT INTO audit_log ${sql.insert(rows)}`
        const hashes = link(GENESIS, rows.slice(0, 3))
        for (const [i, hash] of hashes.entries()) {
          yield* sql`UPDATE audit_log SET position = ${i + 1}, prev_hash = ${i === 0 ? GENESIS.hash : hashes[i - 1]!}, hash = ${hash}
            WHERE id = ${rows[i]!.id}`
        }
        yield* PgMigrator.run({ loader: PgMigrator.fromRecord(MIGRATIONS) })
        expect(yield* (yield* AuditRepo).pending(org)).toBe(2)
        expect((yield* chainOf(org)).map((r) => r.id)).toEqual(rows.slice(0, 3).map((r) => r.id))
        expect(yield* (yield* AuditLog).verify(org)).toMatchObject({ rows: 5, verified: true, pending: 0 })
        expect((yield* chainOf(org)).map((r) => r.id)).toEqual(rows.map((r) => r.id))
      }))
  }
)
