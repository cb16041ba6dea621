// A tiny in-process Stellar RPC (JSON-RPC 2.0 over node:http on 127.0.0.1) for tests.
// It speaks the real method and field names, so `new rpc.Server(url, { allowHttp: true })`
// from @stellar/stellar-sdk works against it unmodified. State is in memory only.
//
// It also keeps a ledger (see LoopbackLedger.ts): a clock closes a ledger every `ledgerIntervalMs`,
// sendTransaction validates like stellar-core (CAP-15 fee-bumps included) and queues, the close
// applies, and getTransaction reports the outcome. `scriptSend` scripts faults of those methods;
// `lag` makes the node answer as of an old ledger while the network goes on.
//
// Contracts: functions set with `setContractFunction`, and the emulation of OpenZeppelin's
// confidential token (LoopbackConfidentialToken.ts); getLedgerEntries serves accounts and every contract's instance
// (the token's with its instance storage, LoopbackInstance.ts). Calls run through a stand-in of the Soroban host
// (LoopbackXdr.ts): a missing contract or function, a contract error or a failed `require_auth` fails
// with the host's error text in simulation and the transaction at ledger close.
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { createHash } from "node:crypto"
import { FeeBumpTransaction, Networks, SorobanDataBuilder, StrKey, TransactionBuilder, extractBaseAddress, xdr } from "@stellar/stellar-sdk"
import { accountEntry } from "./LoopbackAccounts.ts"
import type { LoopbackAccount, LoopbackAccountSpec } from "./LoopbackAccounts.ts"
import type { LoopbackProofVerifier } from "./LoopbackProofVerifier.ts"
import { LoopbackConfidentialToken } from "./LoopbackConfidentialToken.ts"
import type { LoopbackConfidentialAccount } from "./LoopbackConfidentialToken.ts"
import type { TokenVersion } from "./ConfidentialTokenVersion.ts"
import { LoopbackLedger } from "./LoopbackLedger.ts"
import type { ContractHandler, LoopbackSendScript, LoopbackTransaction } from "./LoopbackTypes.ts"
import { BASE_FEE, BASE_RESERVE, contractCall } from "./LoopbackXdr.ts"
import { instanceContractOf, instanceEntry, wasmHashOf } from "./LoopbackInstance.ts"
import { EventsRequestError, LoopbackEventLog, tokenEvents } from "./LoopbackEvents.ts"
import type { LoopbackEvent, PublishedEvent } from "./LoopbackEvents.ts"
import type { ParsedEnvelope } from "./LoopbackXdr.ts"

export type { LoopbackAccount, LoopbackAccountSpec } from "./LoopbackAccounts.ts"
export type { LoopbackComplianceConfig, LoopbackConfidentialAccount, LoopbackConfidentialToken } from "./LoopbackConfidentialToken.ts"
export type { TokenVersion } from "./ConfidentialTokenVersion.ts"
export type {
  ContractCallContext, ContractHandler, LoopbackSendScript, LoopbackSendStatus, LoopbackTransaction, LoopbackTxStatus
} from "./LoopbackTypes.ts"
export type { LoopbackInnerResultCode, LoopbackResultCode, ParsedEnvelope } from "./LoopbackXdr.ts"
export { HostError, exactFeeBump, innermostResultCode } from "./LoopbackXdr.ts"
export { contractEvent, cursorString, LoopbackEventLog, tokenEvents } from "./LoopbackEvents.ts"
export type { LoopbackEvent, PublishedEvent } from "./LoopbackEvents.ts"

export type LoopbackFault =
  | { kind: "http500" } // answer HTTP 500 with a non-JSON-RPC body
  | { kind: "hang" } // never answer (until close)
  | { kind: "drop" } // destroy the socket without answering
  | { kind: "rpcError"; code?: number; message?: string } // JSON-RPC error object (default -32603)

/**
 * Rewrites a method's result before it is sent: for answers a node of another version (or a faulty one) might give,
 * e.g. a field dropped (`({ status, ...rest }) => rest`) or XDR the SDK cannot decode. The method itself has run.
 */
export type AnswerRewrite = (result: Record<string, unknown>, params: unknown) => unknown

export interface LoopbackCall {
  readonly method: string // "" when the body was not a JSON-RPC request
  readonly params: unknown
  /** When it arrived (Date.now()). */
  readonly at: number
}

/** A JSON-RPC error raised by a method implementation. */
export class RpcError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

/** A method implementation: receives the raw `params`, returns the `result` (or throws RpcError). */
export type MethodImpl = (params: unknown) => unknown

const PROTOCOL_VERSION = 23
const INSTANCE_TTL = 518_400 // 30 days of 5-second ledgers
const DEFAULT_LEDGER_MS = 5000 // like testnet and pubnet
const MAX_HEALTHY_LEDGER_LATENCY_S = 30 // stellar-rpc's default max-healthy-ledger-latency

/** A Go time.Duration of whole seconds as `String()` prints it: "45s", "1m30s", "1h0m5s". */
const goSeconds = (seconds: number): string => {
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

const paramsRecord = (params: unknown): Record<string, unknown> => {
  if (!isRecord(params)) throw new RpcError(-32602, "invalid parameters: expected an object")
  return params
}

export class LoopbackRpc {
  readonly url: string
  readonly networkPassphrase: string
  readonly #server: Server
  readonly #ledger: LoopbackLedger
  readonly #contracts = new Map<string, Map<string, ContractHandler>>() // contractId -> fn -> handler
  readonly #tokens = new Map<string, LoopbackConfidentialToken>()
  readonly #deployedAt = new Map<string, number>() // contractId -> the ledger it was deployed in
  readonly #calls: Array<LoopbackCall> = []
  #fault: {
    fault: LoopbackFault
    methods: ReadonlySet<string> | undefined
    remaining: number
    when: ((params: unknown) => boolean) | undefined
  } | null = null
  #rewrites: Array<{ method: string; rewrite: AnswerRewrite; when: (params: unknown) => boolean; remaining: number }> = []

  /** The method table: each entry returns the raw JSON result exactly as stellar-rpc would. */
  readonly methods = new Map<string, MethodImpl>([
    ["getHealth", () => this.#getHealth()],
    ["getNetwork", () => ({ passphrase: this.networkPassphrase, protocolVersion: PROTOCOL_VERSION })],
    ["getLatestLedger", () => this.#getLatestLedger()],
    ["getLedgerEntries", (p) => this.#getLedgerEntries(p)],
    ["simulateTransaction", (p) => this.#simulateTransaction(p)],
    ["sendTransaction", (p) => this.#sendTransaction(p)],
    ["getTransaction", (p) => this.#getTransaction(p)],
    ["getEvents", (p) => this.#getEvents(p)]
  ])

  private constructor(server: Server, url: string, networkPassphrase: string, ledgerIntervalMs: number) {
    this.#server = server
    this.url = url
    this.networkPassphrase = networkPassphrase
    this.#ledger = new LoopbackLedger({
      passphrase: networkPassphrase,
      intervalMs: ledgerIntervalMs,
      contract: (contractId) => this.#contracts.get(contractId)
    })
  }

  /**
   * Listens on 127.0.0.1 (a random port unless given). Default passphrase: Networks.TESTNET.
   * `ledgerIntervalMs` (default 5000): a ledger closes every interval; 0 closes ledgers only on
   * `advanceLedger`. The timer is unref'ed and stops on close().
   */
  static async start(options?: { networkPassphrase?: string; port?: number; ledgerIntervalMs?: number }): Promise<LoopbackRpc> {
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(options?.port ?? 0, "127.0.0.1", () => resolve())
    })
    const { port } = server.address() as AddressInfo
    const passphrase = options?.networkPassphrase ?? Networks.TESTNET
    const rpc = new LoopbackRpc(server, `http://127.0.0.1:${port}/`, passphrase, options?.ledgerIntervalMs ?? DEFAULT_LEDGER_MS)
    server.on("request", (req: IncomingMessage, res: ServerResponse) => rpc.#onRequest(req, res))
    return rpc
  }

  /** The network's latest closed ledger (whatever this node serves, see `lag`): 1000 at start, +1 per close. */
  get latestLedger(): number {
    return this.#ledger.latestLedger
  }

  /** Closes `by` ledgers now (applying the queued transactions in the first); returns the latest ledger. */
  advanceLedger(by = 1): number {
    for (let i = 0; i < by; i++) this.#ledger.close()
    return this.#ledger.latestLedger
  }

  /** Wall-clock ms at which `ledger` closed (ledger 1000: at start); undefined if unknown. */
  closeTimeOf(ledger: number): number | undefined {
    return this.#ledger.closeTimeOf(ledger)
  }

  /** Resolves with the latest ledger once it reaches `sequence` (rejects on close()). */
  waitForLedger(sequence: number): Promise<number> {
    return this.#ledger.waitForLedger(sequence)
  }

  /** Creates or updates an account. Omitted fields keep their current value (or the default). */
  setAccount(spec: LoopbackAccountSpec): void {
    this.#ledger.setAccount(spec)
  }

  removeAccount(id: string): void {
    this.#ledger.removeAccount(id)
  }

  /** Current state: applied transactions move the sequence and charge the fee source's balance. */
  account(id: string): LoopbackAccount | undefined {
    return this.#ledger.account(id)
  }

  /** Deploys (if needed) a contract at `contractId` and sets one of its functions; the contract's other functions do not exist. */
  setContractFunction(contractId: string, fn: string, handler: ContractHandler): void {
    if (!StrKey.isValidContract(contractId)) throw new TypeError(`not a contract id: ${contractId}`)
    let functions = this.#contracts.get(contractId)
    if (functions === undefined) {
      functions = new Map()
      this.#contracts.set(contractId, functions)
      this.#deployedAt.set(contractId, this.#ledger.latestLedger)
    }
    functions.set(fn, handler)
  }

  /**
   * Deploys the emulation of OpenZeppelin's confidential token at `contractId`, running `version` (default
   * 8af46e2c, see ConfidentialTokenVersion.ts), and returns it (for its compliance and auditor-registry controls).
   * Once deployed, its state stays: a call naming another version upgrades its code in place, as a WASM upgrade
   * would, and a call naming none leaves the version as it is.
   */
  deployConfidentialToken(
    contractId: string,
    options?: { readonly version?: TokenVersion; readonly verifier?: LoopbackProofVerifier }
  ): LoopbackConfidentialToken {
    const token = this.#token(contractId, options?.version, options?.verifier)
    if (options?.version !== undefined && options.version !== token.version) {
      token.upgrade(options.version)
      this.#contracts.set(contractId, new Map(token.functions()))
    }
    return token
  }

  /**
   * Registers a confidential account for `address` as of the latest ledger, deploying the token if needed: random
   * 64-byte Grumpkin keys unless given, auditor 0 unless given, both balance commitments the identity.
   */
  registerConfidential(
    contractId: string,
    address: string,
    account?: { viewingPublicKey?: Uint8Array; spendingPublicKey?: Uint8Array; auditorId?: number }
  ): { viewingPublicKey: Uint8Array; spendingPublicKey: Uint8Array; auditorId: number } {
    return this.#token(contractId).register(address, account)
  }

  /**
   * Registers `address` as `registerConfidential` does and publishes the token's `register` event for it in the
   * next ledger, as the token's `register` function would (mod.rs `emit_register`).
   */
  registerConfidentialWithEvent(
    contractId: string,
    address: string,
    account?: { viewingPublicKey?: Uint8Array; spendingPublicKey?: Uint8Array; auditorId?: number }
  ): { viewingPublicKey: Uint8Array; spendingPublicKey: Uint8Array; auditorId: number } {
    const registered = this.registerConfidential(contractId, address, account)
    this.publishEvents(contractId, [tokenEvents.register(address, registered.auditorId)])
    return registered
  }

  /**
   * Publishes arbitrary events of `contractId` in the next ledger, in one transaction of their own (event indexes
   * 0, 1, …), after that ledger's submitted transactions. `tokenEvents` builds the confidential token's.
   */
  publishEvents(contractId: string, events: ReadonlyArray<PublishedEvent>): void {
    if (!StrKey.isValidContract(contractId)) throw new TypeError(`not a contract id: ${contractId}`)
    this.#ledger.publishAtClose(contractId, events)
  }

  /** Every contract event the node holds, oldest first (whatever its retention window still serves). */
  get events(): ReadonlyArray<LoopbackEvent> {
    return this.#ledger.eventLog.all
  }

  /** The id getEvents gives an event. */
  eventId(event: LoopbackEvent): string {
    return LoopbackEventLog.id(event)
  }

  /**
   * The node's retention window in ledgers (default 120,960, stellar-rpc's 7 days): getEvents, getTransaction and
   * getHealth serve only the latest `ledgers` ledgers. Shrinking it makes older ledgers unretrievable, as time does.
   */
  setRetention(ledgers: number): void {
    this.#ledger.setRetention(ledgers)
  }

  /** Removes `address`'s confidential account (from the latest ledger on). */
  unregisterConfidential(contractId: string, address: string): void {
    this.#tokens.get(contractId)?.unregister(address)
  }

  /** The confidential account as it stands now, for assertions; undefined when unregistered or no token there. */
  confidentialAccount(contractId: string, address: string): LoopbackConfidentialAccount | undefined {
    return this.#tokens.get(contractId)?.account(address)
  }

  #token(contractId: string, version?: TokenVersion, verifier?: LoopbackProofVerifier): LoopbackConfidentialToken {
    let token = this.#tokens.get(contractId)
    if (token === undefined) {
      if (this.#contracts.has(contractId)) throw new Error(`another contract is deployed at ${contractId}`)
      token = new LoopbackConfidentialToken(contractId, () => this.#ledger.latestLedger, {
        ...(version === undefined ? {} : { version }),
        ...(verifier === undefined ? {} : { verifier }),
        publish: (events) => this.publishEvents(contractId, events)
      })
      for (const [fn, handler] of token.functions()) this.setContractFunction(contractId, fn, handler)
      for (const [fn, handler] of token.underlyingFunctions()) this.setContractFunction(token.underlyingAsset, fn, handler)
      if (verifier !== undefined) {
        for (const [registry, fns] of token.registryFunctions()) for (const [fn, handler] of fns) this.setContractFunction(registry, fn, handler)
      }
      this.#tokens.set(contractId, token)
    }
    return token
  }

  /**
   * Makes this RPC node lag: until `lag(null)`, it answers every method as of ledger `asOfLedger` (a closed ledger),
   * like a stellar-rpc whose ingestion stalled there — getLatestLedger, getHealth (unhealthy, as stellar-rpc is,
   * once that ledger closed more than 30 s ago), the latestLedger of getTransaction, sendTransaction and
   * simulateTransaction, accounts and contract state, and NOT_FOUND for transactions of later ledgers. The network
   * goes on: ledgers close, sendTransaction still queues on it, transactions apply. `lag(null)` catches up.
   */
  lag(asOfLedger: number | null): void {
    this.#ledger.lag(asOfLedger)
  }

  /** The ledger this node lags at, or null when it is up to date. */
  get lagging(): number | null {
    return this.#ledger.lagging
  }

  /**
   * Injects a fault, checked before method dispatch. `methods` limits it to those JSON-RPC methods;
   * `times` makes it apply to that many matching requests, after which it clears itself; `when` limits it to requests
   * whose params satisfy it (e.g. one transaction's sends).
   */
  setFault(
    fault: LoopbackFault | null,
    options?: { methods?: ReadonlyArray<string>; times?: number; when?: (params: unknown) => boolean }
  ): void {
    const methods = options?.methods === undefined ? undefined : new Set(options.methods)
    this.#fault = fault === null ? null : { fault, methods, remaining: options?.times ?? Number.POSITIVE_INFINITY, when: options?.when }
  }

  /**
   * Rewrites the answers of `method` (after the method ran, so a sent transaction is still queued) for the next
   * `times` matching requests (default: until `clearRewrites`); `when` limits it to requests whose params satisfy it.
   */
  rewriteAnswers(method: string, rewrite: AnswerRewrite, options?: { times?: number; when?: (params: unknown) => boolean }): void {
    this.#rewrites.push({ method, rewrite, when: options?.when ?? (() => true), remaining: options?.times ?? Number.POSITIVE_INFINITY })
  }

  clearRewrites(): void {
    this.#rewrites = []
  }

  /**
   * Scripts the outcome of the next `times` (default 1) sendTransaction calls whose envelope
   * satisfies `match` (default: any); scripts queue up FIFO, e.g. `scriptSend({ kind:
   * "tryAgainLater" }, { times: 2 })` then a normal send. See LoopbackSendScript for the kinds.
   */
  scriptSend(script: LoopbackSendScript, options?: { times?: number; match?: (tx: ParsedEnvelope) => boolean }): void {
    this.#ledger.scriptSend(script, options)
  }

  clearScripts(): void {
    this.#ledger.clearScripts()
  }

  /** What became of one transaction hash (hex, the envelope's own hash): envelope, sends, status, ledger. */
  transaction(hash: string): LoopbackTransaction | undefined {
    return this.#ledger.transaction(hash)
  }

  /** Every decodable envelope sent, by hash, in order of first receipt. */
  get transactions(): ReadonlyArray<LoopbackTransaction> {
    return this.#ledger.transactions
  }

  /** How many times sendTransaction received the envelope with this hash (whatever the answer). */
  sendCount(hash: string): number {
    return this.#ledger.sendCount(hash)
  }

  /** Every request received, in order (including faulted and malformed ones). */
  get calls(): ReadonlyArray<LoopbackCall> {
    return this.#calls
  }

  resetCalls(): void {
    this.#calls.length = 0
  }

  /** Stops listening and destroys every connection, including hanging requests. */
  close(): Promise<void> {
    this.#ledger.stop()
    return new Promise((resolve, reject) => {
      this.#server.close((err) => (err === undefined ? resolve() : reject(err)))
      this.#server.closeAllConnections()
    })
  }

  // ---- HTTP / JSON-RPC plumbing ----

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const ignore = () => {} // client aborts / dropped sockets must not crash the test process
    req.on("error", ignore)
    res.on("error", ignore)
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => void this.#handle(Buffer.concat(chunks).toString("utf8"), req, res))
  }

  async #handle(text: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown
    let parsed = true
    try { body = JSON.parse(text) } catch { parsed = false }
    const request = isRecord(body) ? body : undefined
    const method = typeof request?.method === "string" ? request.method : undefined
    const id = request?.id ?? null
    this.#calls.push({ method: method ?? "", params: request?.params, at: Date.now() })

    const fault = this.#takeFault(method, request?.params)
    if (fault !== undefined) {
      switch (fault.kind) {
        case "http500":
          res.writeHead(500, { "content-type": "text/plain" }).end("internal server error")
          return
        case "hang":
          return // the response stays open until the client gives up or close() is called
        case "drop":
          req.socket.destroy()
          return
        case "rpcError":
          return this.#reply(res, id, { error: { code: fault.code ?? -32603, message: fault.message ?? "injected fault" } })
      }
    }

    if (!parsed) return this.#reply(res, null, { error: { code: -32700, message: "parse error" } })
    if (request === undefined || request.jsonrpc !== "2.0" || method === undefined) {
      return this.#reply(res, id, { error: { code: -32600, message: "invalid request" } })
    }
    const impl = this.methods.get(method)
    if (impl === undefined) return this.#reply(res, id, { error: { code: -32601, message: "method not found" } })
    try {
      const result = await impl(request.params ?? null)
      this.#reply(res, id, { result: this.#rewritten(method, request.params ?? null, result) })
    } catch (e) {
      const error = e instanceof RpcError ? { code: e.code, message: e.message } : { code: -32603, message: String(e) }
      this.#reply(res, id, { error })
    }
  }

  #rewritten(method: string, params: unknown, result: unknown): unknown {
    const entry = this.#rewrites.find((r) => r.method === method && r.remaining > 0 && r.when(params))
    if (entry === undefined || !isRecord(result)) return result
    entry.remaining -= 1
    this.#rewrites = this.#rewrites.filter((r) => r.remaining > 0)
    return entry.rewrite(result, params)
  }

  #takeFault(method: string | undefined, params: unknown): LoopbackFault | undefined {
    const active = this.#fault
    if (active === null) return undefined
    if (active.methods !== undefined && (method === undefined || !active.methods.has(method))) return undefined
    if (active.when !== undefined && !active.when(params)) return undefined
    active.remaining -= 1
    if (active.remaining <= 0) this.#fault = null
    return active.fault
  }

  #reply(res: ServerResponse, id: unknown, payload: { result: unknown } | { error: { code: number; message: string } }): void {
    const body = JSON.stringify({ jsonrpc: "2.0", id, ...payload })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body)
  }

  // ---- methods ----

  #getHealth() {
    const latestLedger = this.#ledger.servedLedger
    // stellar/stellar-rpc, cmd/stellar-rpc/internal/methods/get_health.go; a stopped clock (ledgerIntervalMs: 0) stays healthy
    const latency = Math.round(Date.now() / 1000 - this.#ledger.closeTimeSeconds(latestLedger))
    if (this.#ledger.lagging !== null && latency > MAX_HEALTHY_LEDGER_LATENCY_S) {
      const max = goSeconds(MAX_HEALTHY_LEDGER_LATENCY_S)
      throw new RpcError(-32603, `latency (${goSeconds(latency)}) since last known ledger closed is too high (>${max})`)
    }
    return { status: "healthy", latestLedger, oldestLedger: this.#ledger.oldestLedger, ledgerRetentionWindow: this.#ledger.retention }
  }

  #getLatestLedger() {
    const sequence = this.#ledger.servedLedger
    const closeTime = BigInt(this.#ledger.closeTimeSeconds(sequence))
    const hash = createHash("sha256").update(`${this.networkPassphrase}/${sequence}`).digest()
    const zero = new Uint8Array(32)
    const header = new xdr.LedgerHeader({
      ledgerVersion: PROTOCOL_VERSION, previousLedgerHash: zero, txSetResultHash: zero, bucketListHash: zero,
      scpValue: new xdr.StellarValue({ txSetHash: zero, closeTime, upgrades: [], ext: xdr.StellarValueExt.stellarValueBasic() }),
      ledgerSeq: sequence, totalCoins: 10n ** 18n, feePool: 0n, inflationSeq: 0, idPool: 0n,
      baseFee: Number(BASE_FEE), baseReserve: Number(BASE_RESERVE), maxTxSetSize: 1000, skipList: [zero, zero, zero, zero],
      ext: xdr.LedgerHeaderExt.v0()
    })
    const meta = xdr.LedgerCloseMeta.v0(new xdr.LedgerCloseMetaV0({
      ledgerHeader: new xdr.LedgerHeaderHistoryEntry({ hash, header, ext: xdr.LedgerHeaderHistoryEntryExt.v0() }),
      txSet: new xdr.TransactionSet({ previousLedgerHash: zero, txs: [] }),
      txProcessing: [], upgradesProcessing: [], scpInfo: []
    }))
    return {
      id: hash.toString("hex"), sequence, protocolVersion: PROTOCOL_VERSION, closeTime: closeTime.toString(),
      headerXdr: header.toXdr("base64"), metadataXdr: meta.toXdr("base64")
    }
  }

  #getLedgerEntries(params: unknown) {
    const keys = paramsRecord(params).keys
    if (!Array.isArray(keys) || keys.length === 0 || keys.length > 200 || !keys.every((k) => typeof k === "string")) {
      throw new RpcError(-32602, "keys must be an array of 1..200 base64 LedgerKey strings")
    }
    const entries: Array<{ key: string; xdr: string; lastModifiedLedgerSeq: number }> = []
    for (const raw of keys) {
      let key: xdr.LedgerKey
      try { key = xdr.LedgerKey.fromXdr(raw, "base64") } catch { throw new RpcError(-32602, `cannot unmarshal key value ${raw}`) }
      const instanceOf = instanceContractOf(key)
      if (instanceOf !== undefined) {
        const entry = this.#instance(instanceOf)
        if (entry !== undefined) entries.push({ key: key.toXdr("base64"), ...entry })
        continue
      }
      if (key.type !== "account") continue // accounts and contract instances are modelled; everything else is absent
      const id = StrKey.encodeEd25519PublicKey(key.account.accountId.ed25519.toBytes())
      const account = this.#ledger.accountAsOf(id, this.#ledger.servedLedger)
      if (account === undefined) continue
      entries.push({
        key: key.toXdr("base64"),
        xdr: xdr.LedgerEntryData.account(accountEntry(account)).toXdr("base64"),
        lastModifiedLedgerSeq: account.lastModifiedLedger
      })
    }
    return { entries, latestLedger: this.#ledger.servedLedger }
  }

  /**
   * A deployed contract's instance as of the served ledger: the token's with its instance storage, any other contract's
   * with none. Its TTL is extended far past any test (INSTANCE_TTL ledgers after its deployment).
   */
  #instance(contractId: string): { xdr: string; lastModifiedLedgerSeq: number; liveUntilLedgerSeq: number } | undefined {
    const deployedAt = this.#deployedAt.get(contractId)
    if (deployedAt === undefined || deployedAt > this.#ledger.servedLedger) return undefined
    const token = this.#tokens.get(contractId)
    const entry = token === undefined
      ? instanceEntry(contractId, wasmHashOf(`contract ${contractId}`), [])
      : instanceEntry(contractId, wasmHashOf(`OpenZeppelin confidential token ${token.version}`), token.instanceStorage())
    return { xdr: entry, lastModifiedLedgerSeq: deployedAt, liveUntilLedgerSeq: deployedAt + INSTANCE_TTL }
  }

  #simulateTransaction(params: unknown) {
    const envelope = paramsRecord(params).transaction
    if (typeof envelope !== "string") throw new RpcError(-32602, "transaction must be a base64 TransactionEnvelope")
    const latestLedger = this.#ledger.servedLedger
    const failed = (error: string) => ({ latestLedger, error })
    let tx
    try { tx = TransactionBuilder.fromXdr(envelope, this.networkPassphrase) } catch { return failed("Could not unmarshal transaction") }
    const inner = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx
    const [op, ...rest] = inner.operations
    if (op === undefined || rest.length > 0) return failed("Transaction contains more than one operation")
    if (op.type !== "invokeHostFunction") return failed(`Transaction contains unsupported operation type: ${op.type}`)
    if (op.func.type !== "hostFunctionTypeInvokeContract") {
      return failed(`HostError: Error(Context, InvalidAction): loopback RPC only simulates invokeContract`)
    }
    const call = contractCall(op)!
    const source = extractBaseAddress(op.source ?? inner.source)
    const outcome = this.#ledger.invoke(call, { phase: "simulate", source, auth: op.auth ?? [], ledger: latestLedger + 1, asOf: latestLedger })
    if (!outcome.ok) return failed(outcome.error.text)
    return {
      latestLedger,
      minResourceFee: "100",
      results: [{ xdr: outcome.value.toXdr("base64"), auth: outcome.auth.map((entry) => entry.toXdr("base64")) }],
      transactionData: new SorobanDataBuilder().setResourceFee(100).build().toXdr("base64"),
      cost: { cpuInsns: "0", memBytes: "0" },
      events: []
    }
  }

  #sendTransaction(params: unknown) {
    const envelope = paramsRecord(params).transaction
    if (typeof envelope !== "string") throw new RpcError(-32602, "invalid_xdr")
    const result = this.#ledger.send(envelope)
    if (result === undefined) throw new RpcError(-32602, "invalid_xdr") // what stellar-rpc answers
    return result
  }

  #getEvents(params: unknown) {
    try {
      return this.#ledger.eventLog.getEvents(params, {
        oldest: this.#ledger.oldestLedger,
        latest: this.#ledger.servedLedger,
        closeTime: (ledger) => this.#ledger.closeTimeSeconds(ledger)
      })
    } catch (e) {
      if (e instanceof EventsRequestError) throw new RpcError(e.code, e.message)
      throw e
    }
  }

  #getTransaction(params: unknown) {
    const hash = paramsRecord(params).hash
    if (typeof hash !== "string" || hash.length !== 64) {
      throw new RpcError(-32602, `unexpected hash length (${typeof hash === "string" ? hash.length : 0})`)
    }
    if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new RpcError(-32602, "incorrect hash: encoding/hex: invalid byte")
    return this.#ledger.get(hash)
  }
}
