import { Schema } from "effect"
import { documented } from "./Documented.ts"

/**
 * POST /stellar-rpc: the JSON-RPC 2.0 methods of Stellar RPC the browser's wallet may call through the service, and the
 * shapes of their requests and answers as stellar/stellar-rpc frames them (`cmd/stellar-rpc/internal/jsonrpc/wire/
 * wire.go`: `{"jsonrpc":"2.0","id":…,"result":…}` or `{"jsonrpc":"2.0","id":…,"error":{"code","message","data"?}}`,
 * always over HTTP 200, `id` null when the request's could not be read). The parameters are the ones the JS SDK's
 * `rpc.Server` sends (`lib/esm/rpc/server.js`) and stellar-rpc reads (`protocol.SimulateTransactionRequest`, ...).
 */
export const STELLAR_RPC_METHODS = [
  "getHealth",
  "getNetwork",
  "getLatestLedger",
  "getLedgerEntries",
  "simulateTransaction",
  "getTransaction",
  "getEvents"
] as const
export type StellarRpcMethod = typeof STELLAR_RPC_METHODS[number]

/** Keys per getLedgerEntries (stellar-rpc allows 200): an account and a few contract entries are what a wallet reads. */
export const MAX_LEDGER_KEYS = 20
/** A request body of the gateway is at most this large: a simulated `confidential_transfer` with its proof fits. */
export const MAX_STELLAR_RPC_BODY_BYTES = 64 * 1024
export const MAX_STELLAR_RPC_BODY_KIB = MAX_STELLAR_RPC_BODY_BYTES / 1024

/** JSON-RPC 2.0's own error codes (§5.1), as stellar-rpc answers them through creachadair/jrpc2. */
export const JSON_RPC_ERRORS = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const

export const StellarRpcId = Schema.Union(
  Schema.String.pipe(Schema.maxLength(128)),
  Schema.Int
).annotations({
  identifier: "StellarRpcId",
  description: "The request's id, a string of at most 128 characters or an integer, echoed in its answer"
})
export type StellarRpcId = typeof StellarRpcId.Type

const XdrFormat = Schema.Literal("base64", "json").annotations({
  description: "How XDR values come back: `base64` (the default) or `json`"
})

const Base64 = (what: string, max: number) =>
  Schema.String.pipe(
    Schema.maxLength(max),
    Schema.pattern(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, { message: () => `${what} must be base64` })
  )

export const LedgerEntriesParams = Schema.Struct({
  keys: Schema.propertySignature(
    Schema.Array(Base64("a key", 1024)).pipe(
      Schema.minItems(1, { message: () => "keys must not be empty" }),
      Schema.maxItems(MAX_LEDGER_KEYS, { message: () => `at most ${MAX_LEDGER_KEYS} keys` })
    )
  ).annotations({
    description: `1 to ${MAX_LEDGER_KEYS} base64 \`LedgerKey\` XDRs, each of an account, contract data (the contract ` +
      "instance too) or contract code"
  }),
  xdrFormat: Schema.optionalWith(XdrFormat, { exact: true })
}).annotations({ identifier: "LedgerEntriesParams", description: "getLedgerEntries's parameters" })

export const SimulateParams = Schema.Struct({
  transaction: Schema.propertySignature(Base64("transaction", MAX_STELLAR_RPC_BODY_BYTES)).annotations({
    description: "The base64 `TransactionEnvelope` (v1) to simulate: exactly one `invokeHostFunction` operation " +
      "calling a contract of the service's confidential token deployment"
  }),
  resourceConfig: Schema.optionalWith(
    Schema.Struct({
      instructionLeeway: Schema.propertySignature(Schema.Int.pipe(Schema.nonNegative())).annotations({
        description: "CPU instructions added to the simulated budget"
      })
    }).annotations({ description: "Extra resources for the simulation" }),
    { exact: true }
  ),
  authMode: Schema.optionalWith(
    Schema.Literal("enforce", "record", "record_allow_nonroot").annotations({
      description: "How authorization is simulated: `enforce`, `record` or `record_allow_nonroot`"
    }),
    { exact: true }
  ),
  useUpgradedAuth: Schema.optionalWith(Schema.Boolean.annotations({ description: "As the JS SDK sends it" }), { exact: true }),
  xdrFormat: Schema.optionalWith(XdrFormat, { exact: true })
}).annotations({ identifier: "SimulateParams", description: "simulateTransaction's parameters" })

/** Filters per getEvents, and contracts per filter (stellar-rpc allows 5 of each). */
export const MAX_EVENT_FILTERS = 5

const ContractIds = Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(MAX_EVENT_FILTERS))

/**
 * getEvents' parameters as @stellar/stellar-sdk 17's `rpc.Server` sends them (rpc/server.js `_getEvents`: filters of
 * {type, contractIds, topics} (api.d.ts `EventFilter`), pagination {cursor, limit}, startLedger, endLedger), plus
 * stellar-rpc's optional xdrFormat; here each filter must name its contracts.
 */
export const EventsParams = Schema.Struct({
  startLedger: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  endLedger: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  filters: Schema.Array(Schema.Struct({
    type: Schema.optionalWith(Schema.Literal("contract"), { exact: true }),
    contractIds: ContractIds,
    topics: Schema.optionalWith(Schema.Array(Schema.Array(Schema.String).pipe(Schema.maxItems(4))).pipe(Schema.maxItems(MAX_EVENT_FILTERS)), { exact: true })
  })).pipe(Schema.minItems(1), Schema.maxItems(MAX_EVENT_FILTERS)),
  pagination: Schema.optionalWith(Schema.Struct({
    cursor: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(64)), { exact: true }),
    limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1000)), { exact: true })
  }), { exact: true }),
  xdrFormat: Schema.optionalWith(XdrFormat, { exact: true })
}).annotations({ identifier: "EventsParams", description: "getEvents' parameters" })

export const TransactionParams = Schema.Struct({
  hash: Schema.propertySignature(Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{64}$/, { message: () => "hash must be 64 hex characters" })))
    .annotations({ description: "The transaction's hash, 64 hex characters" }),
  xdrFormat: Schema.optionalWith(XdrFormat, { exact: true })
}).annotations({ identifier: "TransactionParams", description: "getTransaction's parameters" })

/** Any JSON value, documented as such (without Effect's `/schemas/unknown` id, which two descriptions would make ambiguous). */
const AnyJson = Schema.Unknown.annotations({
  jsonSchema: { anyOf: [{ type: "object" }, { type: "array" }, { type: "string" }, { type: "number" }, { type: "boolean" }, { type: "null" }] }
})

const TOKEN = "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"
/** GCNGZAOQ…'s account entry. */
const ACCOUNT_KEY = "AAAAAAAAAACabIHQINflivLkSxkp/P4wlUcVKFKHYxPFlcPw8p0jGg=="

const version = Schema.propertySignature(Schema.Literal("2.0")).annotations({ description: "The protocol's version: \"2.0\"" })

const StellarRpcRequestFields = {
  jsonrpc: version,
  id: Schema.propertySignature(StellarRpcId).annotations({
    description: "The request's id, a string of at most 128 characters or an integer, echoed in its answer"
  }),
  method: Schema.propertySignature(Schema.Literal(...STELLAR_RPC_METHODS)).annotations({
    description: "The method: one of those the gateway serves"
  }),
  params: Schema.optionalWith(AnyJson, { exact: true }).annotations({
    description: "The method's parameters, as the SDK sends them: none (left out, `null`, `{}` or `[]`) for getHealth, " +
      `getNetwork and getLatestLedger; \`{keys, xdrFormat?}\` for getLedgerEntries (1 to ${MAX_LEDGER_KEYS} base64 ` +
      "`LedgerKey`s of accounts, contract data or contract code); `{transaction, resourceConfig?, authMode?, " +
      "useUpgradedAuth?, xdrFormat?}` for simulateTransaction (a base64 v1 `TransactionEnvelope` whose one " +
      "`invokeHostFunction` operation calls the confidential token or one of its registries); `{hash, xdrFormat?}` " +
      "for getTransaction; `{startLedger?, endLedger?, filters, pagination?, xdrFormat?}` for getEvents (1 to 5 " +
      "contract-event filters, each naming only the token, its registries or its underlying asset). Any other member " +
      "is refused"
  })
}

/** One JSON-RPC request of a method the gateway serves (batches and notifications are not served). */
export class StellarRpcRequest extends Schema.Class<StellarRpcRequest>("StellarRpcRequest")(
  StellarRpcRequestFields,
  documented(StellarRpcRequestFields, {
    description: "One JSON-RPC 2.0 request, as the Stellar SDK's `rpc.Server` sends it",
    examples: [
      { jsonrpc: "2.0", id: 1, method: "getLatestLedger" },
      { jsonrpc: "2.0", id: 2, method: "getLedgerEntries", params: { keys: [ACCOUNT_KEY] } }
    ]
  })
) {}

const StellarRpcErrorObjectFields = {
  code: Schema.propertySignature(Schema.Int).annotations({
    description: "-32700 unreadable JSON, -32600 not a request the gateway serves (a batch, a notification, extra " +
      "members, an empty method), -32601 a method the gateway does not serve, -32602 parameters it refuses; any other " +
      "code is Stellar RPC's own"
  }),
  message: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong" }),
  data: Schema.optionalWith(AnyJson, { exact: true }).annotations({ description: "More about it: the method's name on -32601" })
}

export class StellarRpcErrorObject extends Schema.Class<StellarRpcErrorObject>("StellarRpcErrorObject")(
  StellarRpcErrorObjectFields,
  documented(StellarRpcErrorObjectFields, {
    description: "JSON-RPC 2.0's error object",
    examples: [{ code: -32601, message: "method not found", data: "sendTransaction" }]
  })
) {}

const StellarRpcResponseFields = {
  jsonrpc: version,
  id: Schema.propertySignature(Schema.NullOr(StellarRpcId)).annotations({
    description: "The request's id; null when it could not be read"
  }),
  result: Schema.optionalWith(AnyJson, { exact: true }).annotations({
    description: "Stellar RPC's result, as it answered it (stellar-rpc's `protocol` response of the method); absent on an error"
  }),
  error: Schema.optionalWith(StellarRpcErrorObject, { exact: true }).annotations({
    description: "Why there is no result: the gateway's refusal, or Stellar RPC's own error as it answered it"
  })
}

/** One JSON-RPC answer: `result` or `error`, never both. */
export class StellarRpcResponse extends Schema.Class<StellarRpcResponse>("StellarRpcResponse")(
  StellarRpcResponseFields,
  documented(StellarRpcResponseFields, {
    description: "One JSON-RPC 2.0 answer, always with HTTP 200: `result` or `error`",
    examples: [
      { jsonrpc: "2.0", id: 1, result: { id: "5f7c1b0e8a3d4c2b9e6f1a0d7c3b5e8f", protocolVersion: 23, sequence: 123456 } },
      { jsonrpc: "2.0", id: 3, error: new StellarRpcErrorObject({ code: -32601, message: "method not found", data: "sendTransaction" }) },
      {
        jsonrpc: "2.0",
        id: 4,
        error: new StellarRpcErrorObject({
          code: -32602,
          message: `invalid params: params.transaction: only calls of the confidential token deployment (${TOKEN}) are simulated here`
        })
      }
    ]
  })
) {}
