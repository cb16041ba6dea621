import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { deleteSome } from "../Sql/DeleteSome.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

const Consumed = Schema.Struct({ nonce: Schema.String })

/** Issued SEP-10 nonces; a nonce is consumed at most once, across every service instance. */
export class ChallengeRepo extends Effect.Service<ChallengeRepo>()("Auth/ChallengeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const store = (nonce: string, account: string, expiresAt: Date) =>
      sql`INSERT INTO sep10_challenges ${sql.insert({ nonce, account, expiresAt })}`.pipe(
        Effect.asVoid,
        orUnavailable,
        Spans.withSpan("ChallengeRepo.store")
      )

    const deleteLive = SqlSchema.findOne({
      Request: Schema.Struct({ nonce: Schema.String, account: Schema.String, now: Schema.DateFromSelf }),
      Result: Consumed,
      execute: ({ nonce, account, now }) =>
        sql`
            DELETE FROM sep10_challenges
            WHERE nonce = ${nonce} AND account = ${account} AND expires_at > ${now}
            RETURNING nonce`
    })
    /** True when this call consumed a live challenge; false when it was unknown, used or expired. */
    const consume = (nonce: string, account: string, now: Date) =>
      deleteLive({ nonce, account, now }).pipe(
        Effect.map(Option.isSome),
        orUnavailable,
        Spans.withSpan("ChallengeRepo.consume")
      )

    /** Deletes up to `limit` challenges that expired before `now` (used ones are deleted when consumed). */
    const pruneExpired = (now: Date, limit: number) =>
      deleteSome(sql, { table: "sep10_challenges", key: "nonce", where: sql`expires_at < ${now}`, limit }).pipe(Spans.withSpan("ChallengeRepo.pruneExpired"))

    return { store, consume, pruneExpired } as const
  })
}) {}
