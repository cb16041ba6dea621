// The service's event archive (src/Archive/Api.ts, OpenZeppelin's INDEXER.md §6 C1/C2) as Replay.ts's input. Each
// archived event keeps its topics and data as base64 XDR ScVals exactly as on chain; they are read here as
// soroban-sdk's `#[contractevent]` encodes the 8af46e2c structs of mod.rs ("EVENTS"): the snake_case name and the
// `#[topic]` addresses as topics, the other fields as a map (test/support/ConfidentialEvents.ts builds the same).
import { scValToNative, xdr } from "@stellar/stellar-sdk"
import { Effect, Either } from "effect"
import type { ArchiveEvent } from "../../../../src/Archive/Api.ts"
import { makeGroupClient } from "../../Client.ts"
import { compareCursor, type Cursor, type WalletState } from "./Opening.ts"
import { recoveryStart, type ReplayEvent } from "./Replay.ts"
import { ArchiveEventInvalid } from "./StateErrors.ts"

/** The fields of an archived event read here (the route's JSON and its decoded form both have them). */
export type ArchivedEvent = Pick<ArchiveEvent, "id" | "ledger" | "txHash" | "topics" | "value">

/** The events that move an account's commitments (storage.rs); every other event leaves the openings alone. */
const MOVES_BALANCES = new Set(["register", "deposit", "merge", "transfer", "withdraw", "spender_transfer", "set_spender", "revoke_spender"])

const native = (base64: string): unknown => scValToNative(xdr.ScVal.fromXDR(base64, "base64"))

/** Reads one archived event; undefined for an event that moves no balance (configuration, freezes). */
const read = (event: ArchivedEvent): ReplayEvent | undefined => {
  const bad = (reason: string) => new ArchiveEventInvalid({ id: event.id, reason })
  const [name, ...addresses] = event.topics.map(native)
  if (name === "clawback") throw bad("a clawback belongs to a newer token version than 8af46e2c")
  if (typeof name !== "string" || !MOVES_BALANCES.has(name)) return undefined
  const data = native(event.value)
  if (typeof data !== "object" || data === null) throw bad("its data is not a map")
  const fields = new Map(Object.entries(data))
  const address = (i: number) => {
    const a = addresses[i]
    if (typeof a !== "string") throw bad(`topic ${i + 1} is not an address`)
    return a
  }
  const bytes = (field: string, length: 32 | 64) => {
    const b = fields.get(field)
    if (!(b instanceof Uint8Array) || b.length !== length) throw bad(`${field} is not ${length} bytes`)
    return new Uint8Array(b)
  }
  const amount = () => {
    const a = fields.get("amount")
    if (typeof a !== "bigint" || a < 0n) throw bad("amount is not a non-negative i128")
    return a
  }
  const newer = (field: string) => {
    if (!fields.has(field)) throw bad(`${name} without ${field}: a newer token version than 8af46e2c`)
  }
  const base = { id: event.id, ledger: event.ledger, txHash: event.txHash }
  switch (name) {
    case "register":
    case "merge":
      return { ...base, type: name, account: address(0) }
    case "deposit":
      return { ...base, type: name, from: address(0), to: address(1), amount: amount() }
    case "withdraw":
      return { ...base, type: name, from: address(0), to: address(1), amount: amount(), sigma: bytes("sigma", 32), bTilde: bytes("b_tilde", 32) }
    case "transfer":
      return {
        ...base, type: name, from: address(0), to: address(1),
        rE: bytes("r_e_point", 64), vTilde: bytes("v_tilde", 32), sigma: bytes("sigma", 32), bTilde: bytes("b_tilde", 32)
      }
    case "spender_transfer":
      // The recipient's pads absorb the delegation's salt before rotation, which the event names `sigma_a`
      // (spender_transfer/src/main.nr O7, O9; storage.rs `confidential_transfer_from`).
      newer("sigma_a")
      return {
        ...base, type: name, spender: address(0), from: address(1), to: address(2),
        rE: bytes("r_e_point", 64), vTilde: bytes("v_tilde", 32), sigma: bytes("sigma_a", 32)
      }
    default:
      // set_spender, revoke_spender: checkpoints at 8af46e2c; newer OZ's revoke_spender carries no b_tilde.
      newer("b_tilde")
      return { ...base, type: name === "set_spender" ? name : "revoke_spender", account: address(0), spender: address(1), sigma: bytes("sigma", 32), bTilde: bytes("b_tilde", 32) }
  }
}

/** One archived event as a replay event (undefined: moves no balance), or why it cannot be read. */
export const decodeArchiveEvent = (event: ArchivedEvent): Either.Either<ReplayEvent | undefined, ArchiveEventInvalid> => {
  try {
    return Either.right(read(event))
  } catch (error) {
    return Either.left(error instanceof ArchiveEventInvalid ? error : new ArchiveEventInvalid({ id: event.id, reason: "not an XDR ScVal" }))
  }
}

/** Replay events and whether the archive vouched for a gap-free range (INDEXER.md C3). */
export interface ArchivedHistory {
  readonly events: ReadonlyArray<ReplayEvent>
  readonly complete: boolean
}

/** The account's events after `after` (all of them without), page by page, through the archive's public route. */
export const fetchAccountEvents = (baseUrl: string, contract: string, account: string, after: Cursor | undefined) =>
  Effect.gen(function*() {
    const archive = yield* makeGroupClient("archive", baseUrl)
    const events: Array<ReplayEvent> = []
    let complete = true
    let cursor: string | undefined
    do {
      const page = yield* archive.accountEvents({
        path: { contractId: contract, account },
        urlParams: { limit: 1000, ...(after === undefined ? {} : { fromLedger: after.ledger }), ...(cursor === undefined ? {} : { cursor }) }
      })
      complete &&= page.complete
      for (const item of page.events) {
        if (after !== undefined && compareCursor(item, after) <= 0) continue
        const event = yield* decodeArchiveEvent(item)
        if (event !== undefined) events.push(event)
      }
      cursor = page.cursor ?? undefined
    } while (cursor !== undefined)
    return { events, complete } satisfies ArchivedHistory
  })

/**
 * A recovery after local state is lost (OpenZeppelin/stellar-contracts docs/protocol/wallet-state.md "Recovery"): the archive's checkpoint route
 * names the anchor T_0, and the account's events after it replay onto `recoveryStart` (Replay.ts says why that is
 * exact). Check the result with Consistency.ts before using it; `complete: false` means the archive lacks part of
 * the window, and the check will likely fail.
 */
export const fetchRecoveryWindow = (baseUrl: string, contract: string, account: string) =>
  Effect.gen(function*() {
    const archive = yield* makeGroupClient("archive", baseUrl)
    const checkpoint = yield* archive.checkpoint({ path: { contractId: contract, account }, urlParams: {} })
    const anchor = checkpoint.anchor === null ? undefined : { ledger: checkpoint.anchor.ledger, id: checkpoint.anchor.id }
    const history = yield* fetchAccountEvents(baseUrl, contract, account, anchor)
    const start: WalletState = recoveryStart(account, contract, anchor)
    return { start, events: history.events, complete: checkpoint.complete && history.complete }
  })
