import { rpc } from "@stellar/stellar-sdk"
import { Data, Duration, Effect, Either, Option, ParseResult } from "effect"
import { StellarConfig } from "../Config.ts"
import { trackRpcCall } from "../Observability/Metrics.ts"
import { decodeEventsAnswer, decodeHealthAnswer, type EventsAnswer } from "./RpcAnswers.ts"
import { RpcError, RpcUnreadable } from "./RpcClient.ts"
import * as Spans from "../Observability/Spans.ts"

/**
 * The node does not serve the ledger asked for: stellar-rpc's `getEvents` answers "startLedger must be within the
 * ledger range: {oldest} - {latest}" (InvalidRequest, -32600) for a start before its retention window (the ledgers
 * are gone from it) or past its latest ledger (the node is behind).
 */
export class LedgerOutOfRange extends Data.TaggedError("LedgerOutOfRange")<{
  readonly oldest: number
  readonly latest: number
}> {}

/** A position in the event stream, as stellar-rpc's `protocol.Cursor` (go-stellar-sdk `protocols/rpc/cursor.go`). */
export interface EventPosition {
  readonly ledger: number
  /** The transaction's application order in its ledger (1-based, as in a TOID). */
  readonly tx: number
  readonly op: number
  /** The event's index within its operation (a Soroban transaction has one operation). */
  readonly event: number
}

const EVENT_ID = /^(\d{1,19})-(\d{1,10})$/

/**
 * An event id (or a cursor) `%019d-%010d`: the TOID `ledger << 32 | tx << 12 | op` (go-stellar-sdk `toid`) and the
 * event's index. None when it is not one.
 */
export const parseEventId = (id: string): Option.Option<EventPosition> => {
  const match = EVENT_ID.exec(id)
  if (match === null) return Option.none()
  const toid = BigInt(match[1]!)
  const event = Number(match[2]!)
  if (toid > 0x7fffffffffffffffn || event > 0xffffffff) return Option.none()
  return Option.some({
    ledger: Number(toid >> 32n),
    tx: Number((toid >> 12n) & 0xfffffn),
    op: Number(toid & 0xfffn),
    event
  })
}

const RANGE = /ledger range: (\d+) - (\d+)/

/** A JSON-RPC error object as the SDK throws it: `{code, message}`. */
const rpcErrorOf = (cause: unknown): { readonly code?: number; readonly message: string } => {
  if (typeof cause === "object" && cause !== null && "message" in cause) {
    const { code, message } = cause as { code?: unknown; message?: unknown }
    return { ...(typeof code === "number" ? { code } : {}), message: String(message) }
  }
  return { message: cause instanceof Error ? cause.message : String(cause) }
}

export interface EventsRequest {
  readonly contractId: string
  readonly limit: number
  /** Where to start: a ledger (then `endLedger`, exclusive, may bound the scan) or the cursor of an earlier page. */
  readonly from: { readonly startLedger: number; readonly endLedger?: number } | { readonly cursor: string }
}

/**
 * Stellar RPC's event stream and retention window (`getEvents`, `getHealth`), read from the raw JSON-RPC answers so
 * that every event's topics and value stay the bytes the chain emitted. Beside `RpcClient`, on the same node and
 * with the same timeout, counted and traced the same way.
 */
export class ChainEvents extends Effect.Service<ChainEvents>()("Stellar/ChainEvents", {
  effect: Effect.gen(function*() {
    const config = yield* StellarConfig
    const server = new rpc.Server(config.rpcUrl, {
      allowHttp: new URL(config.rpcUrl).protocol === "http:",
      timeout: Duration.toMillis(config.rpcTimeout)
    })

    const read = <A>(
      method: string,
      run: () => Promise<unknown>,
      decode: (raw: unknown) => Either.Either<A, ParseResult.ParseError>
    ) =>
      Effect.tryPromise({ try: run, catch: rpcErrorOf }).pipe(
        Effect.mapError((e) => {
          const range = RANGE.exec(e.message)
          return range !== null && e.code === -32600
            ? new LedgerOutOfRange({ oldest: Number(range[1]), latest: Number(range[2]) })
            : new RpcError({ method, message: e.message })
        }),
        Effect.flatMap((raw) =>
          Either.match(decode(raw), {
            onLeft: (error) =>
              Effect.fail(new RpcUnreadable({ method, message: `unreadable answer: ${ParseResult.TreeFormatter.formatErrorSync(error)}` })),
            onRight: (answer) => Effect.succeed(answer)
          })
        ),
        Effect.timeoutFail({ duration: config.rpcTimeout, onTimeout: () => new RpcError({ method, message: "timed out" }) }),
        trackRpcCall(method),
        Spans.withSpan(`ChainEvents.${method}`)
      )

    /** The node's latest and oldest retained ledgers. */
    const health = read("getHealth", () => server.getHealth(), decodeHealthAnswer)

    /** One page of the contract's events (stellar-rpc scans at most 10,000 ledgers per request). */
    const events = (request: EventsRequest): Effect.Effect<EventsAnswer, RpcError | RpcUnreadable | LedgerOutOfRange> =>
      read(
        "getEvents",
        () =>
          server._getEvents({
            filters: [{ type: "contract", contractIds: [request.contractId] }],
            limit: request.limit,
            ...("cursor" in request.from
              ? { cursor: request.from.cursor }
              : {
                startLedger: request.from.startLedger,
                ...(request.from.endLedger === undefined ? {} : { endLedger: request.from.endLedger })
              })
          } as rpc.Api.GetEventsRequest),
        decodeEventsAnswer
      )

    return { health, events } as const
  })
}) {}
