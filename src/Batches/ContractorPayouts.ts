import { SqlClient } from "@effect/sql"
import { DateTime, Effect } from "effect"
import { ContractorPayout, type PayoutStatus } from "../Domain/Batch.ts"
import type { PayoutId } from "../Domain/Ids.ts"

interface Row {
  readonly id: PayoutId
  readonly company: string
  readonly batchName: string
  readonly status: PayoutStatus
  readonly hash: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A signed-in contractor's own payouts, across every organization that pays them. */
export class ContractorPayouts extends Effect.Service<ContractorPayouts>()("Batches/ContractorPayouts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const of = (sub: string) =>
      sql<Row>`
        SELECT p.id, o.name AS company, b.name AS batch_name, p.status, p.hash, p.created_at, p.updated_at
        FROM payouts p
          JOIN contractors c ON c.id = p.contractor_id
          JOIN batches b ON b.id = p.batch_id
          JOIN orgs o ON o.id = p.org_id
        WHERE (c.user_sub = ${sub} OR c.address = ${sub}) AND b.status <> 'draft'
        ORDER BY p.created_at DESC, p.id DESC
        LIMIT 500`.pipe(
        Effect.map((rows) =>
          rows.map((r) =>
            new ContractorPayout({
              id: r.id,
              company: r.company,
              batchName: r.batchName,
              status: r.status,
              ...(r.hash === null ? {} : { hash: r.hash }),
              createdAt: DateTime.unsafeMake(r.createdAt),
              updatedAt: DateTime.unsafeMake(r.updatedAt)
            })
          )
        ),
        Effect.orDie,
        Effect.withSpan("ContractorPayouts.of")
      )

    return { of } as const
  })
}) {}
