import { Keypair } from "@stellar/stellar-sdk"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import {
  type ContractorChanges,
  type ContractorColumns,
  ContractorRepo,
  DuplicateContractor,
  type ListQuery,
  type NewContractor
} from "../../src/Contractors/ContractorRepo.ts"
import { ContractorRecord, type ContractorStatus } from "../../src/Domain/Contractor.ts"
import { ContractorId, type OrgId } from "../../src/Domain/Ids.ts"

/** A `contractors` row: its columns as written, and what the table adds. */
export interface ContractorRow extends ContractorColumns {
  readonly id: ContractorId
  readonly createdAt: Date
  readonly lastPaidAt: Date | null
}

/** Rows are decoded as the SQL repo decodes them, so a stand-in row that the schema refuses is a defect there too. */
const decode = Schema.decodeUnknownSync(ContractorRecord)

const recordOf = (row: ContractorRow): ContractorRecord =>
  decode({
    ...row,
    rate: row.rateAmount === null ? null : { amount: row.rateAmount, currency: row.rateCurrency }
  })

/** created_at DESC, id DESC, as the directory pages. */
const newestFirst = (a: ContractorRow, b: ContractorRow) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/**
 * The `contractors` table in memory, behind the `ContractorRepo` test layer (and shared with `BatchRepoTest`, whose
 * queries join it). Rows are replaced, never mutated, so a transaction can put the map back as it was.
 */
export class ContractorTable {
  readonly rows = new Map<ContractorId, ContractorRow>()

  /** A contractor of `orgId` (ready, with an account address of its own, unless `columns` say otherwise). */
  add(orgId: OrgId, columns: Partial<Omit<ContractorRow, "orgId">> = {}): ContractorRecord {
    const row: ContractorRow = {
      id: ContractorId.make(randomUUID()),
      orgId,
      name: "Ada",
      email: null,
      address: Keypair.random().publicKey(),
      pvk: null,
      auditorId: null,
      status: "ready",
      rateAmount: null,
      rateCurrency: null,
      userSub: null,
      createdAt: new Date(0),
      lastPaidAt: null,
      ...columns
    }
    this.rows.set(row.id, row)
    return recordOf(row)
  }

  find(id: ContractorId): Option.Option<ContractorRecord> {
    return Option.map(Option.fromNullable(this.rows.get(id)), recordOf)
  }

  /** The unique indexes: (org, lower(email)) and (org, address), each where not null. */
  clashes(row: ContractorColumns, except?: ContractorId): boolean {
    return [...this.rows.values()].some((other) =>
      other.id !== except && other.orgId === row.orgId && (
        (row.email !== null && other.email !== null && other.email.toLowerCase() === row.email.toLowerCase()) ||
        (row.address !== null && other.address === row.address)
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
const keep = <A>(change: A | undefined, current: A): A => change === undefined ? current : change

const changed = (row: ContractorRow, changes: ContractorChanges): ContractorRow => ({
  ...row,
  name: keep(changes.name, row.name),
  email: keep(changes.email, row.email),
  address: keep(changes.address, row.address),
  pvk: keep(changes.pvk, row.pvk),
  auditorId: keep(changes.auditorId, row.auditorId),
  status: keep(changes.status, row.status),
  rateAmount: keep(changes.rateAmount, row.rateAmount),
  rateCurrency: keep(changes.rateCurrency, row.rateCurrency),
  userSub: keep(changes.userSub, row.userSub)
})

/** `ContractorRepo` over `table`: no database, each query answered from memory. */
export const contractorRepoOn = (table: ContractorTable) =>
  Layer.succeed(
    ContractorRepo,
    ContractorRepo.make({
      insertMany: (rows: ReadonlyArray<NewContractor>) =>
        Effect.gen(function*() {
          const createdAt = new Date(yield* Clock.currentTimeMillis)
          const restore = table.snapshot()
          const inserted: Array<ContractorRow> = []
          for (const { id, ...columns } of rows) {
            const row: ContractorRow = { ...columns, id: ContractorId.make(id), userSub: null, createdAt, lastPaidAt: null }
            if (table.clashes(row)) {
              restore()
              return yield* new DuplicateContractor()
            }
            table.rows.set(row.id, row)
            inserted.push(row)
          }
          return inserted.map(recordOf)
        }),
      findById: (orgId: OrgId, id: ContractorId) =>
        Effect.sync(() => Option.filter(table.find(id), (record) => record.orgId === orgId)),
      taken: (orgId: OrgId, emails: ReadonlyArray<string>, addresses: ReadonlyArray<string>) =>
        Effect.sync(() => {
          const lower = new Set(emails.map((e) => e.toLowerCase()))
          const rows = [...table.rows.values()].filter((r) => r.orgId === orgId)
          return {
            emails: new Set(rows.flatMap((r) => r.email !== null && lower.has(r.email.toLowerCase()) ? [r.email.toLowerCase()] : [])),
            addresses: new Set(rows.flatMap((r) => r.address !== null && addresses.includes(r.address) ? [r.address] : []))
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
                onSome: (text) => r.name.toLowerCase().includes(text) || (r.email?.toLowerCase().includes(text) ?? false)
              }) &&
              Option.match(query.after, {
                onNone: () => true,
                onSome: (after) =>
                  r.createdAt.getTime() < after.createdAt.getTime() ||
                  (r.createdAt.getTime() === after.createdAt.getTime() && r.id < after.id)
              })
            )
            .sort(newestFirst)
            .slice(0, query.limit + 1)
            .map(recordOf)
        }),
      update: (orgId: OrgId, id: ContractorId, changes: ContractorChanges, _now: Date, expectedStatus?: ContractorStatus) =>
        Effect.suspend(() => {
          const current = table.rows.get(id)
          if (current === undefined || current.orgId !== orgId) return Effect.succeed(Option.none())
          if (expectedStatus !== undefined && current.status !== expectedStatus) return Effect.succeed(Option.none())
          const row = changed(current, changes)
          if (table.clashes(row, id)) return Effect.fail(new DuplicateContractor())
          table.rows.set(id, row)
          return Effect.succeed(Option.some(recordOf(row)))
        }),
      linkedTo: (sub: string) =>
        Effect.sync(() =>
          [...table.rows.values()]
            .filter((r) => (r.userSub === sub || r.address === sub) && r.status !== "inactive")
            .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
            .slice(0, 20)
            .map(recordOf)
        ),
      statuses: (orgId: OrgId, ids: ReadonlyArray<ContractorId>) =>
        Effect.sync(() =>
          [...table.rows.values()].filter((r) => r.orgId === orgId && ids.includes(r.id)).map(({ id, status }) => ({ id, status }))
        ),
      markPaid: (id: ContractorId, now: Date) =>
        Effect.sync(() => {
          const row = table.rows.get(id)
          if (row !== undefined) table.rows.set(id, { ...row, lastPaidAt: now })
        })
    })
  )
