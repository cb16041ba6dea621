import { Cause, ConfigError, Data, Effect, Option } from "effect"
import { EmbeddedDatabaseError } from "../EmbeddedPostgres/Embedded.ts"
import { messageChain } from "../Observability/MessageChain.ts"

/** A start that cannot go on, said in the words of the setting at fault and what fixes it. */
export class StartError extends Data.TaggedError("StartError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** One line per refused setting, each naming its variable. */
const configProblems = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...configProblems(error.left), ...configProblems(error.right)]
    default: {
      const name = error.path.join("_")
      return [name === "" || error.message.startsWith(name) ? error.message : `${name}: ${error.message}`]
    }
  }
}


/**
 * What to tell the operator when the start fails. A refused setting or a known obstacle is its message alone; an
 * unexpected failure keeps its cause (the stack), for whoever has to look further.
 */
const explain = (cause: Cause.Cause<unknown>): { readonly message: string; readonly cause: Cause.Cause<unknown> } => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ConfigError.isConfigError(error)) return { message: [...new Set(configProblems(error))].join("; "), cause: Cause.empty }
    if (error instanceof StartError) return { message: error.message, cause: Cause.empty }
    if (error instanceof EmbeddedDatabaseError) return { message: messageChain(error), cause: Cause.empty }
  }
  return { message: messageChain(Cause.squash(cause)), cause }
}

/** Logs why the service could not start, as one line in LOG_FORMAT (an interruption is a stop, not a failure). */
export const reportStartFailure = (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  const explained = explain(cause)
  return Effect.logFatal(`cannot start: ${explained.message}`, explained.cause)
}
