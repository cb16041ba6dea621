import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { deleteSome } from "../../Sql/DeleteSome.ts"
import { orUnavailable } from "../../Sql/Errors.ts"
import * as Spans from "../../Observability/Spans.ts"

/** A key as one caller used it: who (`scope`), the key, and the fingerprint of the request that first came with it. */
export interface KeyUse {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
}

/** An answer kept for replay: its status, the headers that matter, and its body byte for byte. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: Uint8Array
}

/** What a request finds under its key: it runs (its claim is `owner`), or another request holds or answered it. */
export type Claim =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "InProgress"; readonly fingerprint: string }
  | { readonly _tag: "Answered"; readonly fingerprint: string; readonly answer: StoredAnswer }

const Existing = Schema.Struct({
  fingerprint: Schema.String,
  status: Schema.NullOr(Schema.Int),
  headers: Schema.NullOr(Schema.Array(Schema.Tuple(Schema.String, Schema.String))),
  body: Schema.NullOr(Schema.Uint8ArrayFromSelf)
})

const Claimed = Schema.Struct({ owner: Schema.String })

/**
 * Idempotency keys in PostgreSQL, so that every instance sees them: one row per (scope, key), claimed by one request
 * at a time with an upsert (the primary key decides between concurrent ones), its lease renewed while it runs, its
 * answer kept until `expiresAt`. A claim whose lease lapsed (its instance stopped) or a row past `expiresAt` not yet
 * pruned may be claimed again.
 */
export class IdempotencyRepo extends Effect.Service<IdempotencyRepo>()("Http/Idempotency/IdempotencyRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const tryClaim = SqlSchema.findOne({
      Request: Schema.Struct({
        scope: Schema.String,
        key: Schema.String,
        fingerprint: Schema.String,
        owner: Schema.String,
        now: Schema.DateFromSelf,
        lockedUntil: Schema.DateFromSelf,
        expiresAt: Schema.DateFromSelf
      }),
      Result: Claimed,
      execute: (r) =>
        sql`
          INSERT INTO idempotency_keys (scope, key, fingerprint, owner, locked_until, created_at, expires_at)
          VALUES (${r.scope}, ${r.key}, ${r.fingerprint}, ${r.owner}, ${r.lockedUntil}, ${r.now}, ${r.expiresAt})
          ON CONFLICT (scope, key) DO UPDATE SET
            fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner, locked_until = EXCLUDED.locked_until,
            status = NULL, headers = NULL, body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= ${r.now}
             OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= ${r.now})
          RETURNING owner`
    })

    const existing = SqlSchema.findOne({
      Request: Schema.Struct({ scope: Schema.String, key: Schema.String }),
      Result: Existing,
      execute: (r) => sql`SELECT fingerprint, status, headers, body FROM idempotency_keys WHERE scope = ${r.scope} AND key = ${r.key}`
    })

    /**
     * Claims the key for the request `owner`, or says who has it. A row released between the two statements (its
     * request failed) is claimed on the next pass.
     */
    const claim = (use: KeyUse, owner: string, times: { now: Date; lockedUntil: Date; expiresAt: Date }) =>
      Effect.gen(function*() {
        for (let pass = 0; pass < 3; pass++) {
          const claimed = yield* tryClaim({ ...use, owner, ...times })
          if (Option.isSome(claimed)) return { _tag: "Claimed" } as Claim
          const row = yield* existing(use)
          if (Option.isNone(row)) continue
          const { body, fingerprint, headers, status } = row.value
          return (status === null
            ? { _tag: "InProgress", fingerprint }
            : { _tag: "Answered", fingerprint, answer: { status, headers: headers ?? [], body: body ?? new Uint8Array() } }) as Claim
        }
        return { _tag: "InProgress", fingerprint: use.fingerprint } as Claim
      }).pipe(orUnavailable, Spans.withSpan("IdempotencyRepo.claim"))

    /** Extends the lease of a claim still held by `owner`. */
    const renew = (use: KeyUse, owner: string, lockedUntil: Date) =>
      sql`UPDATE idempotency_keys SET locked_until = ${lockedUntil}
          WHERE scope = ${use.scope} AND key = ${use.key} AND owner = ${owner} AND status IS NULL`.pipe(
        Effect.asVoid,
        orUnavailable,
        Spans.withSpan("IdempotencyRepo.renew")
      )

    /** Keeps the answer of the request that held the claim. */
    const complete = (use: KeyUse, owner: string, answer: StoredAnswer) =>
      sql`UPDATE idempotency_keys
          SET status = ${answer.status}, headers = ${JSON.stringify(answer.headers)}::jsonb,
              body = ${Buffer.from(answer.body)}, owner = NULL, locked_until = NULL
          WHERE scope = ${use.scope} AND key = ${use.key} AND owner = ${owner} AND status IS NULL`.pipe(
        Effect.asVoid,
        orUnavailable,
        Spans.withSpan("IdempotencyRepo.complete")
      )

    /** Gives the key back (the request failed in a way worth retrying): the next request with it runs. */
    const release = (use: KeyUse, owner: string) =>
      sql`DELETE FROM idempotency_keys
          WHERE scope = ${use.scope} AND key = ${use.key} AND owner = ${owner} AND status IS NULL`.pipe(
        Effect.asVoid,
        orUnavailable,
        Spans.withSpan("IdempotencyRepo.release")
      )

    /** Deletes up to `limit` keys that expired before `before`. */
    const prune = (before: Date, limit: number) =>
      deleteSome(sql, { table: "idempotency_keys", key: "ctid", where: sql`expires_at < ${before}`, limit }).pipe(
        Spans.withSpan("IdempotencyRepo.prune")
      )

    return { claim, renew, complete, release, prune } as const
  })
}) {}
