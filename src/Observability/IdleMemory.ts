import { Duration, Effect, Layer, Schedule } from "effect"
import { Session } from "node:inspector/promises"
import { performance } from "node:perf_hooks"
import * as Spans from "./Spans.ts"

/** How often the event loop's recent work is looked at. */
const CHECK_EVERY = Duration.seconds(5)
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
 * a pause of tens to a few hundred milliseconds, at a moment nothing is being asked of the service.
 */
export const IdleMemoryLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    let last = performance.eventLoopUtilization()
    // Start-up is work: the first idle window after it releases what loading and migrating left behind.
    let activeSinceRelease = WORTH_RELEASING_MS
    const check = Effect.gen(function*() {
      const now = performance.eventLoopUtilization()
      const window = performance.eventLoopUtilization(now, last)
      last = now
      activeSinceRelease += window.active
      if (!shouldRelease(window, activeSinceRelease)) return
      activeSinceRelease = 0
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
    yield* check.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("could not release idle memory", cause)),
      Effect.schedule(Schedule.spaced(CHECK_EVERY)),
      Effect.forkScoped
    )
  })
)
