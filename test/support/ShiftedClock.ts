import { Clock, Effect } from "effect"

/** The live clock moved by an adjustable offset, so a test can let five minutes pass at once. */
export class ShiftedClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  offsetMs = 0
  readonly #base = Clock.make()

  unsafeCurrentTimeMillis(): number {
    return this.#base.unsafeCurrentTimeMillis() + this.offsetMs
  }
  get currentTimeMillis() {
    return Effect.sync(() => this.unsafeCurrentTimeMillis())
  }
  unsafeCurrentTimeNanos(): bigint {
    return this.#base.unsafeCurrentTimeNanos() + BigInt(this.offsetMs) * 1_000_000n
  }
  get currentTimeNanos() {
    return Effect.sync(() => this.unsafeCurrentTimeNanos())
  }
  sleep = (duration: Parameters<Clock.Clock["sleep"]>[0]) => this.#base.sleep(duration)
}
