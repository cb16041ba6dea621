import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Issued SEP-10 nonces; a nonce is consumed at most once, across every service instance. */
export class ChallengeRepo extends Effect.Service<ChallengeRepo>()("Auth/ChallengeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const store = (nonce: string, account: string, expiresAt: Date) =>
      sql`INSERT INTO sep10_challenges ${sql.insert({ nonce, account, expiresAt })}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("ChallengeRepo.store")
      )

    /** True when this call consumed a live challenge; false when it was unknown, used or expired. */
    const consume = (nonce: string, account: string, now: Date) =>
      sql<{ nonce: string }>`
        DELETE FROM sep10_challenges
        WHERE nonce = ${nonce} AND account = ${account} AND expires_at > ${now}
        RETURNING nonce`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie,
        Effect.withSpan("ChallengeRepo.consume")
      )

    /** Deletes up to `limit` challenges that expired before `now` (used ones are deleted when consumed). */
    const pruneExpired = (now: Date, limit: number) =>
      sql<{ n: number }>`
        WITH gone AS (
          DELETE FROM sep10_challenges WHERE nonce IN (
            SELECT nonce FROM sep10_challenges WHERE expires_at < ${now} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.withSpan("ChallengeRepo.pruneExpired")
      )

    return { store, consume, pruneExpired } as const
  })
}) {}
