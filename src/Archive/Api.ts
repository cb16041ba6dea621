import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotFound } from "../Domain/Errors.ts"
import { ArchiveCheckpoint, ArchiveEventPage, ArchiveStatus, CheckpointParams, EventsParams } from "./Event.ts"
import { ArchiveRateLimit } from "../RateLimit/ArchiveRateLimit.ts"

export { ArchiveCheckpoint, ArchiveEvent, ArchiveEventPage, ArchiveStatus } from "./Event.ts"

// Plain text, checked by the service: a segment that names no archived token, or no Stellar address, is 404.
const contractId = HttpApiSchema.param(
  "contractId",
  Schema.propertySignature(Schema.String.pipe(Schema.maxLength(56))).annotations({
    description: "The confidential token contract (C...) this service archives"
  })
)
const account = HttpApiSchema.param(
  "account",
  Schema.propertySignature(Schema.String.pipe(Schema.maxLength(56))).annotations({
    description: "The account (G...) or contract (C...) address"
  })
)

const PUBLIC = "Public: the events are public chain data; no session needed. Limited per client address " +
  "(`ARCHIVE_RATE_LIMIT` per `ARCHIVE_RATE_WINDOW`): 429 past it, with `Retry-After`; every answer carries " +
  "`RateLimit-Policy` and `RateLimit`."
const RANGE = "400 for a malformed parameter, `fromLedger` after `toLedger`, or a `cursor` outside the range; 404 when " +
  "`contractId` is not the token this service archives, or `account` is no Stellar address."
const ORDER = "Events come in the total order (ledger, txApplicationOrder, eventIndex), `limit` at a time (default " +
  "100): pass an answer's `cursor` as `cursor` for the next page. `complete` says whether the archive holds a " +
  "gap-free history of the whole range (indexer.md C3): a range partly never ingested, not yet or no longer " +
  "retained by Stellar RPC when the archive tried, is `false`, never silently served as complete."

/**
 * The confidential token's event archive: OpenZeppelin's indexer.md "API Surface" (C1–C4) in the service's camelCase,
 * without a version in the paths (the interface specification forbids one).
 */
export class ArchiveApi extends HttpApiGroup.make("archive")
  .add(
    HttpApiEndpoint.get("status", "/archive/status").addSuccess(ArchiveStatus)
      .annotate(OpenApi.Summary, "Archive ingestion status")
      .annotate(
        OpenApi.Description,
        "How far the archive has ingested the confidential token's events (indexer.md C4): the latest ledger Stellar " +
          "RPC reported, the latest ledger fully ingested, the seconds since that ledger closed, and the permanent " +
          "gaps (ledgers it will never hold: not ingested while Stellar RPC still retained them). A client reading " +
          "recent events from Stellar RPC and older ones here sets its seam strictly above the RPC's retention floor " +
          "(`getHealth().oldestLedger`), so that the RPC side is always served from live retention, and needs " +
          "`ingestedThrough` to reach that seam; until it does, the client treats the range crossing it as " +
          `incomplete (C3). ${PUBLIC}`
      )
  )
  .add(
    HttpApiEndpoint.get("events")`/archive/tokens/${contractId}/events`
      .setUrlParams(EventsParams)
      .addSuccess(ArchiveEventPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The token's event stream")
      .annotate(
        OpenApi.Description,
        "Every event of the confidential token in a ledger range (indexer.md C2, the per-contract stream), each with " +
          `its id and its topics and value as base64 XDR exactly as on chain, optionally only some \`types\`. ${ORDER} ` +
          `${PUBLIC} ${RANGE}`
      )
  )
  .add(
    HttpApiEndpoint.get("accountEvents")`/archive/tokens/${contractId}/accounts/${account}/events`
      .setUrlParams(EventsParams)
      .addSuccess(ArchiveEventPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "An account's event history")
      .annotate(
        OpenApi.Description,
        "The events that belong to one account in a ledger range (indexer.md C2): an event belongs to every address " +
          "in its topics (a `transfer` to its sender and its recipient, a `spender_transfer` to owner, recipient and " +
          "spender, a `revoke_spender` to owner and spender, a `clawback` to its target alone), never to the " +
          "transaction's source. `types` applies after that attribution. What a wallet replays to rebuild its " +
          `balance openings after losing its local state. ${ORDER} ${PUBLIC} ${RANGE}`
      )
  )
  .add(
    HttpApiEndpoint.get("checkpoint")`/archive/tokens/${contractId}/accounts/${account}/checkpoint`
      .setUrlParams(CheckpointParams)
      .addSuccess(ArchiveCheckpoint)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "An account's latest checkpoint")
      .annotate(
        OpenApi.Description,
        "The account's latest checkpoint event at or before `atLedger` (indexer.md C1): an event that publishes " +
          "`(b_tilde, sigma)` for its spendable balance — a `withdraw` or a `transfer` it sent (the account is the " +
          "event's first address topic, `from`), or a `set_spender` of its own (`account`). A `revoke_spender` counts " +
          "only in the token's older shape, which carried `(b_tilde, sigma)`: the current one (`a_tilde`, " +
          "`allowance_salt`) is a proofless fold, never a checkpoint; the event's own shape decides, not a setting. A " +
          "`transfer` it received is no checkpoint. Its `(b_tilde, sigma)` re-derive the account's spendable balance, " +
          "so a dormant account need not replay its whole history. `anchor` names where the replay starts (`T_0`): " +
          "the latest `merge` or `clawback` at or before the checkpoint, else the account's `register` (its `register` " +
          "when there is no checkpoint); the client replays every event of the account after it, a `clawback` anchor " +
          "also taking its public `amount` off the spendable side. `complete` covers that whole window. " +
          `${PUBLIC} 400 for a malformed parameter; 404 when \`contractId\` is not the token this service archives, or ` +
          "`account` is no Stellar address."
      )
  )
  .middleware(ArchiveRateLimit)
  .annotate(OpenApi.Title, "Archive")
  .annotate(
    OpenApi.Description,
    "The confidential token's durable event archive (OpenZeppelin's indexer.md): every event ingested from Stellar RPC " +
      "and kept beyond its 7-day window, so that a wallet that lost its local state can still rebuild its balances."
  )
{}
