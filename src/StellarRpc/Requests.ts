import { Address, xdr } from "@stellar/stellar-sdk"
import { Either, ParseResult, Schema } from "effect"
import {
  JSON_RPC_ERRORS,
  LedgerEntriesParams,
  SimulateParams,
  STELLAR_RPC_METHODS,
  StellarRpcId,
  type StellarRpcMethod,
  TransactionParams
} from "../Domain/StellarRpc.ts"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../Http/JsonBody.ts"

export interface RpcErrorObject {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** A request answered here with a JSON-RPC error: its id (null when it could not be read) and why. */
export interface Refused {
  readonly _tag: "Refused"
  readonly id: StellarRpcId | null
  readonly error: RpcErrorObject
}

/** A request to forward to Stellar RPC: its id, its method and its parameters as they are sent (checked, re-encoded). */
export interface Forward {
  readonly _tag: "Forward"
  readonly id: StellarRpcId
  readonly method: StellarRpcMethod
  readonly params?: unknown
}

const refused = (id: StellarRpcId | null, code: number, message: string, data?: unknown): Refused => ({
  _tag: "Refused",
  id,
  error: data === undefined ? { code, message } : { code, message, data }
})

const Envelope = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: StellarRpcId,
  method: Schema.String,
  params: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const strict = { onExcessProperty: "error", errors: "first" } as const
const decodeEnvelope = Schema.decodeUnknownEither(Envelope, strict)
const isId = Schema.is(StellarRpcId)
const decodeLedgerEntries = Schema.decodeUnknownEither(LedgerEntriesParams, strict)
const decodeSimulate = Schema.decodeUnknownEither(SimulateParams, strict)
const decodeTransaction = Schema.decodeUnknownEither(TransactionParams, strict)

/** The first issue of a failed decode, located: `params.keys: at most 20 keys`. */
const firstIssue = (error: ParseResult.ParseError, root: string) => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return root
  return [root, ...issue.path.map(String)].join(".") + `: ${issue.message}`
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const READ_KEYS = new Set(["account", "contractData", "contractCode"])

/** Each key decoded (base64 `LedgerKey` XDR) and of a kind a wallet reads; re-encoded as it is forwarded. */
const ledgerKeys = (keys: ReadonlyArray<string>): Either.Either<ReadonlyArray<string>, string> => {
  const out: Array<string> = []
  for (const [i, text] of keys.entries()) {
    let key: xdr.LedgerKey
    try {
      key = xdr.LedgerKey.fromXdr(text, "base64")
    } catch {
      return Either.left(`params.keys.${i}: not a base64 LedgerKey XDR`)
    }
    if (!READ_KEYS.has(key.type)) {
      return Either.left(`params.keys.${i}: a ${key.type} key; only account, contract data and contract code keys are read here`)
    }
    out.push(key.toXdr("base64"))
  }
  return Either.right(out)
}

/**
 * A v1 transaction of one `invokeHostFunction` operation calling one of `contracts` (`invokeContract`): the only
 * transactions the gateway simulates. Re-encoded as it is forwarded, so that Stellar RPC reads what was checked.
 */
const simulatedCall = (text: string, contracts: ReadonlySet<string>): Either.Either<string, string> => {
  let envelope: xdr.TransactionEnvelope
  try {
    envelope = xdr.TransactionEnvelope.fromXdr(text, "base64")
  } catch {
    return Either.left("params.transaction: not a base64 TransactionEnvelope XDR")
  }
  if (envelope.type !== "envelopeTypeTx") return Either.left("params.transaction: only a v1 transaction envelope is simulated here")
  const operations = envelope.v1.tx.operations
  const body = operations[0]?.body
  if (operations.length !== 1 || body === undefined) return Either.left("params.transaction: the transaction must have exactly one operation")
  if (body.type !== "invokeHostFunction") return Either.left("params.transaction: only an invokeHostFunction operation is simulated here")
  const fn = body.invokeHostFunctionOp.hostFunction
  if (fn.type !== "hostFunctionTypeInvokeContract") return Either.left("params.transaction: only a contract call (invokeContract) is simulated here")
  let contract: string
  try {
    contract = Address.fromScAddress(fn.invokeContract.contractAddress).toString()
  } catch {
    return Either.left("params.transaction: the called contract's address cannot be read")
  }
  if (!contracts.has(contract)) {
    return Either.left(
      contracts.size === 0
        ? "params.transaction: no confidential token is configured here, so no call is simulated"
        : `params.transaction: only calls of the confidential token deployment (${[...contracts].join(", ")}) are simulated here`
    )
  }
  return Either.right(envelope.toXdr("base64"))
}

/** The parameters of `method` as they are forwarded, or what is wrong with them. */
const paramsOf = (method: StellarRpcMethod, params: unknown, contracts: ReadonlySet<string>): Either.Either<unknown, string> => {
  switch (method) {
    case "getHealth":
    case "getNetwork":
    case "getLatestLedger": {
      const none = params === undefined || params === null || (Array.isArray(params) && params.length === 0) ||
        (isPlainObject(params) && Object.keys(params).length === 0)
      return none ? Either.right(undefined) : Either.left("params: this method takes no parameters")
    }
    case "getLedgerEntries":
      return Either.flatMap(Either.mapLeft(decodeLedgerEntries(params), (e) => firstIssue(e, "params")), (p) =>
        Either.map(ledgerKeys(p.keys), (keys) => ({ ...p, keys })))
    case "simulateTransaction":
      return Either.flatMap(Either.mapLeft(decodeSimulate(params), (e) => firstIssue(e, "params")), (p) =>
        Either.map(simulatedCall(p.transaction, contracts), (transaction) => ({ ...p, transaction })))
    case "getTransaction":
      return Either.mapLeft(decodeTransaction(params), (e) => firstIssue(e, "params"))
  }
}

const served = new Set<string>(STELLAR_RPC_METHODS)

/**
 * Reads one request body as the gateway serves it: one JSON-RPC 2.0 request (no batch, no notification, no member
 * beyond the four) of a method it serves, with parameters it accepts. Everything else is refused with the error
 * stellar-rpc's framing would carry (codes of JSON-RPC 2.0 §5.1).
 */
export const readRequest = (text: string, contracts: ReadonlySet<string>): Refused | Forward => {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return refused(null, JSON_RPC_ERRORS.parse, `parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return refused(null, JSON_RPC_ERRORS.parse, "parse error: the body is not JSON")
  }
  if (Array.isArray(body)) return refused(null, JSON_RPC_ERRORS.invalidRequest, "invalid request: batch requests are not served here; send one request at a time")
  if (!isPlainObject(body)) return refused(null, JSON_RPC_ERRORS.invalidRequest, "invalid request: not a JSON-RPC request object")
  if (!("id" in body) || body.id === null) {
    return refused(null, JSON_RPC_ERRORS.invalidRequest, "invalid request: an id is required (notifications are not served here)")
  }
  const id = isId(body.id) ? body.id : null
  const envelope = decodeEnvelope(body)
  if (Either.isLeft(envelope)) return refused(id, JSON_RPC_ERRORS.invalidRequest, `invalid request: ${firstIssue(envelope.left, "request")}`)
  const { method, params } = envelope.right
  if (method === "") return refused(envelope.right.id, JSON_RPC_ERRORS.invalidRequest, "invalid request: empty method name")
  if (!served.has(method)) return refused(envelope.right.id, JSON_RPC_ERRORS.methodNotFound, "method not found", method.slice(0, 100))
  const known = method as StellarRpcMethod
  return Either.match(paramsOf(known, params, contracts), {
    onLeft: (problem) => refused(envelope.right.id, JSON_RPC_ERRORS.invalidParams, `invalid params: ${problem}`),
    onRight: (checked): Forward =>
      checked === undefined
        ? { _tag: "Forward", id: envelope.right.id, method: known }
        : { _tag: "Forward", id: envelope.right.id, method: known, params: checked }
  })
}
