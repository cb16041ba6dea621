import { Duration, Effect, Layer } from "effect"
import { Session } from "node:inspector/promises"
import { performance } from "node:perf_hooks"
import * as Spans from "./Spans.ts"

/** How often the event loop's recent work is looked at. */
const CHECK_EVERY = Duration.seconds(5)
/**
 * Until the first release, the one after start-up, every second: a 5-second window idle enough came 10 to 15 s after
 * the start, or later on a loaded machine, and until then the instance held start-up's garbage (idle PSS 165 to
 * 200 MiB and more, depending on whether it had come yet).
 */
const FIRST_CHECK_EVERY = Duration.seconds(1)
/** A window is idle below this share of event-loop time spent working. */
export const IDLE_UTILIZATION = 0.05
/** Work since the last release worth a collection: about a second of event-loop time (start-up is several). */
export const WORTH_RELEASING_MS = 1_000

/**
 * One full, compacting collection that also gives freed pages back to the system, as DevTools' "collect garbage"
 * does (HeapProfiler.collectGarbage through the in-process inspector: no port is opened, no flag is needed).
 */
export const releaseMemory = Effect.promise(async () => {
  const session = new Session()
  session.connect()
  try {
    await session.post("HeapProfiler.collectGarbage")
  } finally {
    session.disconnect()
  }
}).pipe(Spans.withSpan("IdleMemory.release"))

/** Release now: the last window was idle after at least `WORTH_RELEASING_MS` of work since the last release. */
export const shouldRelease = (window: { readonly utilization: number }, activeSinceReleaseMs: number) =>
  window.utilization < IDLE_UTILIZATION && activeSinceReleaseMs >= WORTH_RELEASING_MS

/**
 * Hands memory back once the service goes idle after work. V8 collects only when the program allocates, and it
 * keeps the heap a burst grew into: after start-up, a burst of transfers or a batch run, an idle instance would hold
 * its garbage (hundreds of MiB after 1,000 real-size transfers) until the next burst. So, when a 5-second window of
 * the event loop was idle after at least a second of work since the last release, one compacting collection runs:
 * a pause of tens to a few hundred milliseconds, at a moment nothing is being asked of the service. Until the first
 * release, the one after start-up, windows are a second long (FIRST_CHECK_EVERY).
 */
export const IdleMemoryLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    let last = performance.eventLoopUtilization()
    // Start-up is work: the first idle window after it releases what loading and migrating left behind.
    let activeSinceRelease = WORTH_RELEASING_MS
    let released = false
    const check = Effect.gen(function*() {
      const now = performance.eventLoopUtilization()
      const window = performance.eventLoopUtilization(now, last)
      last = now
      activeSinceRelease += window.active
      if (!shouldRelease(window, activeSinceRelease)) return
      activeSinceRelease = 0
      released = true
      const before = process.memoryUsage()
      yield* releaseMemory
      const after = process.memoryUsage()
      yield* Effect.logDebug("idle: memory released").pipe(
        Effect.annotateLogs({
          rssMiB: `${Math.round(before.rss / 2 ** 20)} -> ${Math.round(after.rss / 2 ** 20)}`,
          heapMiB: `${Math.round(before.heapTotal / 2 ** 20)} -> ${Math.round(after.heapTotal / 2 ** 20)}`
        })
      )
      last = performance.eventLoopUtilization()
    })
    yield* Effect.suspend(() => Effect.sleep(released ? CHECK_EVERY : FIRST_CHECK_EVERY)).pipe(
      Effect.zipRight(check),
      Effect.catchAllCause((cause) => Effect.logWarning("could not release idle memory", cause)),
      Effect.forever,
      Effect.forkScoped
    )
  })
)
