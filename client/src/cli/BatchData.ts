import { Effect, Option } from "effect"
import type { Payout } from "../../../src/Domain/Batch.ts"
import { BatchId, type ContractorId } from "../../../src/Domain/Ids.ts"
import type { SealedAmounts } from "../../../src/Domain/SealedAmounts.ts"
import type { SealingMember } from "../payroll/SealingMember.ts"
import { openAmounts } from "../sealing/SealedAmounts.ts"
import type { Effect as E } from "effect"
import type { clientOf } from "./Shared.ts"

type Client = E.Effect.Success<ReturnType<typeof clientOf>>

export const batchIdOf = (id: string) => BatchId.make(id)

/** Every payout of the batch, page by page. */
export const allPayouts = (client: Client, id: string) =>
  Effect.gen(function*() {
    const all: Array<Payout> = []
    let cursor: string | undefined
    do {
      const page = yield* client.batches.payouts({ path: { id: batchIdOf(id) }, urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } })
      all.push(...page.items)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return all
  })

/** The batch's sealed amounts as stored, or undefined when none are (404). */
export const sealedAmountsOf = (client: Client, id: string) =>
  client.batches.sealedAmounts({ path: { id: batchIdOf(id) } }).pipe(
    Effect.map((s): SealedAmounts | undefined => s),
    Effect.catchTag("NotFound", () => Effect.succeed(undefined))
  )

/** The sealed amounts opened with the member's sealing key, by payout id. */
export const openedAmounts = (sealed: SealedAmounts, id: string, member: SealingMember) =>
  Effect.map(
    Effect.tryPromise({ try: () => openAmounts(sealed.envelope, id, member.memberId, member.keyPair), catch: (e) => e }),
    (amounts) => new Map(amounts.map((a) => [a.payoutId as string, a.amount]))
  )

/** Each contractor's address (G…), by contractor id. */
export const addressesOf = (client: Client, ids: ReadonlyArray<ContractorId>) =>
  Effect.map(
    Effect.forEach([...new Set(ids)], (id) => Effect.map(client.contractors.get({ path: { id } }), (c) => [id as string, Option.getOrUndefined(c.address)] as const), { concurrency: 4 }),
    (pairs) => new Map(pairs)
  )
