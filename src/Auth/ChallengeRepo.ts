import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Issued SEP-10 nonces; a nonce is consumed at most once, across every service instance. */
export class ChallengeRepo extends Effect.Service<ChallengeRepo>()("Auth/ChallengeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const store = (nonce: string, account: string, expiresAt: Date) =>
      sql`INSERT INTO sep10_challenges ${sql.insert({ nonce, account, expiresAt })}`.pipe(
        Effect.zipRight(sql`DELETE FROM sep10_challenges WHERE expires_at < ${new Date(expiresAt.getTime() - 3_600_000)}`),
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

    return { store, consume } as const
  })
}) {}
