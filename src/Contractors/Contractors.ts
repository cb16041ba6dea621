import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Data, Effect, Option, Schema, type Types } from "effect"
import { randomUUID } from "node:crypto"
import {
  BulkImportResult,
  BulkRowError,
  Contractor,
  type ContractorChanges,
  type CreateContractor,
  Invitation,
  type ListContractorsParams,
  type UpdateContractor
} from "../Domain/Contractor.ts"
import { Conflict, notFound } from "../Domain/Errors.ts"
import { ContractorId, type OrgId } from "../Domain/Ids.ts"
import { BulkRows, type ValidRow } from "./BulkRows.ts"
import { ContractorRepo } from "./ContractorRepo.ts"
import { registeredColumns, Registrations } from "./Directory.ts"
import { decodeCursor, toPage } from "../Http/Cursor.ts"
import { ContractorInvites } from "./ContractorInvites.ts"
import { orUnavailable, unavailableOrDie } from "../Sql/Errors.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { type Actor, type AuditActor, SYSTEM_LEDGER } from "../Domain/Actor.ts"
import { Outbox } from "../Sql/Outbox.ts"
import { announceReady } from "./Readiness.ts"
import * as Spans from "../Observability/Spans.ts"

/** A `register` event names an address the contract does not (yet) show as registered. */
export class NotRegistered extends Data.TaggedError("NotRegistered")<{ readonly address: string }> {}

const duplicate = new Conflict({ error: "a contractor with this email or address already exists" })

/** The contractor directory of one organization. */
export class Contractors extends Effect.Service<Contractors>()("Contractors/Contractors", {
  effect: Effect.gen(function*() {
    const repo = yield* ContractorRepo
    const invites = yield* ContractorInvites
    const registrations = yield* Registrations
    const outbox = yield* Outbox
    const audit = yield* AuditTrail
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * Applies the changes (when the contractor is still `expected`) and, should it become ready by them, writes
     * `contractor.ready` to the outbox in the same transaction.
     */
    const updateAnnounced = (
      actor: AuditActor,
      orgId: OrgId,
      id: ContractorId,
      changes: ContractorChanges,
      at: Date,
      expected: Contractor["status"]
    ) =>
      repo.update(orgId, id, changes, at, expected).pipe(
        Effect.tap(Option.match({
          onNone: () => Effect.void,
          onSome: (row) =>
            Effect.zipRight(
              announceReady(outbox, [row], expected),
              audit.append({
                orgId,
                actor,
                action: row.status === expected ? "contractor.updated" : "contractor.status_changed",
                subject: { type: "contractor", id },
                from: expected,
                to: row.status
              })
            )
        })),
        sql.withTransaction,
        Effect.catchTag("SqlError", unavailableOrDie)
      )

    const waiting = SqlSchema.findAll({
      Request: Schema.String,
      Result: Contractor,
      execute: (address) =>
        sql`
          SELECT id, org_id, name, email, address, pvk, auditor_id, status, rate, user_sub, created_at, last_paid_at
          FROM contractors WHERE address = ${address} AND status IN ('invited', 'onboarding')`
    })

    const find = (orgId: OrgId, id: ContractorId) =>
      repo.findById(orgId, id).pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.fail(notFound("contractor")),
        onSome: Effect.succeed
      })))

    /** Each new contractor's audit row, in the transaction that inserts them. */
    const recordCreated = (actor: AuditActor, rows: ReadonlyArray<Contractor>) =>
      audit.appendAll(rows.map((row) => ({
        orgId: row.orgId,
        actor,
        action: "contractor.created",
        subject: { type: "contractor", id: row.id },
        to: row.status
      })))

    const create = Spans.fn("Contractors.create")(function*(actor: Actor, input: CreateContractor) {
      const orgId = actor.orgId
      const address = input.address ?? null
      const registered = yield* registrations.lookup(address)
      const [row] = yield* invites.addInvited(repo.insertMany([Contractor.insert.make({
        id: ContractorId.make(randomUUID()),
        orgId,
        name: input.name,
        email: Option.fromNullable(input.email),
        address: Option.fromNullable(address),
        pvk: Option.none(),
        auditorId: Option.none(),
        ...registeredColumns(registered),
        status: registrations.statusFor(registered, false),
        rate: Option.fromNullable(input.rate),
        userSub: Option.none()
      })]).pipe(Effect.tap((rows) => Effect.zipRight(announceReady(outbox, rows), recordCreated(actor.audit, rows)))), yield* now).pipe(
        Effect.catchTag("DuplicateContractor", () => Effect.fail(duplicate))
      )
      return row!
    })

    const bulk = Spans.fn("Contractors.bulk")(function*(actor: Actor, rows: ReadonlyArray<unknown>) {
      const orgId = actor.orgId
      const checked = BulkRows.validate(rows)
      const taken = yield* repo.taken(
        orgId,
        checked.valid.flatMap((r) => r.email === null ? [] : [r.email]),
        checked.valid.flatMap((r) => r.address === null ? [] : [r.address])
      )
      const errors = [...checked.errors]
      const fresh: Array<ValidRow> = []
      for (const row of checked.valid) {
        if (row.email !== null && taken.emails.has(row.email.toLowerCase())) {
          errors.push({ row: row.row, reason: "email already in the directory" })
        } else if (row.address !== null && taken.addresses.has(row.address)) {
          errors.push({ row: row.row, reason: "address already in the directory" })
        } else fresh.push(row)
      }
      const registered = yield* Effect.forEach(fresh, (row) => registrations.lookup(row.address), { concurrency: 8 })
      const imported = yield* invites.addInvited(repo.insertMany(fresh.map((row, i) =>
        Contractor.insert.make({
          id: ContractorId.make(randomUUID()),
          orgId,
          name: row.name,
          email: Option.fromNullable(row.email),
          address: Option.fromNullable(row.address),
          pvk: Option.none(),
          auditorId: Option.none(),
          ...registeredColumns(registered[i]!),
          status: registrations.statusFor(registered[i]!, false),
          rate: row.amount === null ? Option.none() : Option.some({ amount: row.amount, currency: "USDC" as const }),
          userSub: Option.none()
        })
      )).pipe(Effect.tap((rows) => Effect.zipRight(announceReady(outbox, rows), recordCreated(actor.audit, rows)))), yield* now).pipe(
        Effect.catchTag("DuplicateContractor", () =>
          Effect.fail(new Conflict({ error: "the directory changed during the import; retry it" })))
      )
      return new BulkImportResult({
        imported,
        errors: errors.sort((a, b) => a.row - b.row).map((e) => new BulkRowError(e))
      })
    })

    const list = Spans.fn("Contractors.list")(function*(orgId: OrgId, params: typeof ListContractorsParams.Type) {
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      const limit = params.limit ?? 50
      const q = Option.filter(Option.fromNullable(params.q?.trim()), (s) => s.length > 0)
      const rows = yield* repo.list(orgId, { limit, after, ids: Option.fromNullable(params.ids), status: Option.fromNullable(params.status), q })
      return toPage(rows, limit, (row) => row)
    })

    const get = (orgId: OrgId, id: ContractorId) =>
      find(orgId, id).pipe(Spans.withSpan("Contractors.get"))

    const nextStatus = (current: Contractor, requested: UpdateContractor["status"]) =>
      Effect.gen(function*() {
        if (requested === undefined || requested === current.status) return Option.none<"reactivate" | "inactive">()
        if (requested === "inactive") return Option.some("inactive" as const)
        if (current.status === "inactive") return Option.some("reactivate" as const)
        return yield* new Conflict({ error: `cannot move a contractor from ${current.status} to ${requested}` })
      })

    const update = Spans.fn("Contractors.update")(function*(actor: Actor, id: ContractorId, input: UpdateContractor) {
      const orgId = actor.orgId
      const current = yield* find(orgId, id)
      const move = yield* nextStatus(current, input.status)
      const address = input.address === undefined ? Option.getOrNull(current.address) : input.address
      const changes: Types.Mutable<ContractorChanges> = {
        name: input.name,
        email: input.email === undefined ? undefined : Option.fromNullable(input.email),
        address: input.address === undefined ? undefined : Option.fromNullable(input.address),
        rate: input.rate === undefined ? undefined : Option.fromNullable(input.rate)
      }
      const stillActive = Option.match(move, { onNone: () => current.status !== "inactive", onSome: (m) => m !== "inactive" })
      if (Option.contains(move, "inactive")) {
        changes.status = "inactive"
      } else if (stillActive && (Option.isSome(move) || address !== Option.getOrNull(current.address))) {
        const registered = yield* registrations.lookup(address)
        const linked = Option.isNone(move) && Option.isSome(current.userSub)
        changes.status = registrations.statusFor(registered, linked)
        Object.assign(changes, registeredColumns(registered))
      }
      const updated = yield* updateAnnounced(actor.audit, orgId, id, changes, yield* now, current.status).pipe(
        Effect.catchTag("DuplicateContractor", () => Effect.fail(duplicate))
      )
      if (Option.isNone(updated)) return yield* new Conflict({ error: "the contractor changed meanwhile; retry" })
      // Reactivated as `invited`: an invite its contractor can discover on signing in, as at creation.
      if (updated.value.status === "invited" && current.status !== "invited") yield* invites.openFor([updated.value], yield* now)
      return updated.value
    })

    const check = Spans.fn("Contractors.check")(function*(actor: Actor, id: ContractorId) {
      const orgId = actor.orgId
      const current = yield* find(orgId, id)
      if (current.status === "inactive" || current.status === "ready") return current
      const registered = yield* registrations.read(Option.getOrNull(current.address))
      if (Option.isNone(registered)) return current
      const updated = yield* updateAnnounced(actor.audit, orgId, id, { status: "ready", ...registeredColumns(registered) }, yield* now, current.status)
        .pipe(orUnavailable)
      // Nothing updated: it moved meanwhile (the archive's reaction to the same `register` event makes it ready too),
      // so it is answered as it is now, never as it was read before.
      return Option.isSome(updated) ? updated.value : yield* find(orgId, id)
    })

    /**
     * The chain says `address` registered with the confidential token (its `register` event): every contractor of
     * that address, in any organization, still waiting for it (`invited` or `onboarding`) becomes ready, its viewing
     * key read as POST /contractors/{id}/check reads it. How many became ready; fails with UpstreamUnavailable when
     * the registration could not be read, and with `NotRegistered` when the node does not show it yet (a lagging
     * node), so that the caller tries again later.
     */
    const readyOnChain = Spans.fn("Contractors.readyOnChain")(function*(address: string) {
      const pending = yield* waiting(address).pipe(orUnavailable)
      if (pending.length === 0) return 0
      const registered = yield* registrations.read(address)
      if (Option.isNone(registered)) return yield* new NotRegistered({ address })
      let moved = 0
      for (const contractor of pending) {
        const updated = yield* updateAnnounced(
          SYSTEM_LEDGER,
          contractor.orgId,
          contractor.id,
          { status: "ready", ...registeredColumns(registered) },
          yield* now,
          contractor.status
        ).pipe(orUnavailable)
        if (Option.isSome(updated)) moved += 1
      }
      return moved
    })

    const invite = Spans.fn("Contractors.invite")(function*(orgId: OrgId, id: ContractorId, now: Date) {
      const current = yield* find(orgId, id)
      if (current.status !== "invited") {
        return yield* new Conflict({ error: `only an invited contractor can be invited; this one is ${current.status}` })
      }
      const { token, expiresAt } = yield* invites.issue(orgId, id, now)
      return Invitation.make({ contractorId: id, token, expiresAt: Schema.decodeSync(Schema.DateTimeUtcFromDate)(expiresAt) })
    })

    return { create, bulk, list, get, update, check, invite, readyOnChain } as const
  }),
  dependencies: [ContractorRepo.Default, ContractorInvites.Default, Registrations.Default, AuditTrail.Default]
}) {}

