import { SqlClient, SqlSchema } from "@effect/sql"
import type { Keypair } from "@stellar/stellar-sdk"
import { Clock, Data, Duration, Effect, Option, Schedule, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { RateLimited } from "../Domain/Errors.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

/**
 * How long a grant waits for a free channel before it is turned away: about two testnet ledgers, in which a channel
 * whose transaction was just sent normally comes back.
 */
export const CHANNEL_WAIT = Duration.seconds(10)
const RETRY_EVERY = Duration.millis(200)
/** A lease outlasts its transaction's maxTime by this much; past that, the transaction can no longer land. */
const LEASE_MARGIN = Duration.seconds(30)

/** A channel account held by one grant: its key, the grant's lease, and the transaction's time bound under it. */
export interface ChannelLease {
  readonly key: Keypair
  readonly holder: string
  readonly maxTime: number
  /** The last sequence number known to be consumed on the ledger, which a lagging RPC node may not show yet. */
  readonly sequence: bigint | undefined
}

const Taken = Schema.Struct({ account: Schema.String, sequence: Schema.NullOr(Schema.BigInt) })

class NoneFree extends Data.TaggedError("NoneFree")<{}> {}

const busy = () =>
  new RateLimited({ error: "the faucet is busy: every channel account is in use; try again in a few seconds" })

/**
 * The source accounts of the service's own transactions, each leased in PostgreSQL to one grant at a time across
 * all instances (taken with `FOR UPDATE SKIP LOCKED`, so concurrent takers never wait on each other's row). A lease
 * is released once its transaction is final; otherwise it runs until after the transaction's maxTime, so a sequence
 * number is never given out again while a transaction carrying it may still land. Within an instance a semaphore
 * queues grants for the pool, so only contention between instances polls the table.
 *
 * One grant per channel at a time mirrors stellar-core's transaction queue (`src/herder/TransactionQueue.cpp`,
 * `canAdd`): it holds at most one transaction per source account, and refuses another from the same source with
 * TRY_AGAIN_LATER unless it replaces the first by fee. So a source account carries one grant per ledger at most, and
 * the faucet account alone (no channels) is one channel.
 */
export const makeChannels = (pool: ReadonlyArray<Keypair>, validitySeconds: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const keys = new Map(pool.map((key) => [key.publicKey(), key]))
    const accounts = [...keys.keys()]
    yield* sql`INSERT INTO channel_leases ${sql.insert(accounts.map((account) => ({ account })))} ON CONFLICT (account) DO NOTHING`.pipe(orUnavailable)
    const local = yield* Effect.makeSemaphore(accounts.length)

    const takeFree = SqlSchema.findOne({
      Request: Schema.Struct({ holder: Schema.String, now: Schema.DateFromSelf, until: Schema.DateFromSelf }),
      Result: Taken,
      execute: ({ holder, now, until }) =>
        sql`
            UPDATE channel_leases SET holder = ${holder}, inner_hash = NULL, lease_until = ${until}
            WHERE account = (
              SELECT account FROM channel_leases
              WHERE account IN ${sql.in(accounts)} AND (holder IS NULL OR lease_until < ${now})
              ORDER BY lease_until, account
              LIMIT 1
              FOR UPDATE SKIP LOCKED
            )
            RETURNING account, sequence::text AS sequence`
    })
    const take = (holder: string, now: Date, until: Date) => takeFree({ holder, now, until }).pipe(orUnavailable)

    const attempt = (holder: string) =>
      Effect.gen(function*() {
        const nowMs = yield* Clock.currentTimeMillis
        const maxTime = Math.floor(nowMs / 1000) + validitySeconds
        const row = yield* take(holder, new Date(nowMs), new Date(maxTime * 1000 + Duration.toMillis(LEASE_MARGIN)))
        if (Option.isNone(row)) return yield* new NoneFree()
        const key = keys.get(row.value.account)
        if (key === undefined) return yield* Effect.dieMessage("a channel lease outside the pool")
        return { key, holder, maxTime, sequence: row.value.sequence ?? undefined } satisfies ChannelLease
      })

    /**
     * A free channel for the scope's lifetime in this instance, leased in the table until released; fails with 429
     * when none comes free within CHANNEL_WAIT.
     */
    const lease = Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const permit = yield* Effect.acquireRelease(
        local.take(1).pipe(Effect.interruptible, Effect.timeoutOption(CHANNEL_WAIT)),
        (taken) => (Option.isSome(taken) ? local.release(1) : Effect.void)
      )
      if (Option.isNone(permit)) return yield* busy()
      // Another instance may hold the rest of the pool: poll for what remains of the wait.
      const left = Duration.millis(Math.max(0, Duration.toMillis(CHANNEL_WAIT) - ((yield* Clock.currentTimeMillis) - started)))
      return yield* attempt(randomUUID()).pipe(
        Effect.retry({ schedule: Schedule.spaced(RETRY_EVERY).pipe(Schedule.upTo(left)), while: (e) => e._tag === "NoneFree" }),
        Effect.catchTag("NoneFree", () => busy())
      )
    }).pipe(Spans.withSpan("Channels.lease"))

    /** Inside the submission's transaction: which transaction the channel carries. */
    const carry = (lease: ChannelLease, innerHash: string) =>
      sql`UPDATE channel_leases SET inner_hash = ${innerHash} WHERE account = ${lease.key.publicKey()} AND holder = ${lease.holder}`
        .pipe(Effect.asVoid)

    /**
     * Frees the channel once its transaction is final (or was never sent), remembering the sequence number it
     * consumed; a failure leaves the lease to expire by itself.
     */
    const release = (lease: ChannelLease, consumed: bigint | undefined) =>
      sql`
        UPDATE channel_leases
        SET holder = NULL, inner_hash = NULL, sequence = GREATEST(sequence, ${consumed === undefined ? null : consumed.toString()}::bigint)
        WHERE account = ${lease.key.publicKey()} AND holder = ${lease.holder}`.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logWarning("could not release a channel lease; it will expire", cause)),
        Spans.withSpan("Channels.release")
      )

    return { lease, carry, release } as const
  })
