import { DateTime, Schema } from "effect"
import { documented } from "../Domain/Documented.ts"

/** The largest ledger sequence (a u32 the RPC sends as an int32). */
export const MAX_LEDGER = 2_147_483_647

const EXAMPLE_ID = "0005302424889733120-0000000000"
const EXAMPLE_TOPICS = ["AAAADwAAAAhyZWdpc3Rlcg==", "AAAAEgAAAAAAAAAAmmyB0CDX5Yry5EsZKfz+MJVHFShSh2MTxZXD8PKdIxo="]
const EXAMPLE_VALUE = "AAAAEQAAAAEAAAABAAAADwAAAAphdWRpdG9yX2lkAAAAAAADAAAAAA=="
const EXAMPLE_HASH = "3389e9f0f1a65f19736cacf544c2e825313e8447f569233bb8db39aa607c8889"

const described = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.propertySignature(schema).annotations({ description })

const ArchiveEventFields = {
  id: described(
    Schema.String,
    "The event's id exactly as Stellar RPC's getEvents gives it (`%019d-%010d`: the TOID of ledger, transaction and " +
      "operation, then the event's index), so a client stitching the archive to RPC deduplicates by it"
  ),
  ledger: described(Schema.Int, "The ledger sequence the event was emitted in"),
  ledgerClosedAt: described(Schema.DateTimeUtc, "When that ledger closed"),
  txHash: described(Schema.String, "The hash of the transaction that emitted it (hex; a fee-bump's own hash)"),
  txApplicationOrder: described(Schema.Int, "The transaction's position in its ledger (1-based)"),
  eventIndex: described(Schema.Int, "The event's index within its transaction"),
  type: described(
    Schema.String,
    "The event's name: its first topic, the `#[contractevent]` struct's name in snake_case (`register`, `deposit`, " +
      "`merge`, `withdraw`, `transfer`, `spender_transfer`, `set_spender`, `revoke_spender`; with the compliance " +
      "extension `clawback`, `frozen`, `unfrozen`, `compliance_config_changed`; configuration events such as " +
      "`verifier_set`)"
  ),
  topics: described(Schema.Array(Schema.String), "The topics, each a base64 XDR ScVal exactly as on chain"),
  value: described(Schema.String, "The data, a base64 XDR ScVal exactly as on chain (a map of the struct's other fields)")
}

/** One archived event of the confidential token (indexer.md "Archived record"). */
export class ArchiveEvent extends Schema.Class<ArchiveEvent>("ArchiveEvent")(
  ArchiveEventFields,
  documented(ArchiveEventFields, {
    description: "One event of the confidential token, verbatim",
    examples: [{
      id: EXAMPLE_ID,
      ledger: 1234567,
      ledgerClosedAt: Schema.decodeSync(Schema.DateTimeUtc)("2026-11-24T09:30:05.000Z"),
      txHash: EXAMPLE_HASH,
      txApplicationOrder: 3,
      eventIndex: 0,
      type: "register",
      topics: EXAMPLE_TOPICS,
      value: EXAMPLE_VALUE
    }]
  })
) {}

const EXAMPLE_EVENT = ArchiveEvent.make({
  id: EXAMPLE_ID,
  ledger: 1234567,
  ledgerClosedAt: Schema.decodeSync(Schema.DateTimeUtc)("2026-11-24T09:30:05.000Z"),
  txHash: EXAMPLE_HASH,
  txApplicationOrder: 3,
  eventIndex: 0,
  type: "register",
  topics: EXAMPLE_TOPICS,
  value: EXAMPLE_VALUE
})

const COMPLETE =
  "`true` only when the archive holds a gap-free history of the whole requested ledger range; `false` when part of " +
  "it was never ingested (not yet, or no longer retained by Stellar RPC when the archive tried)"

const ArchiveEventPageFields = {
  events: described(Schema.Array(ArchiveEvent), "The events of this page, in the order (ledger, txApplicationOrder, eventIndex)"),
  cursor: described(
    Schema.NullOr(Schema.String),
    "Pass it as `cursor` (with the same other parameters) for the next page; null on the last page"
  ),
  complete: described(Schema.Boolean, COMPLETE)
}

/** A page of an ordered event history (indexer.md C2, C3). */
export class ArchiveEventPage extends Schema.Class<ArchiveEventPage>("ArchiveEventPage")(
  ArchiveEventPageFields,
  documented(ArchiveEventPageFields, {
    description: "A page of archived events with the completeness of the requested range",
    examples: [{ events: [EXAMPLE_EVENT], cursor: null, complete: true }]
  })
) {}

/**
 * A page of events as the API writes it (`ArchiveEventPage`'s encoding), by hand: the history routes are public and
 * read on every request, and Schema's encoder cost several microseconds an event. test/unit/row-codecs.test.ts holds
 * it to `Schema.encode(ArchiveEventPage)` on generated pages.
 */
export const archiveEventPageToJson = (page: ArchiveEventPage): typeof ArchiveEventPage.Encoded => ({
  events: page.events.map(archiveEventToJson),
  cursor: page.cursor,
  complete: page.complete
})

export const archiveEventToJson = (event: ArchiveEvent): typeof ArchiveEvent.Encoded => ({
  id: event.id,
  ledger: event.ledger,
  ledgerClosedAt: DateTime.formatIso(event.ledgerClosedAt),
  txHash: event.txHash,
  txApplicationOrder: event.txApplicationOrder,
  eventIndex: event.eventIndex,
  type: event.type,
  topics: event.topics,
  value: event.value
})

const CheckpointFields = {
  event: described(
    Schema.NullOr(ArchiveEvent),
    "The latest checkpoint event of the account at or before the ledger — an event that publishes `(b_tilde, sigma)` " +
      "for its spendable balance: a `withdraw` or `transfer` it sent, a `set_spender` of its own, or a " +
      "`revoke_spender` of its own in the token's older shape that still carried `(b_tilde, sigma)` (the proofless " +
      "`revoke_spender` of `{a_tilde, allowance_salt}` is a fold, never a checkpoint); null when the archive holds none"
  ),
  anchor: described(
    Schema.NullOr(ArchiveEvent),
    "Where the replay starts (`T_0`): with a checkpoint, the account's latest `merge` or `clawback` at or before it, " +
      "or its `register` when it has neither; without one, its `register`. Replay every event of the account after " +
      "it: a `merge` anchor resets the receiving side, a `clawback` anchor does the same and subtracts its public " +
      "`amount` from the spendable side. Null when the archive holds none of them (its history starts after the " +
      "account's registration)"
  ),
  complete: described(
    Schema.Boolean,
    "`true` only when the archive holds a gap-free history from the anchor (or, with none, from the first ledger it " +
      "holds) through the ledger asked for: the whole window a client replays"
  )
}

/** The latest checkpoint (indexer.md C1), with the anchor of its replay window. */
export class ArchiveCheckpoint extends Schema.Class<ArchiveCheckpoint>("ArchiveCheckpoint")(
  CheckpointFields,
  documented(CheckpointFields, {
    description:
      "An account's latest checkpoint event, whose (b_tilde, sigma) re-derive its spendable balance, and the anchor " +
      "event its replay starts after",
    examples: [{ event: null, anchor: EXAMPLE_EVENT, complete: true }]
  })
) {}

const GapFields = {
  fromLedger: described(Schema.Int, "The first ledger of the gap"),
  toLedger: described(Schema.Int, "The last ledger of the gap, included")
}

/** Ledgers the archive lacks and can no longer read: below the RPC's retention floor when it tried. */
export class LedgerGap extends Schema.Class<LedgerGap>("LedgerGap")(
  GapFields,
  documented(GapFields, {
    description: "A range of ledgers the archive will never hold",
    examples: [{ fromLedger: 1230001, toLedger: 1230450 }]
  })
) {}

const StatusFields = {
  latestLedger: described(Schema.NullOr(Schema.Int), "The latest ledger Stellar RPC reported to the archive; null before it answered"),
  ingestedThrough: described(
    Schema.NullOr(Schema.Int),
    "The latest ledger the archive has fully ingested (the end of its newest contiguous range); null before the first"
  ),
  lagSeconds: described(
    Schema.NullOr(Schema.Number),
    "Seconds since the ledger it is ingested through closed: how stale the archive's tail is; null before the first"
  ),
  gaps: described(
    Schema.Array(LedgerGap),
    "The permanent gaps the archive knows of, oldest first: ledgers after its start that it never ingested and that " +
      "Stellar RPC no longer retains (below its retention floor). Empty when the archive is whole; every history or " +
      "checkpoint answer whose range crosses one says `complete: false`"
  )
}

/** Ingestion status (indexer.md C4). */
export class ArchiveStatus extends Schema.Class<ArchiveStatus>("ArchiveStatus")(
  StatusFields,
  documented(StatusFields, {
    description: "How far the archive has ingested the chain, and what it will never hold",
    examples: [{ latestLedger: 1234570, ingestedThrough: 1234570, lagSeconds: 2, gaps: [] }]
  })
) {}

const Ledger = (name: string, description: string) =>
  Schema.optional(
    Schema.NumberFromString.pipe(
      Schema.int(),
      Schema.between(1, MAX_LEDGER, { message: () => `${name} must be a ledger sequence, 1 to ${MAX_LEDGER}` })
    ).annotations({ jsonSchema: { type: "integer", minimum: 1, maximum: MAX_LEDGER } })
  ).annotations({ description })

/** The query of both event histories. */
export const EventsParams = Schema.Struct({
  fromLedger: Ledger("fromLedger", "The first ledger of the range (default: the first ledger the archive holds)"),
  toLedger: Ledger("toLedger", "The last ledger of the range, included (default: the ledger the archive is ingested through)"),
  types: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[A-Za-z0-9_]{1,32}(,[A-Za-z0-9_]{1,32}){0,15}$/, {
        message: () => "types must be comma-separated event names (at most 16)"
      })
    )
  ).annotations({ description: "Only events of these names, comma-separated (`transfer,withdraw`); applied after attribution" }),
  cursor: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^\d{19}-\d{10}$/, { message: () => "cursor must be the cursor of a previous page" }))
  ).annotations({ description: "The `cursor` of the previous page, to read the page after it; leave it out for the first page" }),
  limit: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000, { message: () => "limit must be 1 to 1000" }))
      .annotations({ jsonSchema: { type: "integer", minimum: 1, maximum: 1000 } })
  ).annotations({ description: "How many events to return, 1 to 1000 (default 100)" })
})
export type EventsParams = typeof EventsParams.Type

export const CheckpointParams = Schema.Struct({
  atLedger: Ledger("atLedger", "The ledger to look back from, included (default: the ledger the archive is ingested through)")
})
export type CheckpointParams = typeof CheckpointParams.Type
