import { Clock, Duration, Effect } from "effect"
import { AuthLimitsConfig } from "../Config.ts"

/** Fixed-window request counter per key, kept in memory by each instance. */
export class RateLimiter extends Effect.Service<RateLimiter>()("Auth/RateLimiter", {
  effect: Effect.gen(function*() {
    const { requests, window } = yield* AuthLimitsConfig
    const windowMs = Duration.toMillis(window)
    const buckets = new Map<string, { count: number; resetAt: number }>()

    const sweep = (now: number) => {
      for (const [key, bucket] of buckets) if (bucket.resetAt <= now) buckets.delete(key)
    }

    /** True when the request is within the limit. */
    const take = (key: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (buckets.size > 10_000) sweep(now)
        const bucket = buckets.get(key)
        if (bucket === undefined || bucket.resetAt <= now) {
          buckets.set(key, { count: 1, resetAt: now + windowMs })
          return true
        }
        bucket.count += 1
        return bucket.count <= requests
      })

    return { take } as const
  })
}) {}
