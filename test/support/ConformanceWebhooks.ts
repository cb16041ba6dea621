import { Effect } from "effect"
import { ok, type Recipe, type Refusal } from "./ConformanceRecipe.ts"

/** Valid requests of the webhooks' operations (see ConformanceRequests.ts). */
export const webhookRequests: Readonly<Record<string, Recipe>> = {
  "GET /webhooks": (_, e) => Effect.succeed(ok({ token: e.token }, 501))
}

/** Requests of the webhooks' operations that the service refuses by its rules. */
export const webhookRefusals: Readonly<Record<string, Refusal>> = {}
