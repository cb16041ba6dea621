import { type Duration, Effect, Schedule } from "effect"

/**
 * Polls `probe` every 20 ms until it gives a value (rejecting after `ms`, naming `what`): for state outside Effect,
 * such as the loopback ledger's, a child process's output, or an answer fetched by the probe itself.
 */
export const waitFor = async <A>(
  probe: () => A | undefined | Promise<A | undefined>,
  ms = 10_000,
  what = "a condition"
): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** `waitFor` for a condition: resolves once `check` holds. */
export const waitUntil = (what: string, check: () => boolean, ms = 30_000) => waitFor(() => (check() ? true : undefined), ms, what)

/**
 * Runs `effect` every 100 ms until its answer satisfies `done` (for at most `within`), then answers what it answers
 * then: the last look is taken again, so a test asserts on a real answer either way.
 */
export const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean, within: Duration.DurationInput = "15 seconds") =>
  effect.pipe(
    Effect.filterOrFail(done, () => "not yet" as const),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo(within))),
    Effect.orElse(() => effect)
  )
