import { Effect } from "effect"
import { BatchRepo } from "./BatchRepo.ts"
import * as Spans from "../Observability/Spans.ts"

/** A signed-in contractor's own payouts, across every organization that pays them. */
export class ContractorPayouts extends Effect.Service<ContractorPayouts>()("Batches/ContractorPayouts", {
  effect: Effect.gen(function*() {
    const repo = yield* BatchRepo
    const of = (sub: string) => repo.payoutsOf(sub).pipe(Spans.withSpan("ContractorPayouts.of"))
    return { of } as const
  }),
  dependencies: [BatchRepo.Default]
}) {}
