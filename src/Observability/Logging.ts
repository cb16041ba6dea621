import { Cause, type Config, Context, Effect, FiberRef, FiberRefs, HashMap, HashSet, Inspectable, Layer, Logger, Option, Redacted, Tracer } from "effect"
import { DatabaseConfig, LogConfig, MetricsConfig, PrivyConfig, SecretsConfig, TracingConfig } from "../Config.ts"
import { makeScrubber, type Scrubber, scrubField } from "./Redaction.ts"

const CORE_FIELDS = new Set(["time", "level", "message", "cause", "traceId", "spanId"])

const messageText = (message: unknown): string =>
  (Array.isArray(message) ? message : [message])
    .map((part) => (typeof part === "string" ? part : Inspectable.toStringUnknown(part, 0)))
    .join(" ")

const jsonSafe = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value)

/**
 * One JSON object per line: `time`, `level`, `message`, every log annotation as a field of its own (the access log's
 * `requestId`, `route`, `status`, `ms`), the trace and span ids when a span is current, and `cause` for failures.
 */
const jsonLogger = (scrub: Scrubber) =>
  Logger.make(({ annotations, cause, context, date, logLevel, message }) => {
    const record: Record<string, unknown> = {
      time: date.toISOString(),
      level: logLevel.label.toLowerCase(),
      message: messageText(message)
    }
    for (const [key, value] of annotations) {
      if (!CORE_FIELDS.has(key)) record[key] = scrubField(key, value, scrub)
    }
    const span = Context.getOption(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan)
    if (Option.isSome(span)) {
      record.traceId = span.value.traceId
      record.spanId = span.value.spanId
    }
    if (!Cause.isEmpty(cause)) record.cause = Cause.pretty(cause, { renderErrorCause: true })
    let line: string
    try {
      line = JSON.stringify(record, jsonSafe)
    } catch {
      line = JSON.stringify({ time: record.time, level: record.level, message: record.message })
    }
    return scrub(line)
  })

/** The pretty logger renders by itself: what it is given is scrubbed instead. */
const prettyLogger = (scrub: Scrubber) =>
  Logger.prettyLogger().pipe(
    Logger.mapInputOptions((options) => ({
      ...options,
      message: scrub(messageText(options.message)),
      annotations: HashMap.map(options.annotations, (value, key) => scrubField(key, value, scrub))
    }))
  )

const values = (...secrets: ReadonlyArray<Option.Option<Redacted.Redacted>>) =>
  secrets.flatMap((secret) => Option.toArray(Option.map(secret, Redacted.value)))

const channelSecrets = (list: Option.Option<Redacted.Redacted>) =>
  Option.match(list, { onNone: () => [], onSome: (raw) => Redacted.value(raw).split(",").map((s) => s.trim()) })

const databasePassword = (url: Option.Option<Redacted.Redacted>) => {
  try {
    return Option.match(url, { onNone: () => [], onSome: (raw) => [decodeURIComponent(new URL(Redacted.value(raw)).password)] })
  } catch {
    return []
  }
}

const headerValues = (headers: Option.Option<Redacted.Redacted>) =>
  Option.match(headers, {
    onNone: () => [],
    onSome: (raw) => Redacted.value(raw).split(",").map((pair) => decodeURIComponent(pair.split("=").slice(1).join("=").trim()))
  })

/**
 * The secrets one group of settings holds. A group that is itself refused holds none here, so that the error saying
 * why can still be logged (in LOG_FORMAT) by whoever reads the group.
 */
const held = <A>(config: Config.Config<A>, secrets: (settings: A) => ReadonlyArray<string>) =>
  Effect.orElseSucceed(Effect.map(config, secrets), (): ReadonlyArray<string> => [])

/** Every secret value configured right now, so that no log line can carry one. */
const configuredSecrets = Effect.map(
  Effect.all([
    held(SecretsConfig, (s) => [
      ...values(s.jwtSecret, s.sep10SigningSecret, s.sponsorSecret, s.faucetSecret),
      ...channelSecrets(s.channelSecrets)
    ]),
    held(DatabaseConfig, (database) => databasePassword(database.url)),
    held(MetricsConfig, (metrics) => values(metrics.token)),
    held(PrivyConfig, (privy) => values(privy.verificationKey)),
    held(TracingConfig, (tracing) => [...values(tracing.headers), ...headerValues(tracing.headers)])
  ]),
  (groups) => groups.flat()
)

/** Loggers this module made: another instance in the same process replaces them rather than writing twice. */
const ours = new WeakSet<Logger.Logger<unknown, unknown>>()

/** `NodeRuntime.runMain` puts its pretty logger where the default one was: both make way, as do earlier ones of ours. */
const replaceable = (logger: Logger.Logger<unknown, unknown>) =>
  logger === Logger.defaultLogger || logger === Logger.prettyLoggerDefault || ours.has(logger)

/**
 * The process's logger: LOG_FORMAT `json` (the default in production), `logfmt` or `pretty`, each line scrubbed of
 * secrets; LOG_LEVEL, when set, is the minimum level.
 */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { format, level } = yield* LogConfig
    const scrub = makeScrubber(yield* configuredSecrets)
    const logger = format === "json"
      ? Logger.withConsoleLog(jsonLogger(scrub))
      : format === "logfmt"
      ? Logger.withConsoleLog(Logger.map(Logger.logfmtLogger, scrub))
      : prettyLogger(scrub)
    ours.add(logger)
    const replaced = Layer.scopedDiscard(
      Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
        loggers.pipe(HashSet.filter((other) => !replaceable(other)), HashSet.add(logger)))
    )
    return Option.match(level, {
      onNone: () => replaced,
      onSome: (minimum) => Layer.merge(replaced, Logger.minimumLogLevel(minimum))
    })
  })
)
