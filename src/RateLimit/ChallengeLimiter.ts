import { Clock, Duration, Effect } from "effect"
import { ChallengeLimitsConfig } from "../Config.ts"
import { makeRateWindow, type Verdict } from "./RateWindow.ts"
import * as Spans from "../Observability/Spans.ts"

/** Past this many clients remembered as limited, the ones whose window ended are forgotten (and, if need be, all). */
const REMEMBERED = 10_000

/**
 * SEP-10 challenges per client across every instance: CHALLENGE_RATE_LIMIT per CHALLENGE_RATE_WINDOW, counted in the
 * shared `rate_limits` table (keys `challenge:<client>`, swept with the others by SignInLimiter). A client found over
 * the limit is remembered here until its window ends, so that a flood past the limit is refused from memory, with no
 * statement per request: the shared count can only grow until then.
 */
export class ChallengeLimiter extends Effect.Service<ChallengeLimiter>()("RateLimit/ChallengeLimiter", {
  effect: Effect.gen(function*() {
    const { requests, window } = yield* ChallengeLimitsConfig
    const counter = yield* makeRateWindow(requests, window)
    const limited = new Map<string, { readonly since: number; readonly until: number }>()

    const remember = (key: string, since: number, until: number) => {
      if (limited.size >= REMEMBERED) {
        for (const [k, v] of limited) if (v.until <= since) limited.delete(k)
        if (limited.size >= REMEMBERED) limited.clear()
      }
      limited.set(key, { since, until })
    }

    const take = (key: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const known = limited.get(key)
        // A clock that moved back ends what was remembered, as it restarts the shared window.
        if (known !== undefined && known.since <= now && now < known.until) {
          return Effect.succeed<Verdict>({ _tag: "Limited", remaining: 0, reset: Duration.millis(known.until - now) })
        }
        if (known !== undefined) limited.delete(key)
        return counter.take(key).pipe(
          Effect.tap((verdict) => {
            if (verdict._tag === "Limited") remember(key, now, now + Duration.toMillis(verdict.reset))
          }),
          Spans.withSpan("ChallengeLimiter.take")
        )
      })

    return { take, limit: requests, window } as const
  })
}) {}
