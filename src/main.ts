import { Effect, Option } from "effect"
import { DatabaseConfig } from "./Sql/DatabaseConfig.ts"
import { prepareEmbedded } from "./Sql/Embedded.ts"

/**
 * The entry point (`npm start`). On a first start with the embedded database, initdb takes about as long as loading
 * the rest of the service, so it is started before that and runs meanwhile; the database layer then finds the
 * cluster ready or waits for it, and reports any failure itself.
 */
Effect.runFork(
  Effect.flatMap(DatabaseConfig, ({ dataDir, url }) => (Option.isNone(url) ? prepareEmbedded({ dataDir, durable: true }) : Effect.void)).pipe(
    Effect.ignore
  )
)

await import("./Launch.ts")
