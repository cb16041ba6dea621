/**
 * What this instance knows of the RPC's ledgers, learnt from the `latestLedger` / `latestLedgerCloseTime` every answer
 * carries. Times are local milliseconds; close times are the network's, in whole seconds.
 *
 * Mirrors stellar-rpc's answers (`protocol/send_transaction.go` SendTransactionResponse and
 * `protocol/get_transaction.go` GetTransactionResponse): both carry `latestLedger` (the latest ledger the node had
 * ingested when it answered) and `latestLedgerCloseTime` (unix seconds, sent as a JSON string).
 */
export interface LedgerState {
  /** The latest ledger an answer reported (0: none yet). */
  readonly latest: number
  /** When an answer first reported `latest`. */
  readonly seenAt: number
  /** Start of the latest request whose answer still reported `latest`: the next ledger was not served before it. */
  readonly quietSince: number
  /** Recent ledgers' (sequence, close time in ms), oldest first: their spread is the close interval. */
  readonly closes: ReadonlyArray<readonly [number, number]>
  /** Recent ledgers' (sequence, local ms when first seen), oldest first. */
  readonly seens: ReadonlyArray<readonly [number, number]>
  /** Recent bounds (low, high] of the delay from a ledger's close time to the RPC serving it, oldest first. */
  readonly lags: ReadonlyArray<readonly [number, number]>
  /** Looks past the predicted visibility of the next ledger that did not see it, and when the last one answered. */
  readonly misses: number
  readonly missedAt: number
}

export const initialLedgerState: LedgerState = {
  latest: 0,
  seenAt: Number.NEGATIVE_INFINITY,
  quietSince: Number.NEGATIVE_INFINITY,
  closes: [],
  seens: [],
  lags: [],
  misses: 0,
  missedAt: Number.NEGATIVE_INFINITY
}

const KEPT = 8
/** Stellar's target close time: assumed until the network shows its own. */
const PRIOR_INTERVAL_MS = 5_000
const MAX_INTERVAL_MS = 10_000
/** Ledgers faster than this are looked for at once: waiting for a prediction would cost more than a look. */
const FAST_INTERVAL_MS = 250
/** Looked for this long after the predicted visibility (at most a tenth of the interval). */
const MARGIN_MS = 30
const RECHECK_FIRST_MS = 100
const UNSURE_LAG_MS = 100
const RECHECK_MAX_MS = 1_000

const spread = (points: ReadonlyArray<readonly [number, number]>) => {
  const first = points[0]
  const last = points[points.length - 1]
  return first === undefined || last === undefined || last[0] <= first[0] ? undefined : (last[1] - first[1]) / (last[0] - first[0])
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? undefined : sorted[Math.floor(sorted.length / 2)]
}

/**
 * The close interval: the mean over the recent close times, unless ledgers have lately been seen coming fast (close
 * times are whole seconds, and a network may close ledgers on demand); undefined until two ledgers are known.
 */
export const intervalOf = (state: LedgerState): number | undefined => {
  const byCloses = spread(state.closes)
  const bySight = median(state.seens.slice(1).map((point, i) => spread([state.seens[i]!, point])!))
  const interval = bySight !== undefined && (byCloses === undefined || bySight < FAST_INTERVAL_MS) ? bySight : byCloses
  return interval === undefined ? undefined : Math.min(MAX_INTERVAL_MS, Math.max(0, interval))
}

/**
 * The RPC's lag behind close times (its ingestion delay plus the close time's truncation to seconds, and any clock
 * skew), from what the recent ledgers' bounds agree on, the newest first, never negative: their middle when they are
 * close, else just past the lower bound (a look that comes too early is followed by quick rechecks, which narrow it).
 */
export const lagOf = (state: LedgerState): number => {
  let low = 0
  let high = Number.POSITIVE_INFINITY
  for (let i = state.lags.length - 1; i >= 0; i--) {
    const [lo, hi] = state.lags[i]!
    if (Math.max(low, lo) > Math.min(high, hi)) break
    low = Math.max(low, lo)
    high = Math.min(high, hi)
  }
  return low + Math.min((high - low) / 2, UNSURE_LAG_MS)
}

/**
 * When the ledger after `latest` should be served (-Infinity before any answer), assuming Stellar's 5 s until the
 * network shows its own interval. Never later than one interval after `latest` was first seen, whatever the close
 * times say.
 */
export const nextVisible = (state: LedgerState): number => {
  const close = state.closes[state.closes.length - 1]
  if (close === undefined) return Number.NEGATIVE_INFINITY
  const interval = intervalOf(state) ?? PRIOR_INTERVAL_MS
  return Math.min(close[1] + interval + lagOf(state), state.seenAt + interval)
}

/**
 * Takes in one answer: `ledger` and its `closeTime` (unix seconds), for a request sent at `sentAt` and answered at
 * `now`. A new ledger was served after the last answer that did not show it and before this one: that bounds the
 * RPC's lag behind the close time.
 */
export const observe = (state: LedgerState, ledger: number, closeTime: number, sentAt: number, now: number): LedgerState => {
  if (ledger < state.latest || !Number.isFinite(ledger) || !Number.isFinite(closeTime)) return state
  if (ledger === state.latest) return { ...state, quietSince: Math.max(state.quietSince, sentAt) }
  const closedAt = closeTime * 1000
  const last = state.closes[state.closes.length - 1]
  const closes = last !== undefined && closedAt < last[1] ? [] : state.closes
  return {
    latest: ledger,
    seenAt: now,
    quietSince: sentAt,
    closes: [...closes, [ledger, closedAt] as const].slice(-KEPT),
    seens: [...state.seens, [ledger, now] as const].slice(-KEPT),
    lags: [...state.lags, [state.quietSince - closedAt, now - closedAt] as const].slice(-KEPT),
    misses: 0,
    missedAt: Number.NEGATIVE_INFINITY
  }
}

/** A look for the ledger after `seen` that did not find it (or got no answer): the next one backs off a little. */
export const missed = (state: LedgerState, seen: number, now: number): LedgerState =>
  state.latest > seen ? state : { ...state, misses: state.misses + 1, missedAt: Math.max(state.missedAt, now) }

/**
 * When a waiter that last saw ledger `seen` should look next: at once when a later ledger is known, or when ledgers
 * are fast or not yet timed (then again shortly, 100 ms growing by half each time, until the next ledger is due);
 * else just after the next ledger should be served. A ledger overdue is looked for again after half the time it is
 * overdue by: 100 ms at first, at most 1 s, never more than one interval.
 */
export const nextLook = (state: LedgerState, seen: number, now: number): number => {
  if (state.latest > seen) return now
  const interval = intervalOf(state)
  const fast = interval === undefined || interval < FAST_INTERVAL_MS
  const due = nextVisible(state) + Math.min(MARGIN_MS, (interval ?? PRIOR_INTERVAL_MS) / 10)
  if (state.misses === 0) return fast ? now : due
  const cap = Math.min(RECHECK_MAX_MS, Math.max(interval ?? RECHECK_MAX_MS, 10))
  const overdue = state.missedAt - due
  if (overdue < 0) return Math.min(state.missedAt + Math.min(RECHECK_FIRST_MS * 1.5 ** (state.misses - 1), cap), due)
  return state.missedAt + Math.min(cap, Math.max(RECHECK_FIRST_MS, overdue / 2))
}
