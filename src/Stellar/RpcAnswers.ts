import { Schema } from "effect"

/**
 * What the service reads of Stellar RPC's `sendTransaction` and `getTransaction` answers, decoded from the raw
 * JSON-RPC result instead of through the SDK's parsers, which decode every XDR field (envelope, meta, events) and
 * throw on any they do not know: a node or protocol upgrade must not stop settlement. Shapes as stellar-rpc sends
 * them (stellar/stellar-rpc `cmd/stellar-rpc/internal/methods/send_transaction.go` and `get_transaction.go`, which
 * fill go-stellar-sdk's `protocols/rpc` SendTransactionResponse / GetTransactionResponse; the JS SDK's
 * `rpc.Api.RawSendTransactionResponse` / `RawGetTransactionResponse`): `latestLedger` a number,
 * `latestLedgerCloseTime` unix seconds as a JSON string (`json:",string"`), `ledger` a number once found, and the
 * result XDR base64. Unknown fields are ignored; a missing or mistyped field the service needs fails the decode.
 */
const Ledger = Schema.Int.pipe(Schema.nonNegative())

/** Unix seconds: stellar-rpc sends them as a string; a number is taken too. */
const UnixSeconds = Schema.Union(Schema.NumberFromString, Schema.Number).pipe(Schema.int(), Schema.nonNegative())

export const SendAnswer = Schema.Struct({
  status: Schema.Literal("PENDING", "DUPLICATE", "TRY_AGAIN_LATER", "ERROR"),
  hash: Schema.String,
  latestLedger: Ledger,
  latestLedgerCloseTime: UnixSeconds,
  /** A base64 `TransactionResult`, set only when `status` is ERROR. */
  errorResultXdr: Schema.optional(Schema.String)
})
export type SendAnswer = typeof SendAnswer.Type

export const TransactionAnswer = Schema.Struct({
  status: Schema.Literal("SUCCESS", "FAILED", "NOT_FOUND"),
  latestLedger: Ledger,
  latestLedgerCloseTime: UnixSeconds,
  /** The ledger that applied it; present unless NOT_FOUND. */
  ledger: Schema.optional(Ledger),
  /** That ledger's close time (`createdAt`, unix seconds as a string); present unless NOT_FOUND. */
  createdAt: Schema.optional(UnixSeconds),
  /** A base64 `TransactionResult`; present unless NOT_FOUND. */
  resultXdr: Schema.optional(Schema.String)
})
export type TransactionAnswer = typeof TransactionAnswer.Type

export const decodeSendAnswer = Schema.decodeUnknownEither(SendAnswer, { errors: "first" })
export const decodeTransactionAnswer = Schema.decodeUnknownEither(TransactionAnswer, { errors: "first" })

/**
 * `getEvents` as stellar-rpc answers it (stellar/stellar-rpc `cmd/stellar-rpc/internal/methods/get_events.go`, which
 * fills go-stellar-sdk's `protocols/rpc` GetEventsResponse / EventInfo; the JS SDK's `rpc.Api.RawGetEventsResponse`
 * and `RawEventResponse`): `topic` (base64 ScVals, left out when empty) and `value` (a base64 ScVal) are kept as sent;
 * `id` is the event's cursor, `%019d-%010d` of the TOID (ledger, transaction order, operation order) and the event's
 * index; `cursor` is the last event's id when the page is full, else the end of the scanned window.
 */
export const EventAnswer = Schema.Struct({
  type: Schema.String,
  ledger: Ledger,
  ledgerClosedAt: Schema.String,
  contractId: Schema.optional(Schema.String),
  id: Schema.String,
  txHash: Schema.String,
  topic: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  value: Schema.String
})
export type EventAnswer = typeof EventAnswer.Type

export const EventsAnswer = Schema.Struct({
  events: Schema.Array(EventAnswer),
  cursor: Schema.String,
  latestLedger: Ledger,
  oldestLedger: Ledger,
  latestLedgerCloseTime: UnixSeconds,
  oldestLedgerCloseTime: UnixSeconds
})
export type EventsAnswer = typeof EventsAnswer.Type

/** `getHealth` (stellar-rpc `get_health.go`; the SDK's `rpc.Api.GetHealthResponse`): the node's retention window. */
export const HealthAnswer = Schema.Struct({
  status: Schema.String,
  latestLedger: Ledger,
  oldestLedger: Ledger
})
export type HealthAnswer = typeof HealthAnswer.Type

export const decodeEventsAnswer = Schema.decodeUnknownEither(EventsAnswer, { errors: "first" })
export const decodeHealthAnswer = Schema.decodeUnknownEither(HealthAnswer, { errors: "first" })
