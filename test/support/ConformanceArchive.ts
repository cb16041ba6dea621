import { Effect } from "effect"
import { ok, type Recipe, type Refusal } from "./ConformanceRecipe.ts"

/** Valid requests of the archive's operations (see ConformanceRequests.ts). */
export const archiveRequests: Readonly<Record<string, Recipe>> = {
  "GET /archive/status": () => Effect.succeed(ok({}, 501))
}

/** Requests of the archive's operations that the service refuses by its rules. */
export const archiveRefusals: Readonly<Record<string, Refusal>> = {}
