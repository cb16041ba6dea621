import { Effect } from "effect"
import pg from "pg"

/**
 * One statement on the test database, on a connection of its own, as an operator with psql would run it (a refused
 * statement is a failure the test can look at, not a defect).
 */
export const psql = <A = Record<string, unknown>>(app: { readonly config: Readonly<Record<string, string>> }, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: app.config.DATABASE_URL })
      await client.connect()
      return client
    }),
    (client) => Effect.tryPromise(() => client.query(text, [...values]).then((r) => r.rows as Array<A>)),
    (client) => Effect.promise(() => client.end())
  )
