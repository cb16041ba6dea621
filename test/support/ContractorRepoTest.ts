import { Keypair } from "@stellar/stellar-sdk"
import { Clock, DateTime, Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { ContractorRepo, DuplicateContractor, type ListQuery } from "../../src/Contractors/ContractorRepo.ts"
import { Contractor, type ContractorChanges, type ContractorStatus, type NewContractor } from "../../src/Domain/Contractor.ts"
import { ContractorId, type OrgId } from "../../src/Domain/Ids.ts"

/** created_at DESC, id DESC, as the directory pages. */
const newestFirst = (a: Contractor, b: Contractor) =>
  b.createdAt.epochMillis - a.createdAt.epochMillis || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** Text of an optional column, for comparisons. */
const text = (value: Option.Option<string>) => Option.getOrNull(value)

/**
 * The `contractors` table in memory, behind the `ContractorRepo` test layer (and shared with `BatchRepoTest`, whose
 * queries join it): each row is the entity as the SQL repo decodes it. Rows are replaced, never mutated, so a
 * transaction can put the map back as it was.
 */
export class ContractorTable {
  readonly rows = new Map<ContractorId, Contractor>()

  /** A contractor of `orgId` (ready, with an account address of its own, unless `fields` say otherwise). */
  add(orgId: OrgId, fields: Partial<Omit<Contractor, "orgId">> = {}): Contractor {
    const row = Contractor.make({
      id: ContractorId.make(randomUUID()),
      orgId,
      name: "Ada",
      email: Option.none(),
      address: Option.some(Keypair.random().publicKey()),
      pvk: Option.none(),
      auditorId: Option.none(),
      status: "ready",
      rate: Option.none(),
      userSub: Option.none(),
      createdAt: DateTime.unsafeMake(0),
      lastPaidAt: Option.none(),
      ...fields
    })
    this.rows.set(row.id, row)
    return row
  }

  find(id: ContractorId): Option.Option<Contractor> {
    return Option.fromNullable(this.rows.get(id))
  }

  /** The unique indexes: (org, lower(email)) and (org, address), each where not null. */
  clashes(row: Contractor, except?: ContractorId): boolean {
    const email = text(row.email)?.toLowerCase()
    const address = text(row.address)
    return [...this.rows.values()].some((other) =>
      other.id !== except && other.orgId === row.orgId && (
        (email !== undefined && text(other.email)?.toLowerCase() === email) ||
        (address !== null && text(other.address) === address)
      )
    )
  }

  /** What `restore` puts back: the table as it is now. */
  snapshot(): () => void {
    const saved = new Map(this.rows)
    return () => {
      this.rows.clear()
      for (const [id, row] of saved) this.rows.set(id, row)
    }
  }
}

/** An absent or undefined change keeps the column as it is. */
const changed = (row: Contractor, changes: ContractorChanges): Contractor =>
  Contractor.make({
    ...row,
    ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
  })

/** `ContractorRepo` over `table`: no database, each query answered from memory. */
export const contractorRepoOn = (table: ContractorTable) =>
  Layer.succeed(
    ContractorRepo,
    ContractorRepo.make({
      insertMany: (rows: ReadonlyArray<NewContractor>) =>
        Effect.gen(function*() {
          const createdAt = DateTime.unsafeMake(yield* Clock.currentTimeMillis)
          const restore = table.snapshot()
          const inserted: Array<Contractor> = []
          for (const { id, ...columns } of rows) {
            const row = Contractor.make({ ...columns, id, createdAt, lastPaidAt: Option.none() })
            if (table.clashes(row)) {
              restore()
              return yield* new DuplicateContractor()
            }
            table.rows.set(row.id, row)
            inserted.push(row)
          }
          return inserted
        }),
      findById: (orgId: OrgId, id: ContractorId) =>
        Effect.sync(() => Option.filter(table.find(id), (record) => record.orgId === orgId)),
      taken: (orgId: OrgId, emails: ReadonlyArray<string>, addresses: ReadonlyArray<string>) =>
        Effect.sync(() => {
          const lower = new Set(emails.map((e) => e.toLowerCase()))
          const rows = [...table.rows.values()].filter((r) => r.orgId === orgId)
          return {
            emails: new Set(rows.flatMap((r) => Option.toArray(r.email).map((e) => e.toLowerCase()).filter((e) => lower.has(e)))),
            addresses: new Set(rows.flatMap((r) => Option.toArray(r.address).filter((a) => addresses.includes(a))))
          }
        }),
      list: (orgId: OrgId, query: ListQuery) =>
        Effect.sync(() => {
          const q = Option.map(query.q, (text) => text.toLowerCase())
          return [...table.rows.values()]
            .filter((r) =>
              r.orgId === orgId &&
              Option.match(query.status, { onNone: () => true, onSome: (status) => r.status === status }) &&
              Option.match(q, {
                onNone: () => true,
                onSome: (q) => r.name.toLowerCase().includes(q) || (text(r.email)?.toLowerCase().includes(q) ?? false)
              }) &&
              Option.match(query.after, {
                onNone: () => true,
                onSome: (after) =>
                  r.createdAt.epochMillis < after.createdAt.getTime() ||
                  (r.createdAt.epochMillis === after.createdAt.getTime() && r.id < after.id)
              })
            )
            .sort(newestFirst)
            .slice(0, query.limit + 1)
        }),
      update: (orgId: OrgId, id: ContractorId, changes: ContractorChanges, _now: Date, expectedStatus?: ContractorStatus) =>
        Effect.suspend(() => {
          const current = table.rows.get(id)
          if (current === undefined || current.orgId !== orgId) return Effect.succeed(Option.none())
          if (expectedStatus !== undefined && current.status !== expectedStatus) return Effect.succeed(Option.none())
          const row = changed(current, changes)
          if (table.clashes(row, id)) return Effect.fail(new DuplicateContractor())
          table.rows.set(id, row)
          return Effect.succeed(Option.some(row))
        }),
      linkedTo: (sub: string) =>
        Effect.sync(() =>
          [...table.rows.values()]
            .filter((r) => (text(r.userSub) === sub || text(r.address) === sub) && r.status !== "inactive")
            .sort((a, b) => b.createdAt.epochMillis - a.createdAt.epochMillis)
            .slice(0, 20)
        ),
      statuses: (orgId: OrgId, ids: ReadonlyArray<ContractorId>) =>
        Effect.sync(() =>
          [...table.rows.values()].filter((r) => r.orgId === orgId && ids.includes(r.id)).map(({ id, status }) => ({ id, status }))
        ),
      markPaid: (id: ContractorId, now: Date) =>
        Effect.sync(() => {
          const row = table.rows.get(id)
          if (row !== undefined) table.rows.set(id, Contractor.make({ ...row, lastPaidAt: Option.some(DateTime.unsafeMake(now)) }))
        })
    })
  )
