// Public types of the loopback RPC's ledger (re-exported by LoopbackRpc.ts).
import type { xdr } from "@stellar/stellar-sdk"
import type { LoopbackInnerResultCode, LoopbackResultCode } from "./LoopbackXdr.ts"

/** What a contract function sees of the invocation it serves. */
export interface ContractCallContext {
  readonly phase: "simulate" | "apply"
  readonly contractId: string
  readonly fn: string
  /** G... source of the operation: its own source account, else the transaction's. */
  readonly source: string
  /** The operation's authorization entries (empty when a simulation records them). */
  readonly auth: ReadonlyArray<xdr.SorobanAuthorizationEntry>
  /** The ledger sequence the call executes in: the ledger being closed, or the served ledger + 1 in a simulation. */
  readonly ledger: number
  /** The state the call reads: what was written in ledgers up to this one (the served ledger in a simulation). */
  readonly asOf: number
  /**
   * `address.require_auth()` for this invocation, as the host does it: a simulation without auth entries records
   * one (returned in `results[].auth`); otherwise an entry must authorize it, or this throws the host's auth error.
   */
  readonly requireAuth: (address: string) => void
  /**
   * Publishes a contract event of this contract (`env.events().publish`, what `#[contractevent]`'s `publish` calls):
   * kept in the transaction's meta and served by getEvents when the call is applied; dropped in a simulation.
   */
  readonly emit: (topics: ReadonlyArray<xdr.ScVal>, data: xdr.ScVal) => void
}

/**
 * Implements one contract function, for simulateTransaction (`phase: "simulate"`) and for
 * transactions applied at ledger close (`phase: "apply"`). A thrown error fails the simulation
 * ("HostError: ..."; throw a `HostError` from LoopbackXdr.ts for the host's exact text) or the
 * transaction (txFailed, invokeHostFunctionTrapped). A handler changes state only when applied.
 */
export type ContractHandler = (args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext) => xdr.ScVal

/**
 * A scripted answer for the next matching sendTransaction (see `LoopbackRpc.scriptSend`):
 * - tryAgainLater: answer TRY_AGAIN_LATER without looking at the transaction;
 * - error: answer ERROR with a TransactionResult of top-level `code` (e.g. "txBadSeq"); with
 *   code "txFeeBumpInnerFailed", `innerCode` is the wrapped inner code;
 * - failOnApply: validate normally; if accepted (PENDING), apply it as FAILED with `code`
 *   (default txFailed, the invokeHostFunction op trapped), charging the fee and the sequence;
 * - neverLands: validate normally; if accepted (PENDING), drop it at the next ledger close
 *   without applying it (getTransaction stays NOT_FOUND; a later resend is a new submission).
 * Scripts that validate first are consumed only by a send that is accepted.
 */
export type LoopbackSendScript =
  | { kind: "tryAgainLater" }
  | { kind: "error"; code: LoopbackResultCode; innerCode?: LoopbackInnerResultCode }
  | { kind: "failOnApply"; code?: Exclude<LoopbackInnerResultCode, "txSuccess"> }
  | { kind: "neverLands" }

export type LoopbackSendStatus = "PENDING" | "DUPLICATE" | "TRY_AGAIN_LATER" | "ERROR"

/** NOT_ACCEPTED: never answered PENDING; DROPPED: accepted but replaced by fee or scripted never to land. */
export type LoopbackTxStatus = "NOT_ACCEPTED" | "PENDING" | "SUCCESS" | "FAILED" | "DROPPED"

/** What the loopback knows about one transaction hash (the envelope's own hash, hex). */
export interface LoopbackTransaction {
  readonly hash: string
  readonly envelopeXdr: string // base64, as last received
  readonly feeBump: boolean
  readonly innerHash: string
  readonly source: string
  readonly feeSource: string
  readonly fee: bigint // the (outer) fee bid, charged in full when applied
  readonly sends: ReadonlyArray<{ readonly at: number; readonly status: LoopbackSendStatus; readonly errorCode: string | undefined }>
  readonly status: LoopbackTxStatus
  readonly acceptedAt: number | undefined // wall-clock ms of the last PENDING answer
  readonly ledger: number | undefined
  readonly applicationOrder: number | undefined
  readonly resultXdr: string | undefined
  readonly resultMetaXdr: string | undefined
  readonly returnValue: xdr.ScVal | undefined
  readonly hostError: string | undefined // the host's error text when the invocation failed at apply
  readonly events: ReadonlyArray<{ readonly contractId: string; readonly topics: ReadonlyArray<xdr.ScVal>; readonly data: xdr.ScVal }>
}

