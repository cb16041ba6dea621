import { Reactivity } from "@effect/experimental"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, DateTime, Deferred, Effect, Fiber, Layer, Option, Ref, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { AuditLog } from "../src/Audit/AuditLog.ts"
import { AuditRepo } from "../src/Audit/AuditRepo.ts"
import { AuditSealerLive } from "../src/Audit/Sealer.ts"
import type { OrgId } from "../src/Domain/Ids.ts"
import { Drain } from "../src/Http/Drain.ts"
import { AuditTrail } from "../src/Sql/AuditTrail.ts"
import { DatabaseLive } from "../src/Sql/Migrations.ts"
import { backend, freshDatabase } from "./support/TestDatabase.ts"

const DatabaseFresh = Layer.unwrapScoped(
  Effect.map(freshDatabase, (settings) =>
    DatabaseLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))))
  ).pipe(Effect.provide(Reactivity.layer))
)

const Audit = Layer.mergeAll(AuditLog.Default, AuditRepo.Default, AuditTrail.Default).pipe(Layer.provideMerge(DatabaseFresh))

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

const idAt = (orgId: OrgId, position: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly id: string }>`SELECT id FROM audit_log WHERE org_id = ${orgId} AND position = ${position}`).pipe(
      Effect.map((rows) => rows[0]!.id)
    )

/** A hand edit by someone who can switch the table's guard off, as an operator with the owner's rights could. */
const handEdit = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`
    yield* statement(sql).pipe(Effect.ensuring(Effect.orDie(sql`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`)))
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

  it.effect("the table refuses UPDATE, DELETE and TRUNCATE, and a second link of a linked row", () =>
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
      expect(yield* refused(sql`UPDATE audit_log SET hash = hash WHERE id = ${id}`)).toMatch(/append-only: UPDATE refused/)
      expect(yield* refused(sql`DELETE FROM audit_log WHERE id = ${id}`)).toMatch(/append-only: DELETE refused/)
      expect(yield* refused(sql`TRUNCATE audit_log`)).toMatch(/append-only: TRUNCATE refused/)
      expect(yield* audit.verify(org)).toMatchObject({ rows: 2, verified: true })
    }))

  it.effect("names the row a hand edit changed, and the row after one it removed", () =>
    Effect.gen(function*() {
      const audit = yield* AuditLog
      const edited = newOrg()
      yield* appendRows(edited, 6)
      expect(yield* audit.verify(edited)).toMatchObject({ rows: 6, verified: true })
      const target = yield* idAt(edited, 4)
      yield* handEdit((sql) => sql`UPDATE audit_log SET action = 'batch.rejected' WHERE id = ${target}`)
      expect(yield* audit.verify(edited)).toEqual(expect.objectContaining({ rows: 4, verified: false, firstBrokenId: target, pending: 0 }))

      const removed = newOrg()
      yield* appendRows(removed, 5)
      yield* audit.verify(removed)
      const gone = yield* idAt(removed, 2)
      const next = yield* idAt(removed, 3)
      yield* handEdit((sql) => sql`DELETE FROM audit_log WHERE id = ${gone}`)
      expect(yield* audit.verify(removed)).toMatchObject({ rows: 2, verified: false, firstBrokenId: next })

      // A row unlinked by hand is linked again at the end: its old place is a gap.
      const relinked = newOrg()
      yield* appendRows(relinked, 4)
      yield* audit.verify(relinked)
      const third = yield* idAt(relinked, 3)
      const fourth = yield* idAt(relinked, 4)
      yield* handEdit((sql) => sql`UPDATE audit_log SET position = NULL, prev_hash = NULL, hash = NULL WHERE id = ${third}`)
      expect(yield* audit.verify(relinked)).toMatchObject({ verified: false, firstBrokenId: fourth })

      // A head whose hash was emptied is not built upon: the rows after it wait, and verify names it.
      const headless = newOrg()
      yield* appendRows(headless, 3)
      yield* audit.verify(headless)
      const head = yield* idAt(headless, 3)
      yield* handEdit((sql) => sql`UPDATE audit_log SET hash = NULL WHERE id = ${head}`)
      yield* appendRows(headless, 1)
      expect(yield* audit.verify(headless)).toMatchObject({ rows: 3, verified: false, firstBrokenId: head, pending: 1 })

      // A middle row's hash emptied is named too; later rows are still linked after the intact head.
      const hollow = newOrg()
      yield* appendRows(hollow, 3)
      yield* audit.verify(hollow)
      const middle = yield* idAt(hollow, 2)
      yield* handEdit((sql) => sql`UPDATE audit_log SET hash = NULL WHERE id = ${middle}`)
      yield* appendRows(hollow, 2)
      expect(yield* audit.verify(hollow)).toMatchObject({ rows: 2, verified: false, firstBrokenId: middle, pending: 0 })
      expect(yield* idAt(hollow, 5)).toEqual(expect.any(String))
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
      // Each sealer goes on until a seal that began after the last write linked nothing.
      const sealer = Effect.gen(function*() {
        for (;;) {
          const finished = !(yield* Ref.get(writing))
          if ((yield* repo.seal(org)) === 0 && finished) return
          yield* Effect.sleep("2 millis")
        }
      })
      const writers = Effect.all([0, 1, 2, 3].map(writer), { concurrency: "unbounded" }).pipe(Effect.zipRight(Ref.set(writing, false)))
      yield* Effect.all([writers, sealer, sealer, sealer], { concurrency: "unbounded" })
      expect(yield* repo.pending(org)).toBe(0)
      expect(yield* audit.verify(org)).toMatchObject({ rows: 60, verified: true, pending: 0 })
      const positions = yield* sql<{ readonly position: string }>`SELECT position FROM audit_log WHERE org_id = ${org} ORDER BY position`
      expect(positions.map((r) => Number(r.position))).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
    }))

  it.effect("a row whose transaction commits after a later one was linked takes the next position", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const trail = yield* AuditTrail
      const repo = yield* AuditRepo
      const audit = yield* AuditLog
      const org = newOrg()
      const entry = (id: string) => ({ orgId: org, actor: { type: "system", id: "worker" } as const, action: "payout.settled", subject: { type: "payout", id } })
      const inserted = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const late = yield* sql.withTransaction(
        trail.append(entry("late")).pipe(Effect.zipRight(Deferred.succeed(inserted, undefined)), Effect.zipRight(Deferred.await(commit)))
      ).pipe(Effect.fork)
      yield* Deferred.await(inserted)
      yield* sql.withTransaction(trail.append(entry("early")))
      expect(yield* repo.seal(org)).toBe(1)
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(late)
      expect(yield* repo.seal(org)).toBe(1)
      const rows = yield* sql<{ readonly subjectId: string; readonly seq: string; readonly position: string }>`
        SELECT subject_id, seq, position FROM audit_log WHERE org_id = ${org} ORDER BY position`
      expect(rows.map((r) => r.subjectId)).toEqual(["early", "late"])
      expect(Number(rows[1]!.seq)).toBeLessThan(Number(rows[0]!.seq))
      expect(yield* audit.verify(org)).toMatchObject({ rows: 2, verified: true, pending: 0 })
    }))
})

const Sealing = Layer.mergeAll(AuditSealerLive, AuditTrail.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(AuditLog.Default, AuditRepo.Default, Drain.Default)),
  Layer.provideMerge(DatabaseFresh)
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
      expect(yield* repo.unlinkedOrgs(10)).toEqual([])
      for (const org of orgs) expect(yield* (yield* AuditLog).verify(org)).toMatchObject({ rows: 3, verified: true })
    }))
})
