import { Config } from "effect"
import { DEFAULT_DATA_DIR } from "./FirstStart.ts"

/**
 * The database: `DATABASE_URL` when set, otherwise the embedded cluster in `DATA_DIR`. A module of its own, light to
 * load, because `main.ts` reads it before it loads the rest of the service.
 */
export const DatabaseConfig = Config.all({
  url: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR))
})
