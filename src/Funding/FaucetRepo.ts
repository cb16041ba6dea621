import { SqlClient, SqlSchema } from "@effect/sql"
import { Duration, Effect, Schema } from "effect"
import { deleteSome } from "../Sql/DeleteSome.ts"
import * as Spans from "../Observability/Spans.ts"

/** The faucet's rule: one grant per address per 24 hours. */
export const FAUCET_GRANT_WINDOW = Duration.hours(24)

const Recent = Schema.Struct({ address: Schema.String })

/** The faucet's grants: one per address per window, recorded with the submission that pays it. */
export class FaucetRepo extends Effect.Service<FaucetRepo>()("Funding/FaucetRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const since = (now: Date) => new Date(now.getTime() - Duration.toMillis(FAUCET_GRANT_WINDOW))

    const recentGrant = SqlSchema.findAll({
      Request: Schema.Struct({ address: Schema.String, since: Schema.DateFromSelf }),
      Result: Recent,
      execute: (r) => sql`SELECT address FROM faucet_grants WHERE address = ${r.address} AND granted_at > ${r.since} LIMIT 1`
    })

    /**
     * Inside the submission's transaction: records a grant unless the address had one within the window; false when
     * it had. Serialized per address by an advisory lock, so concurrent requests on any number of instances grant once.
     */
    const grant = (address: string, innerHash: string, now: Date) =>
      Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`faucet:${address}`}))`
        const recent = yield* recentGrant({ address, since: since(now) })
        if (recent.length > 0) return false
        yield* sql`INSERT INTO faucet_grants ${sql.insert({ address, grantedAt: now, innerHash })}`
        return true
      }).pipe(Effect.catchTag("ParseError", Effect.die), Spans.withSpan("FaucetRepo.grant"))

    /** A faucet transfer that never reached the ledger gives its grant back. */
    const release = (innerHash: string) =>
      sql`DELETE FROM faucet_grants WHERE inner_hash = ${innerHash}`.pipe(Effect.asVoid, Spans.withSpan("FaucetRepo.release"))

    /** Deletes up to `limit` grants made before `before` (outside the one-grant window, so spent). */
    const prune = (before: Date, limit: number) =>
      deleteSome(sql, { table: "faucet_grants", key: "ctid", where: sql`granted_at < ${before}`, limit }).pipe(Spans.withSpan("FaucetRepo.prune"))

    return { grant, release, prune } as const
  })
}) {}
