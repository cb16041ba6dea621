// Contract events for the loopback RPC: the confidential token's `#[contractevent]` structs as soroban-sdk's macro
// encodes them, and `getEvents` as stellar-rpc serves them.
//
// Events: OpenZeppelin/stellar-contracts (8af46e2), packages/tokens/src/confidential/mod.rs, "EVENTS": `Register`,
// `Deposit`, `Merge`, `Withdraw`, `Transfer`, `SpenderTransfer`, `SetSpender`, `RevokeSpender`, … . soroban-sdk's
// `#[contractevent]` (default `data_format = "map"`): the first topic is the struct's name in snake_case as a
// Symbol, then the `#[topic]` fields in order; the data is a Map of the other fields keyed by their names (a host
// map, so sorted by key).
//
// getEvents: stellar/stellar-rpc `cmd/stellar-rpc/internal/methods/get_events.go` (at 41b2f0f) with go-stellar-sdk
// `protocols/rpc/get_events.go` and `cursor.go`: the request is `startLedger` (+ optional `endLedger`, exclusive) or a
// `pagination.cursor` (not both), `pagination.limit` (default 100, at most 10,000), `filters` (at most 5, each with
// `type`, up to 5 `contractIds` and up to 5 `topics`); the scan covers at most 10,000 ledgers and never passes the
// latest ledger; a start outside the retention window is InvalidRequest "startLedger must be within the ledger range:
// {oldest} - {latest}". The answer: `events` (EventInfo: type, ledger, ledgerClosedAt RFC 3339, contractId, id,
// operationIndex, transactionIndex, txHash, topic, value), `cursor` (the last event's id when `limit` were found, else
// the end of the scanned window), `latestLedger`, `oldestLedger`, and both close times as strings.
import { Address, StrKey, xdr } from "@stellar/stellar-sdk"

/** One event as the node keeps it. */
export interface LoopbackEvent {
  readonly contractId: string
  readonly ledger: number
  /** The transaction's application order in its ledger (1-based). */
  readonly txOrder: number
  readonly txHash: string
  /** Index of the event within its transaction (its one operation). */
  readonly eventIndex: number
  readonly topics: ReadonlyArray<xdr.ScVal>
  readonly data: xdr.ScVal
  /** Unix seconds of the ledger's close. */
  readonly closeTime: number
}

/** An event a contract publishes: topics and data. */
export interface PublishedEvent {
  readonly topics: ReadonlyArray<xdr.ScVal>
  readonly data: xdr.ScVal
}

const symbol = (name: string) => xdr.ScVal.scvSymbol(name)
const address = (a: string) => Address.fromString(a).toScVal()
const bytes = (b: Uint8Array) => xdr.ScVal.scvBytes(b)

/** `#[contractevent]`: the snake_case name, the `#[topic]` fields, a map of the other fields. */
export const contractEvent = (name: string, topics: ReadonlyArray<xdr.ScVal>, data: Readonly<Record<string, xdr.ScVal>>): PublishedEvent => ({
  topics: [symbol(name), ...topics],
  data: xdr.ScVal.scvMap(
    Object.keys(data).sort().map((key) => new xdr.ScMapEntry({ key: symbol(key), val: data[key]! }))
  )
})

const i128 = (n: bigint) =>
  xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: BigInt.asIntN(64, n >> 64n), lo: BigInt.asUintN(64, n) }))

/** The confidential token's events (mod.rs), by their struct. Byte fields are BytesN<32> or, for points, BytesN<64>. */
export const tokenEvents = {
  register: (account: string, auditorId: number) => contractEvent("register", [address(account)], { auditor_id: xdr.ScVal.scvU32(auditorId) }),
  deposit: (from: string, to: string, amount: bigint) => contractEvent("deposit", [address(from), address(to)], { amount: i128(amount) }),
  merge: (account: string) => contractEvent("merge", [address(account)], {}),
  withdraw: (from: string, to: string, amount: bigint, f: { r_e_point: Uint8Array; sigma: Uint8Array; b_tilde: Uint8Array; b_tilde_aud_s: Uint8Array }) =>
    contractEvent("withdraw", [address(from), address(to)], {
      amount: i128(amount), r_e_point: bytes(f.r_e_point), sigma: bytes(f.sigma), b_tilde: bytes(f.b_tilde), b_tilde_aud_s: bytes(f.b_tilde_aud_s)
    }),
  transfer: (from: string, to: string, f: Readonly<Record<
    "r_e_point" | "v_tilde" | "sigma" | "b_tilde" | "v_tilde_aud_r" | "r_tilde_aud_r" | "v_tilde_aud_s" | "b_tilde_aud_s",
    Uint8Array
  >>) =>
    contractEvent("transfer", [address(from), address(to)], Object.fromEntries(Object.entries(f).map(([k, v]) => [k, bytes(v)]))),
  spenderTransfer: (spender: string, from: string, to: string, f: Readonly<Record<
    "r_e_point" | "v_tilde" | "sigma_a" | "v_tilde_aud_r" | "r_tilde_aud_r" | "v_tilde_aud_s" | "a_tilde_aud_s",
    Uint8Array
  >>) =>
    contractEvent(
      "spender_transfer",
      [address(spender), address(from), address(to)],
      Object.fromEntries(Object.entries(f).map(([k, v]) => [k, bytes(v)]))
    ),
  setSpender: (account: string, spender: string, liveUntilLedger: number, f: Readonly<Record<
    "r_e_point" | "sigma" | "b_tilde" | "v_tilde_aud_s" | "b_tilde_aud_s",
    Uint8Array
  >>) =>
    contractEvent("set_spender", [address(account), address(spender)], {
      live_until_ledger: xdr.ScVal.scvU32(liveUntilLedger),
      ...Object.fromEntries(Object.entries(f).map(([k, v]) => [k, bytes(v)]))
    }),
  revokeSpender: (account: string, spender: string, f: Readonly<Record<
    "r_e_point" | "sigma" | "b_tilde" | "v_tilde_aud_s" | "b_tilde_aud_s",
    Uint8Array
  >>) =>
    contractEvent("revoke_spender", [address(account), address(spender)], Object.fromEntries(Object.entries(f).map(([k, v]) => [k, bytes(v)])))
} as const

/** The contract event as TransactionMeta carries it. */
export const metaEvent = (contractId: string, event: PublishedEvent): xdr.ContractEvent =>
  new xdr.ContractEvent({
    ext: xdr.ExtensionPoint.v0(),
    contractId: new xdr.ContractId(StrKey.decodeContract(contractId)),
    type: xdr.ContractEventType.contract,
    body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics: [...event.topics], data: event.data }))
  })

/** A JSON-RPC error of getEvents (its code and message, as stellar-rpc sends them). */
export class EventsRequestError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

const LEDGER_SCAN_LIMIT = 10_000
const DEFAULT_LIMIT = 100
const MAX_LIMIT = 10_000
const TX_MASK = (1n << 20n) - 1n
const OP_MASK = (1n << 12n) - 1n
const INVALID_PARAMS = -32602
const INVALID_REQUEST = -32600

interface Cursor {
  readonly ledger: number
  readonly tx: number
  readonly op: number
  readonly event: number
}

/** go-stellar-sdk `Cursor.String()`: `%019d-%010d` of the TOID and the event index. */
export const cursorString = (c: Cursor): string =>
  `${((BigInt(c.ledger) << 32n) | (BigInt(c.tx) << 12n) | BigInt(c.op)).toString().padStart(19, "0")}-${c.event.toString().padStart(10, "0")}`

const parseCursor = (text: string): Cursor => {
  const [toid, event, ...rest] = text.split("-")
  if (rest.length > 0 || toid === undefined || event === undefined || !/^\d+$/.test(toid) || !/^\d+$/.test(event)) {
    throw new EventsRequestError(INVALID_PARAMS, `invalid event id ${text}`)
  }
  const id = BigInt(toid)
  return { ledger: Number(id >> 32n), tx: Number((id >> 12n) & TX_MASK), op: Number(id & OP_MASK), event: Number(BigInt(event) & 0xffffffffn) }
}

const compare = (a: Cursor, b: Cursor) =>
  a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

interface Filter {
  readonly types: ReadonlySet<string> | undefined
  readonly contractIds: ReadonlySet<string> | undefined
  readonly topics: ReadonlyArray<ReadonlyArray<string>> | undefined
}

const parseFilters = (raw: unknown): ReadonlyArray<Filter> => {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw new EventsRequestError(INVALID_PARAMS, "filters must be an array")
  if (raw.length > 5) throw new EventsRequestError(INVALID_PARAMS, "maximum 5 filters per request")
  return raw.map((f, i) => {
    if (!isRecord(f)) throw new EventsRequestError(INVALID_PARAMS, `filter ${i + 1} invalid`)
    const types = typeof f.type === "string" && f.type !== "" ? new Set(f.type.split(",")) : undefined
    if (types !== undefined && [...types].some((t) => t !== "system" && t !== "contract")) {
      throw new EventsRequestError(INVALID_PARAMS, `filter ${i + 1} invalid: filter type invalid: if set, type must be either 'system' or 'contract'`)
    }
    const ids = Array.isArray(f.contractIds) ? f.contractIds : []
    if (ids.length > 5) throw new EventsRequestError(INVALID_PARAMS, `filter ${i + 1} invalid: maximum 5 contract IDs per filter`)
    ids.forEach((id, j) => {
      if (typeof id !== "string" || !StrKey.isValidContract(id)) {
        throw new EventsRequestError(INVALID_PARAMS, `filter ${i + 1} invalid: contract ID ${j + 1} invalid`)
      }
    })
    const topics = Array.isArray(f.topics) ? f.topics as ReadonlyArray<ReadonlyArray<string>> : undefined
    if (topics !== undefined && topics.length > 5) throw new EventsRequestError(INVALID_PARAMS, `filter ${i + 1} invalid: maximum 5 topics per filter`)
    return { types, contractIds: ids.length === 0 ? undefined : new Set(ids as Array<string>), topics }
  })
}

/** go-stellar-sdk `TopicFilter.Matches`: "*" one segment, a trailing "**" any number, else the exact ScVal. */
const topicMatches = (filter: ReadonlyArray<string>, topics: ReadonlyArray<string>) => {
  const flexible = filter[filter.length - 1] === "**"
  const segments = flexible ? filter.slice(0, -1) : filter
  if (flexible ? topics.length < segments.length : topics.length !== segments.length) return false
  return segments.every((s, i) => s === "*" || s === "**" || s === topics[i])
}

const matches = (filters: ReadonlyArray<Filter>, e: LoopbackEvent, topics: ReadonlyArray<string>) =>
  filters.length === 0 || filters.some((f) =>
    (f.types === undefined || f.types.has("contract")) &&
    (f.contractIds === undefined || f.contractIds.has(e.contractId)) &&
    (f.topics === undefined || f.topics.length === 0 || f.topics.some((t) => topicMatches(t, topics)))
  )

/** The node's events, oldest first, and `getEvents` over them. */
export class LoopbackEventLog {
  readonly #events: Array<LoopbackEvent> = []

  add(event: LoopbackEvent): void {
    this.#events.push(event)
  }

  /** Every event emitted so far, in order. */
  get all(): ReadonlyArray<LoopbackEvent> {
    return this.#events
  }

  /** The id getEvents gives the event. */
  static id(e: LoopbackEvent): string {
    return cursorString({ ledger: e.ledger, tx: e.txOrder, op: 0, event: e.eventIndex })
  }

  /** The raw getEvents result as of the served ledger and the retention window's oldest ledger. */
  getEvents(params: unknown, range: { oldest: number; latest: number; closeTime: (ledger: number) => number }): Record<string, unknown> {
    if (!isRecord(params)) throw new EventsRequestError(INVALID_PARAMS, "invalid parameters")
    const pagination = isRecord(params.pagination) ? params.pagination : undefined
    const cursorText = typeof pagination?.cursor === "string" && pagination.cursor !== "" ? pagination.cursor : undefined
    const startLedger = typeof params.startLedger === "number" ? params.startLedger : 0
    const endLedger = typeof params.endLedger === "number" ? params.endLedger : 0
    if (cursorText !== undefined) {
      if (startLedger !== 0 || endLedger !== 0) throw new EventsRequestError(INVALID_PARAMS, "ledger ranges and cursor cannot both be set")
    } else if (startLedger <= 0) throw new EventsRequestError(INVALID_PARAMS, "startLedger must be positive")
    const rawLimit = typeof pagination?.limit === "number" ? pagination.limit : 0
    if (rawLimit > MAX_LIMIT) throw new EventsRequestError(INVALID_PARAMS, `limit must not exceed ${MAX_LIMIT}`)
    const limit = rawLimit > 0 ? rawLimit : DEFAULT_LIMIT
    const filters = parseFilters(params.filters)

    let start: Cursor = { ledger: startLedger, tx: 0, op: 0, event: 0 }
    if (cursorText !== undefined) {
      const c = parseCursor(cursorText)
      // stellar-rpc increments the event index (a uint32) to start right after the cursor
      start = { ...c, event: (c.event + 1) % 0x1_0000_0000 }
    }
    let end = Math.min(start.ledger + LEDGER_SCAN_LIMIT, range.latest + 1)
    if (endLedger !== 0) end = Math.min(endLedger, end)
    if (start.ledger < range.oldest || start.ledger > range.latest) {
      throw new EventsRequestError(INVALID_REQUEST, `startLedger must be within the ledger range: ${range.oldest} - ${range.latest}`)
    }
    const found: Array<{ e: LoopbackEvent; topics: Array<string> }> = []
    const positionOf = (e: LoopbackEvent): Cursor => ({ ledger: e.ledger, tx: e.txOrder, op: 0, event: e.eventIndex })
    let low = 0
    let high = this.#events.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (compare(positionOf(this.#events[middle]!), start) < 0) low = middle + 1
      else high = middle
    }
    for (let i = low; i < this.#events.length; i++) {
      const e = this.#events[i]!
      if (found.length >= limit) break
      if (e.ledger >= end) break
      const topics = e.topics.map((t) => t.toXdr("base64"))
      if (matches(filters, e, topics)) found.push({ e, topics })
    }
    const events = found.map(({ e, topics }) => ({
      type: "contract",
      ledger: e.ledger,
      ledgerClosedAt: new Date(e.closeTime * 1000).toISOString().replace(".000Z", "Z"),
      contractId: e.contractId,
      id: LoopbackEventLog.id(e),
      operationIndex: 0,
      transactionIndex: e.txOrder,
      txHash: e.txHash,
      ...(topics.length === 0 ? {} : { topic: topics }),
      value: e.data.toXdr("base64")
    }))
    const cursor = events.length === limit
      ? events[events.length - 1]!.id
      : cursorString({ ledger: end - 1, tx: Number(TX_MASK), op: Number(OP_MASK), event: 0xffffffff })
    return {
      events,
      cursor,
      latestLedger: range.latest,
      oldestLedger: range.oldest,
      latestLedgerCloseTime: String(range.closeTime(range.latest)),
      oldestLedgerCloseTime: String(range.closeTime(range.oldest))
    }
  }
}
