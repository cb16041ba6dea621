// The loopback RPC's ledger: accounts, a ledger clock, stellar-core's transaction queue
// (one pending transaction per source account, replace-by-fee for fee-bumps), CAP-15 fee-bump
// validation, application at ledger close (contract calls, and classic createAccount operations so
// that the loopback can play a network on which a client creates its own accounts), scripted
// outcomes for fault tests, and the ledger the RPC node serves, which may lag behind the network's (`lag`).
import { StrKey, encodeMuxedAccountToAddress, extractBaseAddress, xdr } from "@stellar/stellar-sdk"
import { createHash } from "node:crypto"
import { accountFromSpec } from "./LoopbackAccounts.ts"
import type { LoopbackAccount, LoopbackAccountSpec } from "./LoopbackAccounts.ts"
import {
  BASE_FEE, HostError, contractCall, createAccountResult, decodeEnvelope, errorEvent, failedOpResults, innerResult, invokeContract,
  invokeSuccess, isAuthorized, minBalance, outerResult, parseEnvelope, signedWeight, transactionMeta
} from "./LoopbackXdr.ts"
import type { ContractCall, HostFrame, HostOutcome, LoopbackInnerResultCode, LoopbackResultCode, ParsedEnvelope } from "./LoopbackXdr.ts"
import type { ContractHandler, LoopbackSendScript, LoopbackSendStatus, LoopbackTransaction, LoopbackTxStatus } from "./LoopbackTypes.ts"
import { LoopbackEventLog, metaEvent } from "./LoopbackEvents.ts"
import type { PublishedEvent } from "./LoopbackEvents.ts"

interface TxRecord extends LoopbackTransaction {
  parsed: ParsedEnvelope
  envelopeXdr: string
  sends: Array<{ at: number; status: LoopbackSendStatus; errorCode: string | undefined }>
  status: LoopbackTxStatus
  fate: "apply" | "neverLands" | { fail: Exclude<LoopbackInnerResultCode, "txSuccess"> }
  acceptedAt: number | undefined
  ledger: number | undefined
  applicationOrder: number | undefined
  resultXdr: string | undefined
  resultMetaXdr: string | undefined
  returnValue: xdr.ScVal | undefined
  hostError: string | undefined
  events: Array<{ contractId: string; topics: ReadonlyArray<xdr.ScVal>; data: xdr.ScVal }>
}

type Verdict =
  | { status: "PENDING"; replaces: TxRecord | undefined }
  | { status: "DUPLICATE" | "TRY_AGAIN_LATER" }
  | { status: "ERROR"; result: xdr.TransactionResult }

export const FIRST_LEDGER = 1000
export const RETENTION_WINDOW = 120_960 // stellar-rpc's default history retention (7 days)
const FEE_MULTIPLIER = 10n // stellar-core: a replacing fee-bump needs 10x the fee rate

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b
const inclusionFee = (p: ParsedEnvelope): bigint => p.fee - p.resourceFee
const opCount = (p: ParsedEnvelope): bigint => BigInt(p.feeBump ? p.innerOps + 1 : p.innerOps)
const minFee = (p: ParsedEnvelope): bigint => p.resourceFee + BASE_FEE * opCount(p) // feeCharged on validation errors

export class LoopbackLedger {
  readonly #passphrase: string
  readonly #intervalMs: number
  readonly #contract: (contractId: string) => ReadonlyMap<string, ContractHandler> | undefined
  readonly #startedAt = Date.now()
  #sequence = FIRST_LEDGER
  #lag: number | null = null
  readonly #closeTimes = new Map<number, number>([[FIRST_LEDGER, this.#startedAt]])
  readonly #accounts = new Map<string, LoopbackAccount>()
  readonly #versions = new Map<string, Array<{ ledger: number; account: LoopbackAccount | undefined }>>() // oldest first
  readonly #nonces = new Set<string>() // `${address}/${nonce}` of applied address credentials
  readonly #records = new Map<string, TxRecord>()
  #pending: Array<TxRecord> = []
  readonly #scripts: Array<{ script: LoopbackSendScript; remaining: number; match: ((tx: ParsedEnvelope) => boolean) | undefined }> = []
  readonly #waiters = new Set<{ sequence: number; resolve: (n: number) => void; reject: (e: Error) => void }>()
  readonly eventLog = new LoopbackEventLog()
  /** Events to publish at the next close, each group in a transaction of its own (see `publishAtClose`). */
  #injected: Array<{ contractId: string; events: ReadonlyArray<PublishedEvent> }> = []
  #retention = RETENTION_WINDOW
  readonly #timer: NodeJS.Timeout | undefined

  constructor(options: {
    passphrase: string
    intervalMs: number
    contract: (contractId: string) => ReadonlyMap<string, ContractHandler> | undefined
  }) {
    if (!(options.intervalMs >= 0)) throw new RangeError("ledgerIntervalMs must be >= 0")
    this.#passphrase = options.passphrase
    this.#intervalMs = options.intervalMs
    this.#contract = options.contract
    if (options.intervalMs > 0) {
      this.#timer = setInterval(() => this.close(), options.intervalMs)
      this.#timer.unref() // the ledger clock never keeps the process alive
    }
  }

  stop(): void {
    clearInterval(this.#timer)
    for (const w of this.#waiters) w.reject(new Error("loopback RPC closed"))
    this.#waiters.clear()
  }

  // ---- clock ----

  get latestLedger(): number {
    return this.#sequence
  }

  get oldestLedger(): number {
    return Math.max(1, this.servedLedger - this.#retention + 1)
  }

  /** The node's history retention window, in ledgers (stellar-rpc's default: 7 days). */
  get retention(): number {
    return this.#retention
  }

  setRetention(ledgers: number): void {
    if (!(Number.isInteger(ledgers) && ledgers >= 1)) throw new RangeError("the retention window is at least one ledger")
    this.#retention = ledgers
  }

  /**
   * Publishes `events` of `contractId` in the next ledger, in a transaction of their own (a random hash) applied
   * after that ledger's submitted transactions: for events the emulations do not produce.
   */
  publishAtClose(contractId: string, events: ReadonlyArray<PublishedEvent>): void {
    this.#injected.push({ contractId, events })
  }

  /** The ledger the RPC node answers as of: the latest, or the one it lags at. */
  get servedLedger(): number {
    return this.#lag ?? this.#sequence
  }

  get lagging(): number | null {
    return this.#lag
  }

  /** Makes the RPC node answer as of `asOf` (between the first and the latest ledger) while the network goes on; null catches up. */
  lag(asOf: number | null): void {
    if (asOf !== null && !(Number.isInteger(asOf) && asOf >= FIRST_LEDGER && asOf <= this.#sequence)) {
      throw new RangeError(`a lagging node serves a closed ledger: ${FIRST_LEDGER}..${this.#sequence}, not ${asOf}`)
    }
    this.#lag = asOf
  }

  /** Wall-clock ms at which `ledger` closed (the first ledger: at start), undefined if unknown. */
  closeTimeOf(ledger: number): number | undefined {
    return this.#closeTimes.get(ledger)
  }

  /** Unix seconds of a ledger's close, extrapolated (one interval per ledger) before the start. */
  closeTimeSeconds(ledger: number): number {
    const ms = this.#closeTimes.get(ledger) ?? this.#startedAt - (FIRST_LEDGER - ledger) * (this.#intervalMs || 5000)
    return Math.floor(ms / 1000)
  }

  /** Closes one ledger now: applies every transaction accepted since the last close, in order. */
  close(): number {
    const sequence = ++this.#sequence
    const closedAt = Date.now()
    this.#closeTimes.set(sequence, closedAt)
    this.#closeTimes.delete(sequence - RETENTION_WINDOW)
    const batch = this.#pending
    this.#pending = []
    let order = 0
    for (const record of batch) {
      if (record.fate === "neverLands") {
        record.status = "DROPPED"
        continue
      }
      try {
        this.#apply(record, sequence, ++order, Math.floor(closedAt / 1000))
      } catch (e) { // a bug here must not crash the test process from a timer
        record.status = "FAILED"
        record.ledger = sequence
        record.applicationOrder = order
        record.resultXdr = outerResult(record.parsed, "txInternalError", 0n).toXdr("base64")
        record.resultMetaXdr = transactionMeta(record.parsed, { success: false, returnValue: null }).toXdr("base64")
        console.error("LoopbackLedger: applying", record.hash, "failed:", e)
      }
    }
    const closeSeconds = Math.floor(closedAt / 1000)
    for (const record of batch) {
      if (record.status !== "SUCCESS" || record.ledger !== sequence) continue
      record.events.forEach((e, eventIndex) => this.eventLog.add({
        contractId: e.contractId, ledger: sequence, txOrder: record.applicationOrder!, txHash: record.hash, eventIndex,
        topics: e.topics, data: e.data, closeTime: closeSeconds
      }))
    }
    const injected = this.#injected
    this.#injected = []
    for (const group of injected) {
      const txOrder = ++order
      const txHash = createHash("sha256").update(`${sequence}/${txOrder}/${Math.random()}`).digest("hex")
      group.events.forEach((e, eventIndex) => this.eventLog.add({
        contractId: group.contractId, ledger: sequence, txOrder, txHash, eventIndex, topics: e.topics, data: e.data,
        closeTime: closeSeconds
      }))
    }
    for (const w of this.#waiters) {
      if (w.sequence <= sequence) {
        this.#waiters.delete(w)
        w.resolve(sequence)
      }
    }
    return sequence
  }

  /** Resolves with the latest ledger once it is at least `sequence`. */
  waitForLedger(sequence: number): Promise<number> {
    if (this.#sequence >= sequence) return Promise.resolve(this.#sequence)
    return new Promise((resolve, reject) => this.#waiters.add({ sequence, resolve, reject }))
  }

  // ---- accounts ----

  setAccount(spec: LoopbackAccountSpec): void {
    this.#write(spec.id, accountFromSpec(spec, this.#accounts.get(spec.id), this.#sequence), this.#sequence)
  }

  removeAccount(id: string): void {
    this.#write(id, undefined, this.#sequence)
  }

  account(id: string): LoopbackAccount | undefined {
    return this.#accounts.get(id)
  }

  /** The account as it was when `ledger` closed. */
  accountAsOf(id: string, ledger: number): LoopbackAccount | undefined {
    const versions = this.#versions.get(id) ?? []
    for (let i = versions.length - 1; i >= 0; i--) {
      const version = versions[i]!
      if (version.ledger <= ledger) return version.account
    }
    return undefined
  }

  #write(id: string, account: LoopbackAccount | undefined, ledger: number): void {
    if (account === undefined) this.#accounts.delete(id)
    else this.#accounts.set(id, account)
    const versions = this.#versions.get(id)
    if (versions === undefined) this.#versions.set(id, [{ ledger, account }])
    else versions.push({ ledger, account })
  }

  // ---- contract calls ----

  /** Invokes a contract function on the state as of `frame.asOf` (see invokeContract). */
  invoke(call: ContractCall, frame: HostFrame): HostOutcome {
    const current = frame.asOf >= this.#sequence
    return invokeContract({
      passphrase: this.#passphrase,
      contract: this.#contract,
      account: (id) => (current ? this.#accounts.get(id) : this.accountAsOf(id, frame.asOf)),
      nonceUsed: (address, nonce) => this.#nonces.has(`${address}/${nonce}`)
    }, call, frame)
  }

  // ---- scripts and introspection ----

  scriptSend(script: LoopbackSendScript, options?: { times?: number; match?: (tx: ParsedEnvelope) => boolean }): void {
    this.#scripts.push({ script, remaining: options?.times ?? 1, match: options?.match })
  }

  clearScripts(): void {
    this.#scripts.length = 0
  }

  transaction(hash: string): LoopbackTransaction | undefined {
    return this.#records.get(hash.toLowerCase())
  }

  /** Every transaction hash sent (decodable envelopes only), in order of first receipt. */
  get transactions(): ReadonlyArray<LoopbackTransaction> {
    return [...this.#records.values()]
  }

  sendCount(hash: string): number {
    return this.#records.get(hash.toLowerCase())?.sends.length ?? 0
  }

  // ---- JSON-RPC results (stellar-rpc's wire format: close times are strings of unix seconds) ----

  /** The raw sendTransaction result, or undefined when the parameter is not a TransactionEnvelope. */
  send(envelopeXdr: string): Record<string, unknown> | undefined {
    const envelope = decodeEnvelope(envelopeXdr)
    if (envelope === undefined) return undefined
    const served = this.servedLedger
    const answer = (hash: string, status: LoopbackSendStatus, result?: xdr.TransactionResult) => ({
      status, hash, latestLedger: served, latestLedgerCloseTime: String(this.closeTimeSeconds(served)),
      ...(result === undefined ? {} : { errorResultXdr: result.toXdr("base64") })
    })
    let parsed: ParsedEnvelope
    try {
      parsed = parseEnvelope(envelopeXdr, this.#passphrase)
    } catch {
      const hash = createHash("sha256").update(envelope.toXdr("raw")).digest("hex")
      const malformed = new xdr.TransactionResult({ feeCharged: 0n, result: xdr.TransactionResultResult.txMalformed(), ext: xdr.TransactionResultExt.v0() })
      return answer(hash, "ERROR", malformed)
    }
    const record = this.#record(parsed)
    const respond = (status: LoopbackSendStatus, result?: xdr.TransactionResult) => {
      record.sends.push({ at: Date.now(), status, errorCode: result === undefined ? undefined : codeName(result) })
      return answer(parsed.hash, status, result)
    }

    const scripted = this.#scripts.find((s) => s.match === undefined || s.match(parsed))
    const take = () => {
      if (scripted !== undefined && --scripted.remaining <= 0) this.#scripts.splice(this.#scripts.indexOf(scripted), 1)
    }
    if (scripted?.script.kind === "tryAgainLater") {
      take()
      return respond("TRY_AGAIN_LATER")
    }
    if (scripted?.script.kind === "error") {
      take()
      const { code, innerCode } = scripted.script
      return respond("ERROR", outerResult(parsed, code, minFee(parsed), innerCode === undefined ? undefined : { innerCode }))
    }

    const verdict = this.#admit(parsed)
    if (verdict.status === "ERROR") return respond("ERROR", verdict.result)
    if (verdict.status !== "PENDING") return respond(verdict.status)
    if (verdict.replaces !== undefined) {
      verdict.replaces.status = "DROPPED"
      this.#pending.splice(this.#pending.indexOf(verdict.replaces), 1)
    }
    record.fate = "apply"
    if (scripted?.script.kind === "neverLands") record.fate = "neverLands"
    if (scripted?.script.kind === "failOnApply") record.fate = { fail: scripted.script.code ?? "txFailed" }
    if (record.fate !== "apply") take()
    record.envelopeXdr = envelopeXdr
    record.parsed = parsed // the same hash may come with other signatures
    record.status = "PENDING"
    record.acceptedAt = Date.now()
    this.#pending.push(record)
    return respond("PENDING")
  }

  /** The raw getTransaction result for a 64-hex-digit hash, as of the served ledger. */
  get(hash: string): Record<string, unknown> {
    const latest = this.servedLedger
    const oldest = this.oldestLedger
    const common = {
      txHash: hash,
      latestLedger: latest, latestLedgerCloseTime: String(this.closeTimeSeconds(latest)),
      oldestLedger: oldest, oldestLedgerCloseTime: String(this.closeTimeSeconds(oldest)),
      events: {}
    }
    const r = this.#records.get(hash.toLowerCase())
    if (r === undefined || r.ledger === undefined || r.ledger > latest || (r.status !== "SUCCESS" && r.status !== "FAILED")) {
      return { status: "NOT_FOUND", ...common, applicationOrder: 0, feeBump: false, ledger: 0, createdAt: "0" }
    }
    return {
      status: r.status, ...common, applicationOrder: r.applicationOrder, feeBump: r.feeBump,
      envelopeXdr: r.envelopeXdr, resultXdr: r.resultXdr, resultMetaXdr: r.resultMetaXdr,
      ledger: r.ledger, createdAt: String(this.closeTimeSeconds(r.ledger))
    }
  }

  // ---- admission (stellar-core's TransactionQueue::canAdd + checkValid) ----

  #record(parsed: ParsedEnvelope): TxRecord {
    let record = this.#records.get(parsed.hash)
    if (record === undefined) {
      record = {
        hash: parsed.hash, envelopeXdr: parsed.envelopeXdr, feeBump: parsed.feeBump,
        innerHash: Buffer.from(parsed.innerHash).toString("hex"), source: parsed.source, feeSource: parsed.feeSource,
        fee: parsed.fee, sends: [], status: "NOT_ACCEPTED", acceptedAt: undefined, ledger: undefined,
        applicationOrder: undefined, resultXdr: undefined, resultMetaXdr: undefined, returnValue: undefined,
        hostError: undefined, parsed, fate: "apply", events: []
      }
      this.#records.set(parsed.hash, record)
    }
    return record
  }

  #admit(parsed: ParsedEnvelope): Verdict {
    let replaces: TxRecord | undefined
    const queued = this.#pending.find((r) => r.source === parsed.source)
    if (queued !== undefined) {
      if (queued.hash === parsed.hash || (queued.feeBump && !parsed.feeBump && queued.innerHash === parsed.hash)) {
        return { status: "DUPLICATE" }
      }
      if (parsed.sequence < queued.parsed.sequence) return { status: "ERROR", result: outerResult(parsed, "txBadSeq", minFee(parsed)) }
      // one transaction per source account; only a fee-bump of the same sequence may replace it
      if (!parsed.feeBump || parsed.sequence !== queued.parsed.sequence) return { status: "TRY_AGAIN_LATER" }
      const old = queued.parsed
      const needed = inclusionFee(old) * opCount(parsed) * FEE_MULTIPLIER
      if (inclusionFee(parsed) * opCount(old) < needed) {
        return { status: "ERROR", result: outerResult(parsed, "txInsufficientFee", ceilDiv(needed, opCount(old)) + parsed.resourceFee) }
      }
      replaces = queued
    }
    const error = this.#validate(parsed, replaces)
    if (error !== undefined) return { status: "ERROR", result: error }
    const known = this.#records.get(parsed.hash)?.status
    if (known === "SUCCESS" || known === "FAILED") return { status: "DUPLICATE" }
    return { status: "PENDING", replaces }
  }

  #validate(p: ParsedEnvelope, replaces: TxRecord | undefined): xdr.TransactionResult | undefined {
    const fee = minFee(p)
    const inner = (code: LoopbackInnerResultCode) => innerResult(p, code, fee)
    const outer = (code: LoopbackResultCode, charged = fee) => outerResult(p, code, charged)
    const ops = BigInt(p.innerOps)
    if (p.feeBump) {
      // CAP-15: the outer inclusion fee covers innerOps + 1 operations, at a rate no lower than the inner one
      const outerIncl = inclusionFee(p)
      const innerIncl = p.innerFee - p.resourceFee
      if (outerIncl < BASE_FEE * (ops + 1n)) return outer("txInsufficientFee", p.resourceFee + BASE_FEE * (ops + 1n))
      if (ops > 0n && outerIncl * ops < innerIncl * (ops + 1n)) {
        return outer("txInsufficientFee", p.resourceFee + ceilDiv(innerIncl * (ops + 1n), ops))
      }
      const feeAccount = this.#accounts.get(p.feeSource)
      if (feeAccount === undefined) return outer("txNoAccount")
      const tx = p.tx
      if (!isAuthorized(signedWeight(feeAccount, tx.hash(), tx.signatures), feeAccount.thresholds.low)) return outer("txBadAuth")
      if (feeAccount.balance < p.fee) return outer("txInsufficientBalance")
    }
    if (p.innerOps === 0) return inner("txMissingOperation")
    if (p.innerOps > 1 && p.inner.operations.some((op) => op.type === "invokeHostFunction")) return inner("txMalformed")
    const now = BigInt(Math.floor(Date.now() / 1000))
    const tb = p.inner.timeBounds
    if (tb !== undefined && now < BigInt(tb.minTime)) return inner("txTooEarly")
    if (tb !== undefined && tb.maxTime !== "0" && now > BigInt(tb.maxTime)) return inner("txTooLate")
    const lb = p.inner.ledgerBounds
    const next = this.#sequence + 1
    if (lb !== undefined && next < lb.minLedger) return inner("txTooEarly")
    if (lb !== undefined && lb.maxLedger !== 0 && next >= lb.maxLedger) return inner("txTooLate")
    if (!p.feeBump && inclusionFee(p) < BASE_FEE * ops) return inner("txInsufficientFee")
    const source = this.#accounts.get(p.source)
    if (source === undefined) return inner("txNoAccount")
    if (p.sequence !== source.sequence + 1n) return inner("txBadSeq")
    if (!isAuthorized(signedWeight(source, p.inner.hash(), p.inner.signatures), source.thresholds.low)) return inner("txBadAuth")
    // the fee source must also cover the fees of its other queued transactions
    const payer = this.#accounts.get(p.feeSource)
    const queuedFees = this.#pending.reduce((sum, r) => (r.feeSource === p.feeSource && r !== replaces ? sum + r.fee : sum), 0n)
    if (payer === undefined || payer.balance - p.fee < queuedFees) {
      return p.feeBump ? outer("txInsufficientBalance") : inner("txInsufficientBalance")
    }
    return undefined
  }

  // ---- application at ledger close ----

  #apply(record: TxRecord, ledger: number, order: number, closeTime: number): void {
    const p = record.parsed
    record.hostError = undefined
    const update = (id: string, patch: Partial<Pick<LoopbackAccount, "sequence" | "balance">>) => {
      const account = this.#accounts.get(id)
      if (account !== undefined) this.#write(id, { ...account, ...patch, lastModifiedLedger: ledger }, ledger)
    }
    const emitted: Array<{ contractId: string; topics: ReadonlyArray<xdr.ScVal>; data: xdr.ScVal }> = []
    const finish = (result: xdr.TransactionResult, success: boolean, returnValue: xdr.ScVal | null) => {
      record.status = success ? "SUCCESS" : "FAILED"
      record.ledger = ledger
      record.applicationOrder = order
      record.events = success ? emitted : []
      record.resultXdr = result.toXdr("base64")
      record.resultMetaXdr = transactionMeta(p, { success, returnValue, events: record.events.map((e) => metaEvent(e.contractId, e)) })
        .toXdr("base64")
      record.returnValue = returnValue ?? undefined
    }
    const payer = this.#accounts.get(p.feeSource)
    if (payer === undefined) return finish(outerResult(p, "txNoAccount", 0n), false, null)
    const charged = p.fee < payer.balance ? p.fee : payer.balance // stellar-core charges at most the balance
    update(p.feeSource, { balance: payer.balance - charged })
    const innerFeeCharged = p.feeBump ? p.innerFee : 0n
    const fail = (code: Exclude<LoopbackInnerResultCode, "txSuccess">, ops?: Array<xdr.OperationResult>) =>
      finish(innerResult(p, code, charged, { innerFeeCharged, ...(ops === undefined ? {} : { ops }) }), false, null)

    const source = this.#accounts.get(p.source)
    if (source === undefined) return fail("txNoAccount")
    if (p.sequence !== source.sequence + 1n) return fail("txBadSeq")
    const tb = p.inner.timeBounds
    if (tb !== undefined && tb.maxTime !== "0" && BigInt(closeTime) > BigInt(tb.maxTime)) return fail("txTooLate")
    update(p.source, { sequence: p.sequence })
    if (record.fate !== "apply" && record.fate !== "neverLands") return fail(record.fate.fail)

    if (p.inner.operations.every((op) => op.type === "createAccount")) {
      const { ops, success } = this.#createAccounts(p, ledger)
      return success ? finish(innerResult(p, "txSuccess", charged, { ops, innerFeeCharged }), true, null) : fail("txFailed", ops)
    }
    const results: Array<xdr.OperationResult> = []
    let returnValue: xdr.ScVal | null = null
    const trapped = () => fail("txFailed", failedOpResults(p.inner).map((r, i) => results[i] ?? r))
    for (const op of p.inner.operations) { // only invokeHostFunction operations are executed (and createAccount, above)
      if (op.type !== "invokeHostFunction") return trapped()
      const call = contractCall(op)
      if (call === undefined) {
        const error = "Error(Context, InternalError)"
        record.hostError = new HostError(error, [errorEvent(undefined, error, `${op.func.type} is not emulated by the loopback RPC`)]).text
        return trapped()
      }
      const source = op.source === undefined ? p.source : extractBaseAddress(op.source)
      const outcome = this.invoke(call, { phase: "apply", source, auth: op.auth ?? [], ledger, asOf: ledger })
      if (!outcome.ok) {
        record.hostError = outcome.error.text
        return trapped()
      }
      for (const [address, nonce] of outcome.nonces) this.#nonces.add(`${address}/${nonce}`)
      emitted.push(...outcome.events)
      returnValue = outcome.value
      results.push(invokeSuccess(returnValue))
    }
    finish(innerResult(p, "txSuccess", charged, { ops: results, innerFeeCharged }), true, returnValue)
  }

  /**
   * A classic transaction of createAccount operations, as stellar/stellar-core applies it (the fee and the sequence number
   * already taken): every operation runs, in order, each on what the previous ones left, and their changes are kept
   * only if all succeed (src/transactions/TransactionFrame.cpp `applyOperations`: a LedgerTxn per operation inside
   * one for the transaction, rolled back when an operation failed; every operation's result is reported). One
   * operation, as src/transactions/CreateAccountOpFrame.cpp `doApply` and `doApplyFromV14` do it: a destination that
   * exists is CREATE_ACCOUNT_ALREADY_EXIST; a starting balance under the new account's minimum balance (two base
   * reserves) is CREATE_ACCOUNT_LOW_RESERVE; a source whose available balance (its balance less its own minimum
   * balance, TransactionUtils.cpp `getAvailableBalance`) is below the starting balance is CREATE_ACCOUNT_UNDERFUNDED;
   * else the source pays the starting balance and the new account holds it, master weight 1, thresholds 0, and the
   * sequence number `ledgerSeq << 32` of the ledger it is created in (TransactionUtils.cpp
   * `getStartingSequenceNumber`). An operation's own source that does not exist is opNO_ACCOUNT. Sponsorship and
   * liabilities are not modelled.
   */
  #createAccounts(p: ParsedEnvelope, ledger: number): { ops: Array<xdr.OperationResult>; success: boolean } {
    const staged = new Map<string, LoopbackAccount>()
    const current = (id: string) => staged.get(id) ?? this.#accounts.get(id)
    const ops = p.inner.tx.operations.map((raw) => {
      const op = raw.body
      if (op.type !== "createAccount") return xdr.OperationResult.opNotSupported()
      const { destination: key, startingBalance } = op.createAccountOp
      const destination = StrKey.encodeEd25519PublicKey(key.ed25519.toBytes())
      const sourceId = raw.sourceAccount === null ? p.source : extractBaseAddress(encodeMuxedAccountToAddress(raw.sourceAccount))
      const source = current(sourceId)
      if (source === undefined) return xdr.OperationResult.opNoAccount()
      if (current(destination) !== undefined) return createAccountResult("createAccountAlreadyExist")
      if (startingBalance < minBalance(0)) return createAccountResult("createAccountLowReserve")
      if (source.balance - minBalance(source.signers.length) < startingBalance) return createAccountResult("createAccountUnderfunded")
      staged.set(sourceId, { ...source, balance: source.balance - startingBalance, lastModifiedLedger: ledger })
      staged.set(destination, accountFromSpec({ id: destination, balance: startingBalance, sequence: BigInt(ledger) << 32n }, undefined, ledger))
      return createAccountResult("createAccountSuccess")
    })
    const success = ops.every((r) => r.type === "opInner" && r.tr.type === "createAccount" && r.tr.createAccountResult.type === "createAccountSuccess")
    if (success) for (const [id, account] of staged) this.#write(id, account, ledger)
    return { ops, success }
  }
}

function codeName(result: xdr.TransactionResult): string {
  const r = result.result
  return r.type === "txFeeBumpInnerFailed" || r.type === "txFeeBumpInnerSuccess" ? `${r.type}(${r.innerResultPair.result.result.type})` : r.type
}
