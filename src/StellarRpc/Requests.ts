import { Address, xdr } from "@stellar/stellar-sdk"
import { Either, ParseResult, Schema } from "effect"
import {
  JSON_RPC_ERRORS,
  LedgerEntriesParams,
  EventsParams,
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
  /** A simulation of a contract the policy does not name (a policy that knows more might allow it). */
  readonly unnamed?: true
}

/**
 * Which contract calls are simulated: by contract, every function (`"any"`) or only those named. A simulation never
 * changes the ledger; the policy keeps the gateway to the deployment's contracts.
 */
export type CallPolicy = ReadonlyMap<string, "any" | ReadonlySet<string>>

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

/** Why a simulation was refused: its message, and whether it called a contract the policy does not name. */
interface CallRefusal {
  readonly problem: string
  readonly unnamed?: true
}

const described = (policy: CallPolicy) =>
  [...policy].map(([contract, fns]) => (fns === "any" ? contract : `${contract} (${[...fns].join(", ")})`)).join(", ")

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
const decodeEvents = Schema.decodeUnknownEither(EventsParams, strict)

/** Every filter's contracts among the deployment's: the gateway reads the events of no other contract. */
const ownEvents = (params: typeof EventsParams.Type, policy: CallPolicy): Either.Either<typeof EventsParams.Type, CallRefusal> => {
  for (const [i, filter] of params.filters.entries()) {
    for (const [j, id] of filter.contractIds.entries()) {
      if (!policy.has(id)) {
        return Either.left({ problem: `params.filters.${i}.contractIds.${j}: only the confidential token deployment's events (${[...policy.keys()].join(", ")}) are read here`, unnamed: true })
      }
    }
  }
  return Either.right(params)
}

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
 * A v1 transaction of one `invokeHostFunction` operation calling a function `policy` allows (`invokeContract`): the
 * only transactions the gateway simulates. Re-encoded as it is forwarded, so that Stellar RPC reads what was checked.
 */
const simulatedCall = (text: string, policy: CallPolicy): Either.Either<string, CallRefusal> => {
  const refuse = (problem: string) => Either.left({ problem: `params.transaction: ${problem}` })
  let envelope: xdr.TransactionEnvelope
  try {
    envelope = xdr.TransactionEnvelope.fromXdr(text, "base64")
  } catch {
    return refuse("not a base64 TransactionEnvelope XDR")
  }
  if (envelope.type !== "envelopeTypeTx") return refuse("only a v1 transaction envelope is simulated here")
  const operations = envelope.v1.tx.operations
  const body = operations[0]?.body
  if (operations.length !== 1 || body === undefined) return refuse("the transaction must have exactly one operation")
  if (body.type !== "invokeHostFunction") return refuse("only an invokeHostFunction operation is simulated here")
  const fn = body.invokeHostFunctionOp.hostFunction
  if (fn.type !== "hostFunctionTypeInvokeContract") return refuse("only a contract call (invokeContract) is simulated here")
  let contract: string
  try {
    contract = Address.fromScAddress(fn.invokeContract.contractAddress).toString()
  } catch {
    return refuse("the called contract's address cannot be read")
  }
  const allowed = policy.get(contract)
  if (allowed === undefined) {
    return Either.left({
      problem: policy.size === 0
        ? "params.transaction: no confidential token is configured here, so no call is simulated"
        : `params.transaction: only calls of the confidential token deployment (${described(policy)}) are simulated here`,
      unnamed: true
    })
  }
  const name = fn.invokeContract.functionName.toString()
  if (allowed !== "any" && !allowed.has(name)) {
    return refuse(`only ${[...allowed].join(", ")} of ${contract} (the token's underlying asset) are simulated here, not ${name.slice(0, 32)}`)
  }
  return Either.right(envelope.toXdr("base64"))
}

/** The parameters of `method` as they are forwarded, or what is wrong with them. */
const paramsOf = (method: StellarRpcMethod, params: unknown, policy: CallPolicy): Either.Either<unknown, CallRefusal> => {
  const problem = (e: ParseResult.ParseError) => ({ problem: firstIssue(e, "params") })
  switch (method) {
    case "getHealth":
    case "getNetwork":
    case "getLatestLedger": {
      const none = params === undefined || params === null || (Array.isArray(params) && params.length === 0) ||
        (isPlainObject(params) && Object.keys(params).length === 0)
      return none ? Either.right(undefined) : Either.left({ problem: "params: this method takes no parameters" })
    }
    case "getLedgerEntries":
      return Either.flatMap(Either.mapLeft(decodeLedgerEntries(params), problem), (p) =>
        Either.map(Either.mapLeft(ledgerKeys(p.keys), (why) => ({ problem: why })), (keys) => ({ ...p, keys })))
    case "simulateTransaction":
      return Either.flatMap(Either.mapLeft(decodeSimulate(params), problem), (p) =>
        Either.map(simulatedCall(p.transaction, policy), (transaction) => ({ ...p, transaction })))
    case "getTransaction":
      return Either.mapLeft(decodeTransaction(params), problem)
    case "getEvents":
      return Either.flatMap(Either.mapLeft(decodeEvents(params), problem), (p) => ownEvents(p, policy))
  }
}

const served = new Set<string>(STELLAR_RPC_METHODS)

/**
 * Reads one request body as the gateway serves it: one JSON-RPC 2.0 request (no batch, no notification, no member
 * beyond the four) of a method it serves, with parameters it accepts. Everything else is refused with the error
 * stellar-rpc's framing would carry (codes of JSON-RPC 2.0 §5.1).
 */
export const readRequest = (text: string, policy: CallPolicy): Refused | Forward => {
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
  return Either.match(paramsOf(known, params, policy), {
    onLeft: ({ problem, unnamed }) => {
      const answer = refused(envelope.right.id, JSON_RPC_ERRORS.invalidParams, `invalid params: ${problem}`)
      return unnamed === true ? { ...answer, unnamed } : answer
    },
    onRight: (checked): Forward =>
      checked === undefined
        ? { _tag: "Forward", id: envelope.right.id, method: known }
        : { _tag: "Forward", id: envelope.right.id, method: known, params: checked }
  })
}
