import { Effect, Option } from "effect"
import { ContractorPayoutPage, type ListContractorPayoutsParams } from "../Domain/Batch.ts"
import { decodeCursor, toPage } from "../Http/Cursor.ts"
import { BatchRepo } from "../Batches/BatchRepo.ts"
import * as Spans from "../Observability/Spans.ts"

/** A signed-in contractor's own payouts, across every organization that pays them, a page at a time. */
export class ContractorPayouts extends Effect.Service<ContractorPayouts>()("ContractorPortal/ContractorPayouts", {
  effect: Effect.gen(function*() {
    const repo = yield* BatchRepo
    const of = Spans.fn("ContractorPayouts.of")(function*(sub: string, params: typeof ListContractorPayoutsParams.Type = {}) {
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      const limit = params.limit ?? 50
      return new ContractorPayoutPage(toPage(yield* repo.payoutsOf(sub, { limit, after }), limit, (payout) => payout))
    })
    return { of } as const
  }),
  dependencies: [BatchRepo.Default]
}) {}
