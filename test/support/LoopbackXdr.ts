// XDR helpers for the loopback RPC's ledger: envelope parsing, signature weights, the
// TransactionResult / TransactionMeta values stellar-core and stellar-rpc would produce, and the
// Soroban host's side of a contract call (its error text, diagnostic events and require_auth).
import { createHash, randomBytes } from "node:crypto"
import {
  Address, FeeBumpTransaction, Keypair, StrKey, TransactionBuilder, buildAuthorizationEntryPreimage, decodeAddressToMuxedAccount,
  extractBaseAddress, scValToNative, xdr
} from "@stellar/stellar-sdk"
import type { Transaction } from "@stellar/stellar-sdk"
import { authenticateAccount } from "./LoopbackAccounts.ts"
import type { LoopbackAccount } from "./LoopbackAccounts.ts"
import type { ContractCallContext, ContractHandler } from "./LoopbackTypes.ts"

/** A top-level TransactionResult code name, e.g. "txBadSeq" (the XDR union's arm names). */
export type LoopbackResultCode = xdr.TransactionResultResult["type"]
/** An inner (InnerTransactionResult) code name: every top-level code but the two fee-bump ones. */
export type LoopbackInnerResultCode = xdr.InnerTransactionResultResult["type"]

export const BASE_FEE = 100n // stroops per operation, like the ledger header's baseFee
export const BASE_RESERVE = 5_000_000n // stroops (0.5 XLM), like the ledger header's baseReserve (testnet's and pubnet's)

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

/** A createAccount operation's result (stellar-core's CreateAccountResultCode, as the XDR union's arm names). */
export type CreateAccountCode = xdr.CreateAccountResult["type"]

export function createAccountResult(code: CreateAccountCode): xdr.OperationResult {
  return xdr.OperationResult.opInner(xdr.OperationResultTr.createAccount(xdr.CreateAccountResult[code]()))
}

/**
 * An account's minimum balance (stellar-core, src/transactions/TransactionUtils.cpp `getMinBalance` since protocol 9,
 * without sponsorships): (2 + subentries) base reserves. The loopback's only subentries are signers.
 */
export const minBalance = (subEntries: number): bigint => (2n + BigInt(subEntries)) * BASE_RESERVE

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
export function transactionMeta(
  parsed: ParsedEnvelope,
  outcome: { success: boolean; returnValue: xdr.ScVal | null; events?: ReadonlyArray<xdr.ContractEvent> }
): xdr.TransactionMeta {
  const soroban = parsed.inner.operations.some((op) => op.type === "invokeHostFunction")
  // Protocol 23 (CAP-67): a successful operation's contract events are in its OperationMetaV2
  const operations = outcome.success
    ? parsed.inner.operations.map((_, i) =>
      new xdr.OperationMetaV2({ ext: xdr.ExtensionPoint.v0(), changes: [], events: i === 0 ? [...(outcome.events ?? [])] : [] })
    )
    : []
  return xdr.TransactionMeta.v4(new xdr.TransactionMetaV4({
    ext: xdr.ExtensionPoint.v0(), txChangesBefore: [], operations, txChangesAfter: [],
    sorobanMeta: soroban
      ? new xdr.SorobanTransactionMetaV2({ ext: xdr.SorobanTransactionMetaExt.v0(), returnValue: outcome.success ? outcome.returnValue : null })
      : null,
    events: [], diagnosticEvents: []
  }))
}

/** A contract call: who, what, with which arguments, and the InvokeContractArgs it came as. */
export interface ContractCall {
  readonly contractId: string
  readonly fn: string
  readonly args: ReadonlyArray<xdr.ScVal>
  readonly invocation: xdr.InvokeContractArgs
}

/** The call of an invokeHostFunction(invokeContract) operation, else undefined. */
export function contractCall(op: Transaction["operations"][number]): ContractCall | undefined {
  if (op.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") return undefined
  const invocation = op.func.invokeContract
  return {
    contractId: Address.fromScAddress(invocation.contractAddress).toString(),
    fn: invocation.functionName.toString(),
    args: invocation.args,
    invocation
  }
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

// ---- the Soroban host as stellar-rpc shows it: HostError text, diagnostic events, require_auth ----
//
// Pinned to stellar/rs-soroban-env (30c9c36): `impl Debug for HostError` in soroban-env-host/src/host/error.rs
// ("HostError: {error:?}", then "\nEvent log (newest first):" and "   {i}: {event}" per event, newest first),
// `impl Display for HostEvent` and `display_scval` in soroban-env-host/src/events/mod.rs. stellar-rpc returns that
// text as simulateTransaction's `error` (stellar/stellar-rpc, cmd/stellar-rpc/lib/preflight/src/lib.rs:
// `format!("{e:?}")`). The events listed are those recorded when the error was created, so a contract error reads
// (newest first) escalation, "failing with contract error", fn_call — as in real answers quoted in public code,
// e.g. "HostError: Error(Contract, #7)\n\nEvent log (newest first):\n   0: [Diagnostic Event] contract:CB5S…,
// topics:[error, Error(Contract, #7)], data:\"escalating error to VM trap from failed host function call:
// fail_with_error\"\n   1: … data:[\"failing with contract error\", 7]\n   2: [Diagnostic Event] topics:[fn_call, CB5S…,
// invest], data:[GBCC…, 100]".

const quoted = (text: string) => `"${text}"`

const ERROR_TYPES: Record<string, string> = {
  sceContract: "Contract", sceWasmVm: "WasmVm", sceContext: "Context", sceStorage: "Storage", sceObject: "Object",
  sceCrypto: "Crypto", sceEvents: "Events", sceBudget: "Budget", sceValue: "Value", sceAuth: "Auth"
}

/** An ScVal as the host's diagnostic text shows it (`display_scval`). */
export function displayScVal(v: xdr.ScVal): string {
  switch (v.type) {
    case "scvBool": return String(v.b)
    case "scvVoid": return "Void"
    case "scvError": {
      const e = v.error
      return e.type === "sceContract" ? `Error(Contract, #${e.contractCode})` : `Error(${ERROR_TYPES[e.type]}, ${e.code.name.slice(4)})`
    }
    case "scvU32": case "scvI32": case "scvU64": case "scvI64": case "scvU128": case "scvI128": case "scvU256": case "scvI256":
      return String(scValToNative(v))
    case "scvTimepoint": return `TimePoint(${v.timepoint})`
    case "scvDuration": return `Duration(${v.duration})`
    case "scvBytes": return `Bytes(${Buffer.from(v.bytes.toBytes()).toString("hex")})`
    case "scvString": return quoted(v.str.toString())
    case "scvSymbol": return v.sym.toString()
    case "scvVec": return `[${(v.vec ?? []).map(displayScVal).join(", ")}]`
    case "scvMap": return `{${(v.map ?? []).map((e) => `${displayScVal(e.key)}: ${displayScVal(e.val)}`).join(", ")}}`
    case "scvAddress": return Address.fromScAddress(v.address).toString()
    case "scvLedgerKeyContractInstance": return "LedgerKeyContractInstance"
    case "scvLedgerKeyNonce": return `LedgerKeyNonce(${v.nonceKey.nonce})`
    case "scvContractInstance": return "ContractInstance"
    case "scvExecutableTag": return `ExecutableTag(${quoted(v.executableTag.toString())})`
  }
}

/** One diagnostic event line (`impl Display for HostEvent`); `contractId` is the contract whose frame recorded it. */
export const diagnosticEvent = (contractId: string | undefined, topics: ReadonlyArray<string>, data: string): string =>
  `[Diagnostic Event] ${contractId === undefined ? "" : `contract:${contractId}, `}topics:[${topics.join(", ")}], data:${data}`

/** The event recorded with an error (`record_err_diagnostics`): its message alone, or with its arguments. */
export const errorEvent = (contractId: string | undefined, error: string, message: string, args: ReadonlyArray<string> = []): string =>
  diagnosticEvent(contractId, ["error", error], args.length === 0 ? quoted(message) : `[${[quoted(message), ...args].join(", ")}]`)

/** The `fn_call` event recorded before a top-level invocation: data is the one argument, or all of them. */
export const fnCallEvent = (call: Pick<ContractCall, "contractId" | "fn" | "args">): string => {
  const [only, ...rest] = call.args
  const data = only === undefined ? "Void" : rest.length === 0 ? displayScVal(only) : `[${call.args.map(displayScVal).join(", ")}]`
  return diagnosticEvent(undefined, ["fn_call", call.contractId, call.fn], data)
}

/** A failed invocation: `error` as the host prints it (e.g. "Error(Contract, #3501)") and its events, oldest first. */
export class HostError extends Error {
  readonly error: string
  readonly events: ReadonlyArray<string>
  constructor(error: string, events: ReadonlyArray<string> = []) {
    super(`HostError: ${error}`)
    this.name = "HostError"
    this.error = error
    this.events = events
  }

  /** The same error, with events recorded before it (the invocation's fn_call). */
  after(earlier: ReadonlyArray<string>): HostError {
    return new HostError(this.error, [...earlier, ...this.events])
  }

  /** simulateTransaction's `error`, as stellar-rpc returns it. */
  get text(): string {
    const log = [...this.events].reverse().map((event, i) => `   ${i}: ${event}\n`).join("")
    return `HostError: ${this.error}\n${log === "" ? "" : `\nEvent log (newest first):\n${log}`}`
  }
}

/** A host function the contract called failed: its error event, then the VM trap it escalates to (vm/dispatch.rs). */
export const hostFunctionError = (
  contractId: string, hostFn: string, error: string, message: string, args: ReadonlyArray<string> = [], earlier: ReadonlyArray<string> = []
): HostError =>
  new HostError(error, [
    ...earlier,
    errorEvent(contractId, error, message, args),
    errorEvent(contractId, error, `escalating error to VM trap from failed host function call: ${hostFn}`)
  ])

/** `panic_with_error!(e, code)`: the `fail_with_error` host function (soroban-env-host/src/host.rs). */
export const contractError = (contractId: string, code: number): HostError =>
  hostFunctionError(contractId, "fail_with_error", `Error(Contract, #${code})`, "failing with contract error", [String(code)])

/**
 * `panic_with_error!(e, code)` in a contract this one called through a generated client (`call`, not `try_call`):
 * the callee's error stays the invocation's, its own events are rolled back with its frame ("not emitted"), and the
 * caller records the failed call and traps. As in a real testnet answer quoted in public code (a Stellar Asset
 * Contract's BalanceError #10 inside another contract's `transfer` call): newest first, the caller's "escalating
 * error to VM trap from failed host function call: call", its `["contract call failed", fn, [args]]`, the callee's
 * `[Failed Diagnostic Event (not emitted)]` error, and the caller's `fn_call` of the callee.
 */
export const calleeContractError = (callerId: string, calleeId: string, fn: string, args: ReadonlyArray<xdr.ScVal>, code: number): HostError => {
  const error = `Error(Contract, #${code})`
  const shown = args.map(displayScVal)
  return new HostError(error, [
    diagnosticEvent(callerId, ["fn_call", calleeId, fn], shown.length === 1 ? shown[0]! : `[${shown.join(", ")}]`),
    `[Failed Diagnostic Event (not emitted)] ${errorEvent(calleeId, error, "failing with contract error", [String(code)]).slice("[Diagnostic Event] ".length)}`,
    errorEvent(callerId, error, "contract call failed", [fn, `[${shown.join(", ")}]`]),
    errorEvent(callerId, error, "escalating error to VM trap from failed host function call: call")
  ])
}

/** A function the contract does not export (soroban-env-host/src/vm.rs, `metered_func_call`). */
export const missingFunction = (contractId: string, fn: string): HostError =>
  new HostError("Error(WasmVm, MissingValue)", [
    errorEvent(contractId, "Error(WasmVm, MissingValue)", "trying to invoke non-existent contract function", [fn])
  ])

/** A contract with no instance on the ledger (soroban-env-host/src/storage.rs, `decorate_storage_error`). */
export const missingContract = (): HostError =>
  new HostError("Error(Storage, MissingValue)", [
    errorEvent(undefined, "Error(Storage, MissingValue)", "trying to get non-existing value for contract instance")
  ])

/** Not as many arguments as the exported function takes: wasmi's MismatchingParameterLen (vm.rs, common/src/error.rs). */
export const argumentCountMismatch = (contractId: string, fn: string): HostError =>
  new HostError("Error(WasmVm, UnexpectedSize)", [
    errorEvent(contractId, "Error(WasmVm, UnexpectedSize)", "VM call failed: Func(MismatchingParameterLen)", [fn])
  ])

/** An argument of the wrong type: the SDK's wrapper `unwrap_optimized`s it into a trap (soroban-sdk-macros derive_fn.rs). */
export const argumentTypeMismatch = (contractId: string, fn: string): HostError =>
  new HostError("Error(WasmVm, InvalidAction)", [
    errorEvent(contractId, "Error(WasmVm, InvalidAction)", "VM call trapped: UnreachableCodeReached", [fn])
  ])

/** What the loopback does not emulate fails loudly, never silently: not a real host message. */
export const notEmulated = (contractId: string, fn: string, what: string): HostError =>
  new HostError("Error(Context, InternalError)", [
    errorEvent(contractId, "Error(Context, InternalError)", `${what} is not emulated by the loopback RPC`, [fn])
  ])

const asHostError = (e: unknown): HostError =>
  e instanceof HostError ? e : new HostError(e instanceof Error ? e.message : String(e))

export interface HostEnv {
  readonly passphrase: string
  readonly contract: (contractId: string) => ReadonlyMap<string, ContractHandler> | undefined
  /** The account as of the state the call reads. */
  readonly account: (id: string) => LoopbackAccount | undefined
  readonly nonceUsed: (address: string, nonce: bigint) => boolean
}

export type HostFrame = Pick<ContractCallContext, "phase" | "source" | "auth" | "ledger" | "asOf">

/** An event a contract published during an invocation. */
export interface HostEvent {
  readonly contractId: string
  readonly topics: ReadonlyArray<xdr.ScVal>
  readonly data: xdr.ScVal
}

export type HostOutcome =
  | {
    readonly ok: true
    readonly value: xdr.ScVal
    readonly auth: ReadonlyArray<xdr.SorobanAuthorizationEntry>
    readonly nonces: ReadonlyArray<readonly [string, bigint]>
    readonly events: ReadonlyArray<HostEvent>
  }
  | { readonly ok: false; readonly error: HostError }

/**
 * Invokes a contract function as the host does: a missing instance or function fails like the real one, and
 * `require_auth` records entries (a simulation without auth entries) or enforces the operation's entries.
 */
export function invokeContract(env: HostEnv, call: ContractCall, frame: HostFrame): HostOutcome {
  const fail = (e: unknown): HostOutcome => ({ ok: false, error: asHostError(e).after([fnCallEvent(call)]) })
  const functions = env.contract(call.contractId)
  if (functions === undefined) return fail(missingContract())
  const handler = functions.get(call.fn)
  if (handler === undefined) return fail(missingFunction(call.contractId, call.fn))
  const recorded = new Map<string, xdr.SorobanAuthorizationEntry>()
  const nonces: Array<readonly [string, bigint]> = []
  const recording = frame.phase === "simulate" && frame.auth.length === 0
  const requireAuth = (address: string) => {
    if (!recording) return authorize(env, call, frame, address, nonces)
    if (!recorded.has(address)) recorded.set(address, recordedEntry(call, address, frame.source))
  }
  const events: Array<HostEvent> = []
  const emit = (topics: ReadonlyArray<xdr.ScVal>, data: xdr.ScVal) => void events.push({ contractId: call.contractId, topics, data })
  try {
    const value = handler(call.args, { ...frame, contractId: call.contractId, fn: call.fn, requireAuth, emit })
    return { ok: true, value, auth: [...recorded.values()], nonces, events: frame.phase === "apply" ? events : [] }
  } catch (e) {
    return fail(e)
  }
}

const rootFunction = (call: ContractCall) => xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(call.invocation)

/** What recording mode returns: source-account credentials for the source, else unsigned address credentials. */
function recordedEntry(call: ContractCall, address: string, source: string): xdr.SorobanAuthorizationEntry {
  const rootInvocation = new xdr.SorobanAuthorizedInvocation({ function: rootFunction(call), subInvocations: [] })
  const credentials = address === source
    ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
    : xdr.SorobanCredentials.sorobanCredentialsAddress(new xdr.SorobanAddressCredentials({
        address: Address.fromString(address).toScAddress(),
        nonce: randomBytes(8).readBigInt64BE(),
        signatureExpirationLedger: 0,
        signature: xdr.ScVal.scvVoid()
      }))
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation })
}

/**
 * Enforcing `require_auth` (soroban-env-host/src/auth.rs): an entry whose root invocation is this call, with
 * source-account credentials when `address` is the operation's source, or address credentials for `address`,
 * authenticated (the account's signers against its medium threshold), unexpired, with an unused nonce.
 */
function authorize(env: HostEnv, call: ContractCall, frame: HostFrame, address: string, nonces: Array<readonly [string, bigint]>): void {
  const wanted = Buffer.from(rootFunction(call).toXdr())
  const authError = (error: string, message: string, args: ReadonlyArray<string>, earlier: ReadonlyArray<string> = []) =>
    hostFunctionError(call.contractId, "require_auth", error, message, args, earlier)
  for (const entry of frame.auth) {
    if (!wanted.equals(Buffer.from(entry.rootInvocation.function.toXdr()))) continue
    const c = entry.credentials
    if (c.type === "sorobanCredentialsSourceAccount") {
      if (address === frame.source) return
      continue
    }
    const creds = c.type === "sorobanCredentialsAddress" ? c.address
      : c.type === "sorobanCredentialsAddressV2" ? c.addressV2
      : c.addressWithDelegates.addressCredentials
    if (Address.fromScAddress(creds.address).toString() !== address) continue
    if (c.type === "sorobanCredentialsAddressWithDelegates" || !StrKey.isValidEd25519PublicKey(address)) {
      throw notEmulated(call.contractId, "require_auth", `${c.type} for ${address}`)
    }
    const payload = createHash("sha256")
      .update(buildAuthorizationEntryPreimage(entry, creds.signatureExpirationLedger, env.passphrase).toXdr())
      .digest()
    const failure = authenticateAccount(env.account(address), payload, creds.signature)
    if (failure !== undefined) {
      throw authError("Error(Auth, InvalidAction)", "failed account authentication with error", [address, failure.error], [
        errorEvent(call.contractId, failure.error, failure.message, failure.args)
      ])
    }
    if (frame.ledger > creds.signatureExpirationLedger) {
      throw authError("Error(Auth, InvalidInput)", "signature has expired", [address, String(frame.ledger), String(creds.signatureExpirationLedger)])
    }
    if (env.nonceUsed(address, creds.nonce) || nonces.some(([a, n]) => a === address && n === creds.nonce)) {
      throw authError("Error(Auth, ExistingValue)", "nonce already exists for address", [address])
    }
    nonces.push([address, creds.nonce])
    return
  }
  throw authError("Error(Auth, InvalidAction)", "Unauthorized function call for address", [address])
}
