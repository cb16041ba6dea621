import { Duration, Option } from "effect"

/** The longest wait between two attempts, in first backoffs: 4096 × 5 s is about 5.7 hours. */
const MAX_DOUBLINGS = 12

/**
 * The wait after the `attempt`-th attempt of a delivery failed (counting from 1): `base`, doubling each time up to
 * 4096 × `base`; none once `maxAttempts` were made. At the defaults (5 s, 17 attempts) the attempts span some 28 hours.
 */
export const retryDelay = (attempt: number, base: Duration.Duration, maxAttempts: number): Option.Option<Duration.Duration> =>
  attempt >= maxAttempts
    ? Option.none()
    : Option.some(Duration.times(base, 2 ** Math.min(Math.max(attempt - 1, 0), MAX_DOUBLINGS)))

/** How long from the first attempt to the last, when every attempt fails. */
export const retrySpan = (base: Duration.Duration, maxAttempts: number): Duration.Duration => {
  let total = Duration.zero
  for (let attempt = 1; attempt < maxAttempts; attempt++) {
    total = Duration.sum(total, Option.getOrElse(retryDelay(attempt, base, maxAttempts), () => Duration.zero))
  }
  return total
}
