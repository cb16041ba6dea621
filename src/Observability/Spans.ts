import { Effect, FiberRef, type Tracer } from "effect"

/**
 * Spans only while they are exported. Platform defect: Effect makes a span for every `Effect.fn` call and every
 * `Effect.withSpan` even when the tracer is disabled (TracingLive without an OTLP endpoint): it captures a stack trace
 * and copies the fiber's whole context to provide the span, 12 to 25 µs each with the service's context, and a request
 * passes through ten or more. No upstream issue found (the closest: Effect-TS/effect#2502, open). These two look at
 * the fiber's tracer first and, while it is disabled, run the body as it is; test/unit/platform-defects.test.ts fails
 * once Effect stops making those spans. A span made here carries no call-site stack trace (it would show this module).
 */
const tracing = (fiber: { readonly getFiberRef: <A>(ref: FiberRef.FiberRef<A>) => A }) =>
  fiber.getFiberRef(FiberRef.currentTracerEnabled)

/** `Effect.withSpan(name, options)`, data-last, while tracing. */
export const withSpan = (name: string, options?: Tracer.SpanOptions) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => tracing(fiber) ? Effect.withSpan(self, name, { ...options, captureStackTrace: false }) : self)

/** `Effect.fn(name)`: a function whose every call is a span while tracing, and `Effect.fnUntraced`'s otherwise. */
export const fn = (name: string): typeof Effect.fnUntraced =>
  // Both variants are built once, with the body and pipeables exactly as given; each call picks one. The signature
  // is `Effect.fnUntraced`'s, which `Effect.fn(name)` shares.
  ((body: (...args: Array<unknown>) => unknown, ...pipeables: Array<(self: unknown) => unknown>) => {
    const traced = (Effect.fn(name, { captureStackTrace: false }) as (...parts: Array<unknown>) => (...args: Array<unknown>) => Effect.Effect<unknown>)(body, ...pipeables)
    const plain = (Effect.fnUntraced as (...parts: Array<unknown>) => (...args: Array<unknown>) => Effect.Effect<unknown>)(body, ...pipeables)
    return function(this: unknown, ...args: Array<unknown>) {
      return Effect.withFiberRuntime((fiber) => tracing(fiber) ? traced.apply(this, args) : plain.apply(this, args))
    }
  }) as typeof Effect.fnUntraced
