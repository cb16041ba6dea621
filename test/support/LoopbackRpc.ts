// A tiny in-process Stellar RPC (JSON-RPC 2.0 over node:http on 127.0.0.1) for tests.
// It speaks the real method and field names, so `new rpc.Server(url, { allowHttp: true })`
// from @stellar/stellar-sdk works against it unmodified. State is in memory only.
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { createHash } from "node:crypto"
import { Address, FeeBumpTransaction, Keypair, Networks, SorobanDataBuilder, StrKey, TransactionBuilder, xdr } from "@stellar/stellar-sdk"

export interface LoopbackAccountSpec {
  id: string // G... account
  sequence?: bigint // default 1n << 32n
  balance?: bigint // native stroops, default 10_000 XLM
  thresholds?: { master?: number; low?: number; medium?: number; high?: number } // defaults 1,0,0,0
  signers?: ReadonlyArray<{ key: string; weight: number }> // extra ed25519 signers (G... keys)
}

/** The stored state of an account, as returned by `LoopbackRpc.account`. */
export interface LoopbackAccount {
  readonly id: string
  readonly sequence: bigint
  readonly balance: bigint
  readonly thresholds: { readonly master: number; readonly low: number; readonly medium: number; readonly high: number }
  readonly signers: ReadonlyArray<{ readonly key: string; readonly weight: number }>
  readonly lastModifiedLedger: number
}

/** Implements one contract function; a thrown error becomes a failed simulation ("HostError: ..."). */
export type ContractHandler = (args: ReadonlyArray<xdr.ScVal>, ctx: { source: string }) => xdr.ScVal

export type LoopbackFault =
  | { kind: "http500" } // answer HTTP 500 with a non-JSON-RPC body
  | { kind: "hang" } // never answer (until close)
  | { kind: "drop" } // destroy the socket without answering
  | { kind: "rpcError"; code?: number; message?: string } // JSON-RPC error object (default -32603)

export interface LoopbackCall {
  readonly method: string // "" when the body was not a JSON-RPC request
  readonly params: unknown
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

const DEFAULT_SEQUENCE = 1n << 32n
const DEFAULT_BALANCE = 10_000n * 10_000_000n
const PROTOCOL_VERSION = 23
const FIRST_LEDGER = 1000
const LEDGER_MS = 5000 // the ledger advances by 1 every 5 s of wall clock (plus advanceLedger)
const RETENTION_WINDOW = 120_960 // stellar-rpc's default history retention (7 days)
const REGISTRY_FN = "public_key"

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

const byte = (n: number, what: string): number => {
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`${what} must be an integer in 0..255`)
  return n
}

const paramsRecord = (params: unknown): Record<string, unknown> => {
  if (!isRecord(params)) throw new RpcError(-32602, "invalid parameters: expected an object")
  return params
}

export class LoopbackRpc {
  readonly url: string
  readonly networkPassphrase: string
  readonly #server: Server
  readonly #accounts = new Map<string, LoopbackAccount>()
  readonly #handlers = new Map<string, ContractHandler>() // key: `${contractId}/${fn}`
  readonly #registries = new Map<string, Map<string, Uint8Array>>() // contractId -> address -> key
  readonly #calls: Array<LoopbackCall> = []
  readonly #startedAt = Date.now()
  #ledgerOffset = 0
  #fault: { fault: LoopbackFault; methods: ReadonlySet<string> | undefined; remaining: number } | null = null

  /**
   * The method table. `sendTransaction` and `getTransaction` are not implemented yet:
   * add them here (`this.methods.set("sendTransaction", (params) => ...)`), returning the
   * raw JSON result exactly as stellar-rpc would.
   */
  readonly methods = new Map<string, MethodImpl>([
    ["getHealth", () => this.#getHealth()],
    ["getNetwork", () => ({ passphrase: this.networkPassphrase, protocolVersion: PROTOCOL_VERSION })],
    ["getLatestLedger", () => this.#getLatestLedger()],
    ["getLedgerEntries", (p) => this.#getLedgerEntries(p)],
    ["simulateTransaction", (p) => this.#simulateTransaction(p)]
  ])

  private constructor(server: Server, url: string, networkPassphrase: string) {
    this.#server = server
    this.url = url
    this.networkPassphrase = networkPassphrase
  }

  /** Listens on 127.0.0.1 (a random port unless given). Default passphrase: Networks.TESTNET. */
  static async start(options?: { networkPassphrase?: string; port?: number }): Promise<LoopbackRpc> {
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(options?.port ?? 0, "127.0.0.1", () => resolve())
    })
    const { port } = server.address() as AddressInfo
    const rpc = new LoopbackRpc(server, `http://127.0.0.1:${port}/`, options?.networkPassphrase ?? Networks.TESTNET)
    server.on("request", (req: IncomingMessage, res: ServerResponse) => rpc.#onRequest(req, res))
    return rpc
  }

  /** The current ledger: 1000 at start, +1 per 5 s of wall clock, + advanceLedger() calls. */
  get latestLedger(): number {
    return FIRST_LEDGER + Math.floor((Date.now() - this.#startedAt) / LEDGER_MS) + this.#ledgerOffset
  }

  advanceLedger(by = 1): void {
    this.#ledgerOffset += by
  }

  /** Creates or updates an account. Omitted fields keep their current value (or the default). */
  setAccount(spec: LoopbackAccountSpec): void {
    Keypair.fromPublicKey(spec.id) // validates the G... key
    const prev = this.#accounts.get(spec.id)
    const t = spec.thresholds
    const signers = (spec.signers ?? prev?.signers ?? []).map((s) => {
      StrKey.decodeEd25519PublicKey(s.key)
      return { key: s.key, weight: byte(s.weight, "signer weight") }
    })
    this.#accounts.set(spec.id, {
      id: spec.id,
      sequence: spec.sequence ?? prev?.sequence ?? DEFAULT_SEQUENCE,
      balance: spec.balance ?? prev?.balance ?? DEFAULT_BALANCE,
      thresholds: {
        master: byte(t?.master ?? prev?.thresholds.master ?? 1, "master weight"),
        low: byte(t?.low ?? prev?.thresholds.low ?? 0, "low threshold"),
        medium: byte(t?.medium ?? prev?.thresholds.medium ?? 0, "medium threshold"),
        high: byte(t?.high ?? prev?.thresholds.high ?? 0, "high threshold")
      },
      signers,
      lastModifiedLedger: this.latestLedger
    })
  }

  removeAccount(id: string): void {
    this.#accounts.delete(id)
  }

  account(id: string): LoopbackAccount | undefined {
    return this.#accounts.get(id)
  }

  setContractFunction(contractId: string, fn: string, handler: ContractHandler): void {
    this.#handlers.set(`${contractId}/${fn}`, handler)
  }

  /**
   * Registers a public viewing key in a registry contract whose `public_key(id: Address) -> Option<Bytes>`
   * returns the key as scvBytes, or scvVoid for an unregistered address.
   */
  register(contractId: string, address: string, publicKey: Uint8Array): void {
    let registry = this.#registries.get(contractId)
    if (registry === undefined) {
      const entries = new Map<string, Uint8Array>()
      registry = entries
      this.#registries.set(contractId, entries)
      this.setContractFunction(contractId, REGISTRY_FN, (args) => {
        const [arg] = args
        if (arg === undefined || arg.type !== "scvAddress") throw new Error("Error(Value, UnexpectedType)")
        const key = entries.get(Address.fromScVal(arg).toString())
        return key === undefined ? xdr.ScVal.scvVoid() : xdr.ScVal.scvBytes(key)
      })
    }
    registry.set(address, Uint8Array.from(publicKey))
  }

  unregister(contractId: string, address: string): void {
    this.#registries.get(contractId)?.delete(address)
  }

  /**
   * Injects a fault, checked before method dispatch. `methods` limits it to those JSON-RPC methods;
   * `times` makes it apply to that many matching requests, after which it clears itself.
   */
  setFault(fault: LoopbackFault | null, options?: { methods?: ReadonlyArray<string>; times?: number }): void {
    const methods = options?.methods === undefined ? undefined : new Set(options.methods)
    this.#fault = fault === null ? null : { fault, methods, remaining: options?.times ?? Number.POSITIVE_INFINITY }
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
    this.#calls.push({ method: method ?? "", params: request?.params })

    const fault = this.#takeFault(method)
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
      this.#reply(res, id, { result: await impl(request.params ?? null) })
    } catch (e) {
      const error = e instanceof RpcError ? { code: e.code, message: e.message } : { code: -32603, message: String(e) }
      this.#reply(res, id, { error })
    }
  }

  #takeFault(method: string | undefined): LoopbackFault | undefined {
    const active = this.#fault
    if (active === null) return undefined
    if (active.methods !== undefined && (method === undefined || !active.methods.has(method))) return undefined
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
    const latestLedger = this.latestLedger
    const oldestLedger = Math.max(1, latestLedger - RETENTION_WINDOW + 1)
    return { status: "healthy", latestLedger, oldestLedger, ledgerRetentionWindow: RETENTION_WINDOW }
  }

  #getLatestLedger() {
    const sequence = this.latestLedger
    const closeTime = BigInt(Math.floor(this.#startedAt / 1000) + (sequence - FIRST_LEDGER) * (LEDGER_MS / 1000))
    const hash = createHash("sha256").update(`${this.networkPassphrase}/${sequence}`).digest()
    const zero = new Uint8Array(32)
    const header = new xdr.LedgerHeader({
      ledgerVersion: PROTOCOL_VERSION, previousLedgerHash: zero, txSetResultHash: zero, bucketListHash: zero,
      scpValue: new xdr.StellarValue({ txSetHash: zero, closeTime, upgrades: [], ext: xdr.StellarValueExt.stellarValueBasic() }),
      ledgerSeq: sequence, totalCoins: 10n ** 18n, feePool: 0n, inflationSeq: 0, idPool: 0n,
      baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 1000, skipList: [zero, zero, zero, zero],
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
      if (key.type !== "account") continue // only accounts are modelled; everything else is absent
      const id = StrKey.encodeEd25519PublicKey(key.account.accountId.ed25519.toBytes())
      const account = this.#accounts.get(id)
      if (account === undefined) continue
      entries.push({
        key: key.toXdr("base64"),
        xdr: xdr.LedgerEntryData.account(accountEntry(account)).toXdr("base64"),
        lastModifiedLedgerSeq: account.lastModifiedLedger
      })
    }
    return { entries, latestLedger: this.latestLedger }
  }

  #simulateTransaction(params: unknown) {
    const envelope = paramsRecord(params).transaction
    if (typeof envelope !== "string") throw new RpcError(-32602, "transaction must be a base64 TransactionEnvelope")
    const latestLedger = this.latestLedger
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
    const call = op.func.invokeContract
    const contractId = Address.fromScAddress(call.contractAddress).toString()
    const fn = call.functionName.toString()
    const handler = this.#handlers.get(`${contractId}/${fn}`)
    if (handler === undefined) {
      const known = [...this.#handlers.keys()].some((k) => k.startsWith(`${contractId}/`))
      return failed(
        known
          ? `HostError: Error(WasmVm, MissingValue): trying to invoke non-existent contract function ${fn}`
          : `HostError: Error(Storage, MissingValue): contract instance ${contractId} not found`
      )
    }
    let retval: xdr.ScVal
    try {
      retval = handler(call.args, { source: op.source ?? inner.source })
    } catch (e) {
      return failed(`HostError: ${e instanceof Error ? e.message : String(e)}`)
    }
    return {
      latestLedger,
      minResourceFee: "100",
      results: [{ xdr: retval.toXdr("base64"), auth: [] }],
      transactionData: new SorobanDataBuilder().setResourceFee(100).build().toXdr("base64"),
      cost: { cpuInsns: "0", memBytes: "0" },
      events: []
    }
  }
}

/** A real AccountEntry for the stored account; signers sorted by key like stellar-core keeps them. */
function accountEntry(account: LoopbackAccount): xdr.AccountEntry {
  const { master, low, medium, high } = account.thresholds
  const signers = account.signers
    .map((s) => ({ raw: StrKey.decodeEd25519PublicKey(s.key), weight: s.weight }))
    .sort((a, b) => Buffer.compare(a.raw, b.raw))
    .map((s) => new xdr.Signer({ key: xdr.SignerKey.signerKeyTypeEd25519(s.raw), weight: s.weight }))
  return new xdr.AccountEntry({
    accountId: Keypair.fromPublicKey(account.id).xdrPublicKey(), balance: account.balance, seqNum: account.sequence,
    numSubEntries: signers.length, inflationDest: null, flags: 0, homeDomain: "",
    thresholds: Uint8Array.from([master, low, medium, high]), signers, ext: xdr.AccountEntryExt.v0()
  })
}
