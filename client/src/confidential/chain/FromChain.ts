import { Effect } from "effect"
import { ChainUnavailable } from "./ChainErrors.ts"
import { SimulationRefusedError } from "./ChainReader.ts"

/** A chain read as an Effect: a transport failure is ChainUnavailable, a contract refusal keeps its error text. */
export const fromChain = <A>(what: string, read: () => Promise<A>) =>
  Effect.tryPromise({
    try: read,
    catch: (e) =>
      e instanceof ChainUnavailable
        ? e
        : new ChainUnavailable({ message: e instanceof SimulationRefusedError ? e.message : `could not read ${what}`, cause: e })
  })
