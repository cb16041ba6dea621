import { Config, Option, Redacted } from "effect"
import { DEFAULT_DATA_DIR } from "../EmbeddedPostgres/FirstStart.ts"

/** What node-postgres reads as a connection URL: `postgres[ql]://`, its host possibly empty (a socket in `?host=`). */
const isPostgresUrl = (text: string) => {
  try {
    const url = new URL(text.replace("@/", "@localhost/"))
    return url.protocol === "postgres:" || url.protocol === "postgresql:"
  } catch {
    return false
  }
}

/**
 * The database: `DATABASE_URL` when set (and not empty), otherwise the embedded cluster in `DATA_DIR`. A module of its
 * own, light to load, because `main.ts` reads it before it loads the rest of the service.
 */
export const DatabaseConfig = Config.all({
  url: Config.string("DATABASE_URL").pipe(
    Config.validate({
      message: "DATABASE_URL is not a PostgreSQL URL (such as postgres://user:password@host:5432/database)",
      validation: (url) => url === "" || isPostgresUrl(url)
    }),
    Config.option,
    Config.map(Option.flatMap((url) => (url === "" ? Option.none() : Option.some(Redacted.make(url)))))
  ),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR))
})
