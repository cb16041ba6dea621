// XDR helpers for the loopback RPC's ledger: envelope parsing, signature weights and the
// TransactionResult / TransactionMeta values stellar-core and stellar-rpc would produce.
import { createHash } from "node:crypto"
import { Address, FeeBumpTransaction, Keypair, TransactionBuilder, decodeAddressToMuxedAccount, extractBaseAddress, xdr } from "@stellar/stellar-sdk"
import type { Transaction } from "@stellar/stellar-sdk"

/** A top-level TransactionResult code name, e.g. "txBadSeq" (the XDR union's arm names). */
export type LoopbackResultCode = xdr.TransactionResultResult["type"]
/** An inner (InnerTransactionResult) code name: every top-level code but the two fee-bump ones. */
export type LoopbackInnerResultCode = xdr.InnerTransactionResultResult["type"]

export const BASE_FEE = 100n // stroops per operation, like the ledger header's baseFee

/** A decoded envelope with everything the ledger checks, computed once. */
export interface ParsedEnvelope {
  readonly envelopeXdr: string // base64, exactly as received
  readonly tx: Transaction | FeeBumpTransaction
  readonly inner: Transaction
  readonly feeBump: boolean
  readonly hash: string // hex hash of the envelope's own transaction (the outer one for a fee-bump)
  readonly innerHash: Uint8Array // == the hash for a plain envelope
  readonly source: string // G... inner source (muxed accounts reduced to their base account)
  readonly feeSource: string // G... account that pays: the fee-bump's fee source, else the source
  readonly fee: bigint // full fee bid of the envelope (the outer fee for a fee-bump)
  readonly innerFee: bigint
  readonly resourceFee: bigint // declared Soroban resource fee (0 for classic transactions)
  readonly innerOps: number
  readonly sequence: bigint
}

/** Decodes a base64 envelope; `undefined` when it is not a TransactionEnvelope at all. */
export function decodeEnvelope(envelopeXdr: string): xdr.TransactionEnvelope | undefined {
  try {
    return xdr.TransactionEnvelope.fromXdr(envelopeXdr, "base64")
  } catch {
    return undefined
  }
}

/** Builds the SDK view of an envelope; throws when its structure is unusable (→ txMalformed). */
export function parseEnvelope(envelopeXdr: string, passphrase: string): ParsedEnvelope {
  const tx = TransactionBuilder.fromXdr(envelopeXdr, passphrase)
  const feeBump = tx instanceof FeeBumpTransaction
  const inner = feeBump ? tx.innerTransaction : tx
  const env = inner.toEnvelope()
  const ext = env.type === "envelopeTypeTx" ? env.v1.tx.ext : undefined
  const innerFee = BigInt(inner.fee)
  return {
    envelopeXdr, tx, inner, feeBump,
    hash: Buffer.from(tx.hash()).toString("hex"),
    innerHash: inner.hash(),
    source: extractBaseAddress(inner.source),
    feeSource: extractBaseAddress(feeBump ? tx.feeSource : inner.source),
    fee: feeBump ? BigInt(tx.fee) : innerFee,
    innerFee,
    resourceFee: ext?.type === "sorobanData" ? ext.sorobanData.resourceFee : 0n,
    innerOps: inner.operations.length,
    sequence: BigInt(inner.sequence)
  }
}

export interface SignerSet {
  readonly id: string
  readonly thresholds: { readonly master: number }
  readonly signers: ReadonlyArray<{ readonly key: string; readonly weight: number }>
}

/** Sum of the weights of the account's keys that validly signed `hash` (each key counted once). */
export function signedWeight(account: SignerSet, hash: Uint8Array, signatures: ReadonlyArray<xdr.DecoratedSignature>): number {
  const keys = [{ key: account.id, weight: account.thresholds.master }, ...account.signers].filter((k) => k.weight > 0)
  const used = new Set<string>()
  let total = 0
  for (const sig of signatures) {
    const hint = Buffer.from(sig.hint.toBytes())
    for (const k of keys) {
      if (used.has(k.key)) continue
      const kp = Keypair.fromPublicKey(k.key)
      if (!hint.equals(Buffer.from(kp.signatureHint()))) continue
      if (kp.verify(hash, sig.signature.toBytes())) {
        used.add(k.key)
        total += k.weight
        break
      }
    }
  }
  return total
}

/** A threshold of 0 still needs one valid signature of non-zero weight, like stellar-core. */
export const isAuthorized = (weight: number, threshold: number): boolean => weight >= Math.max(1, threshold)

// ---- results ----

/** The result of a successful invokeHostFunction: sha256 of InvokeHostFunctionSuccessPreImage. */
export function invokeSuccess(returnValue: xdr.ScVal): xdr.OperationResult {
  const preimage = new xdr.InvokeHostFunctionSuccessPreImage({ returnValue, events: [] })
  const digest = createHash("sha256").update(preimage.toXdr("raw")).digest()
  return xdr.OperationResult.opInner(
    xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionSuccess(digest))
  )
}

/** Per-operation results for a failed transaction: invokeHostFunction ops trapped, others not supported. */
export function failedOpResults(inner: Transaction): Array<xdr.OperationResult> {
  return inner.operations.map((op) =>
    op.type === "invokeHostFunction"
      ? xdr.OperationResult.opInner(
          xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionTrapped())
        )
      : xdr.OperationResult.opNotSupported()
  )
}

function innerResultResult(code: LoopbackInnerResultCode, ops: Array<xdr.OperationResult>): xdr.InnerTransactionResultResult {
  switch (code) {
    case "txSuccess": return xdr.InnerTransactionResultResult.txSuccess(ops)
    case "txFailed": return xdr.InnerTransactionResultResult.txFailed(ops)
    default: return xdr.InnerTransactionResultResult[code]()
  }
}

/**
 * A TransactionResult with the top-level `code`. For the two fee-bump codes the inner pair
 * carries the inner hash and `innerCode` (default txSuccess / txFailed). `ops` defaults to
 * failedOpResults for txFailed and to no results for txSuccess.
 */
export function outerResult(
  parsed: ParsedEnvelope,
  code: LoopbackResultCode,
  feeCharged: bigint,
  options?: { innerCode?: LoopbackInnerResultCode; ops?: Array<xdr.OperationResult>; innerFeeCharged?: bigint }
): xdr.TransactionResult {
  const opsFor = (c: LoopbackResultCode) => options?.ops ?? (c === "txFailed" ? failedOpResults(parsed.inner) : [])
  let result: xdr.TransactionResultResult
  switch (code) {
    case "txFeeBumpInnerSuccess":
    case "txFeeBumpInnerFailed": {
      const innerCode = options?.innerCode ?? (code === "txFeeBumpInnerSuccess" ? "txSuccess" : "txFailed")
      const pair = new xdr.InnerTransactionResultPair({
        transactionHash: parsed.innerHash,
        result: new xdr.InnerTransactionResult({
          feeCharged: options?.innerFeeCharged ?? 0n,
          result: innerResultResult(innerCode, opsFor(innerCode)),
          ext: xdr.InnerTransactionResultExt.v0()
        })
      })
      result = code === "txFeeBumpInnerSuccess"
        ? xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair)
        : xdr.TransactionResultResult.txFeeBumpInnerFailed(pair)
      break
    }
    case "txSuccess": result = xdr.TransactionResultResult.txSuccess(opsFor(code)); break
    case "txFailed": result = xdr.TransactionResultResult.txFailed(opsFor(code)); break
    default: result = xdr.TransactionResultResult[code]()
  }
  return new xdr.TransactionResult({ feeCharged, result, ext: xdr.TransactionResultExt.v0() })
}

/**
 * A TransactionResult for a code of the inner transaction: as is for a plain envelope; for a
 * fee-bump wrapped in txFeeBumpInnerSuccess / txFeeBumpInnerFailed, as stellar-core reports it.
 */
export function innerResult(
  parsed: ParsedEnvelope,
  code: LoopbackInnerResultCode,
  feeCharged: bigint,
  options?: { ops?: Array<xdr.OperationResult>; innerFeeCharged?: bigint }
): xdr.TransactionResult {
  if (!parsed.feeBump) return outerResult(parsed, code, feeCharged, options)
  return outerResult(parsed, code === "txSuccess" ? "txFeeBumpInnerSuccess" : "txFeeBumpInnerFailed", feeCharged, {
    ...options, innerCode: code
  })
}

/** The innermost result code name (the inner code of a fee-bump result), for assertions. */
export function innermostResultCode(result: xdr.TransactionResult): LoopbackResultCode {
  const r = result.result
  return r.type === "txFeeBumpInnerSuccess" || r.type === "txFeeBumpInnerFailed" ? r.innerResultPair.result.result.type : r.type
}

/**
 * TransactionMeta v4 (what stellar-core emits since protocol 23 and the SDK's parser reads):
 * one empty OperationMetaV2 per operation when it succeeded, and for a Soroban transaction a
 * SorobanTransactionMetaV2 carrying the return value (null when it failed).
 */
export function transactionMeta(parsed: ParsedEnvelope, outcome: { success: boolean; returnValue: xdr.ScVal | null }): xdr.TransactionMeta {
  const soroban = parsed.inner.operations.some((op) => op.type === "invokeHostFunction")
  const operations = outcome.success
    ? parsed.inner.operations.map(() => new xdr.OperationMetaV2({ ext: xdr.ExtensionPoint.v0(), changes: [], events: [] }))
    : []
  return xdr.TransactionMeta.v4(new xdr.TransactionMetaV4({
    ext: xdr.ExtensionPoint.v0(), txChangesBefore: [], operations, txChangesAfter: [],
    sorobanMeta: soroban
      ? new xdr.SorobanTransactionMetaV2({ ext: xdr.SorobanTransactionMetaExt.v0(), returnValue: outcome.success ? outcome.returnValue : null })
      : null,
    events: [], diagnosticEvents: []
  }))
}

/** `{ contractId, fn, args }` of an invokeHostFunction(invokeContract) operation, else undefined. */
export function contractCall(op: Transaction["operations"][number]): { contractId: string; fn: string; args: Array<xdr.ScVal> } | undefined {
  if (op.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") return undefined
  const call = op.func.invokeContract
  return { contractId: Address.fromScAddress(call.contractAddress).toString(), fn: call.functionName.toString(), args: call.args }
}

/**
 * An unsigned fee-bump of `inner` whose outer fee is exactly `fee` stroops (SDK 17's
 * TransactionBuilder.buildFeeBumpTransaction always computes baseFee * (ops + 1) + resourceFee).
 * Sign it with `.sign(feeSourceKeypair)`.
 */
export function exactFeeBump(inner: Transaction, feeSource: string, fee: bigint, passphrase: string): FeeBumpTransaction {
  const env = inner.toEnvelope()
  if (env.type !== "envelopeTypeTx") throw new Error("the inner transaction must be a v1 envelope")
  const tx = new xdr.FeeBumpTransaction({
    feeSource: decodeAddressToMuxedAccount(feeSource),
    fee,
    innerTx: xdr.FeeBumpTransactionInnerTx.envelopeTypeTx(env.v1),
    ext: xdr.FeeBumpTransactionExt.v0()
  })
  const envelope = xdr.TransactionEnvelope.envelopeTypeTxFeeBump(new xdr.FeeBumpTransactionEnvelope({ tx, signatures: [] }))
  return new FeeBumpTransaction(envelope, passphrase)
}
