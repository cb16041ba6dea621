import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { deleteSome } from "../Sql/DeleteSome.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

const Used = Schema.Struct({ nonce: Schema.String, keepUntil: Schema.DateFromSelf })

/** The migration that made challenges stateless: before it, a used challenge's row was deleted, not kept. */
const STATELESS_MIGRATION = 21

/**
 * The nonces of verified SEP-10 challenges. Issuing a challenge writes nothing (it carries its nonce and expiry, under
 * the service's signature); a verification inserts the nonce once, and the unique key refuses it to every other
 * verification on any instance until it is pruned.
 */
export class ChallengeRepo extends Effect.Service<ChallengeRepo>()("Auth/ChallengeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const migratedAt = SqlSchema.findOne({
      Request: Schema.Number,
      Result: Schema.Struct({ at: Schema.DateFromSelf }),
      execute: (id) => sql`SELECT created_at AS at FROM effect_sql_migrations WHERE migration_id = ${id}`
    })
    /**
     * The first second whose challenges are known here once used (epoch seconds). A challenge issued earlier by the
     * previous version may have been used with no trace left, so it is refused: only for its 5 minutes after the upgrade.
     */
    const statelessSince = yield* migratedAt(STATELESS_MIGRATION).pipe(
      Effect.map(Option.match({ onNone: () => 0, onSome: ({ at }) => Math.floor(at.getTime() / 1000) })),
      Effect.orDie
    )

    const insertOnce = SqlSchema.findOne({
      Request: Used,
      Result: Schema.Struct({ nonce: Schema.String }),
      execute: ({ nonce, keepUntil }) =>
        sql`
            INSERT INTO sep10_used_nonces (nonce, expires_at) VALUES (${nonce}, ${keepUntil})
            ON CONFLICT (nonce) DO NOTHING
            RETURNING nonce`
    })
    /**
     * True when this call used the nonce; false when a verification already did. It is kept until `keepUntil`, which
     * must be past the last moment any instance could still accept its challenge.
     */
    const consume = (nonce: string, keepUntil: Date) =>
      insertOnce({ nonce, keepUntil }).pipe(Effect.map(Option.isSome), orUnavailable, Spans.withSpan("ChallengeRepo.consume"))

    /** Deletes up to `limit` used nonces kept until before `now`: their challenges no longer verify anyway. */
    const pruneExpired = (now: Date, limit: number) =>
      deleteSome(sql, { table: "sep10_used_nonces", key: "nonce", where: sql`expires_at < ${now}`, limit }).pipe(
        Spans.withSpan("ChallengeRepo.pruneExpired")
      )

    return { consume, pruneExpired, statelessSince } as const
  })
}) {}
