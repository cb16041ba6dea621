import { xdr } from "@stellar/stellar-sdk"

type OperationResults = ReadonlyArray<xdr.OperationResult>

const operationCode = (results: OperationResults): string | undefined => {
  for (const result of results) {
    if (result.type !== "opInner") return result.type
    const inner = result.tr.value as { type?: unknown } | undefined
    if (inner !== undefined && typeof inner.type === "string" && !inner.type.endsWith("Success")) return inner.type
  }
  return undefined
}

/**
 * The most telling code of a transaction result, e.g. `txBadSeq`, or `txFailed: invokeHostFunctionTrapped`;
 * a fee-bump's own code is replaced by its inner transaction's.
 */
export const resultCode = (result: xdr.TransactionResult): string => {
  const outer = result.result
  if (outer.type === "txFeeBumpInnerSuccess" || outer.type === "txFeeBumpInnerFailed") {
    const inner = outer.innerResultPair.result.result
    const detail = "results" in inner ? operationCode(inner.results) : undefined
    return detail === undefined ? inner.type : `${inner.type}: ${detail}`
  }
  const detail = "results" in outer ? operationCode(outer.results) : undefined
  return detail === undefined ? outer.type : `${outer.type}: ${detail}`
}

/**
 * `resultCode` of a base64 `TransactionResult` as an RPC answer carries it; `unknown` when it is absent or cannot be
 * decoded (a newer protocol's result): the status the answer gave is what settles the transaction, not this code.
 */
export const resultCodeOf = (base64: string | undefined): string => {
  if (base64 === undefined) return "unknown"
  try {
    return resultCode(xdr.TransactionResult.fromXDR(base64, "base64"))
  } catch {
    return "unknown"
  }
}
