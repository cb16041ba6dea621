import { Cause, Console, Data, Effect } from "effect"

/** A demo step that did not go as planned, with what it was doing and why. */
export class DemoFailure extends Data.TaggedError("DemoFailure")<{ readonly step: string; readonly reason: string }> {
  override get message() {
    return `${this.step}: ${this.reason}`
  }
}

/** The most telling text of any failure: an API error's `error` field, an Error's message, or its JSON. */
export const describe = (e: unknown): string => {
  if (e instanceof DemoFailure) return e.reason
  if (typeof e === "object" && e !== null) {
    const fields = e as { readonly _tag?: unknown; readonly error?: unknown; readonly message?: unknown }
    const tag = typeof fields._tag === "string" ? `${fields._tag}: ` : ""
    if (typeof fields.error === "string") return `${tag}${fields.error}`
    if (typeof fields.message === "string" && fields.message !== "") return fields.message
    try {
      return JSON.stringify(e)
    } catch {
      // a cycle: fall through to String
    }
  }
  return String(e)
}

/** Why a run ended badly: the step and the reason of each failure. */
export const explain = (cause: Cause.Cause<unknown>): string =>
  [...Cause.failures(cause), ...Cause.defects(cause)]
    .map((e) => (e instanceof DemoFailure ? `  step:   ${e.step}\n  reason: ${e.reason}` : `  ${describe(e)}`))
    .join("\n") || Cause.pretty(cause)

/** Announces a step, runs it, and turns any failure of it (defects included) into a DemoFailure naming it. */
export const step = <A, E, R>(title: string, effect: Effect.Effect<A, E, R>) =>
  Console.log(`▸ ${title}`).pipe(
    Effect.zipRight(effect),
    Effect.mapError((e) => new DemoFailure({ step: title, reason: describe(e) })),
    Effect.catchAllDefect((defect) => Effect.fail(new DemoFailure({ step: title, reason: describe(defect) })))
  )
