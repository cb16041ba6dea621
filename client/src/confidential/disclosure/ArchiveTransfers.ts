// The holder's own payouts, with their references (SELECTIVE_DISCLOSURE.md §15.2 item 3: index (tx hash, event index)
// per account event): the account's transfer events from the service's public archive (src/Archive/Api.ts), each a
// TransferEvent a disclosure can be proven over. Browser-safe.
import { DateTime, Effect } from "effect"
import { makeGroupClient } from "../../Client.ts"
import { decodeTransferEvent, fromArchived, isTransferEvent, type TransferEvent } from "./TransferEvent.ts"

/** An archive item as GET /archive/accounts/…/events answers it (src/Archive/Api.ts), the fields a reference needs. */
export interface ArchivedItem {
  readonly topics: ReadonlyArray<string>
  readonly value: string
  readonly txHash: string
  readonly eventIndex: number
  readonly ledger: number
  readonly ledgerClosedAt: DateTime.Utc
}

/** The transfer events of one page of the archive, each with its reference (tx hash, op 0, event index). */
export const transfersOfPage = (items: ReadonlyArray<ArchivedItem>): Array<TransferEvent> =>
  items.flatMap((item) => {
    const { topics, data } = fromArchived(item.topics, item.value)
    const ref = { txHash: item.txHash, opIndex: 0 as const, eventIndex: item.eventIndex }
    const decoded = decodeTransferEvent(topics, data, { ref, ledger: item.ledger, closedAt: DateTime.toEpochMillis(item.ledgerClosedAt) })
    return isTransferEvent(decoded) ? [decoded] : []
  })

/** Every transfer and spender_transfer event of `account` on `contract` the archive holds, oldest first. */
export const archiveTransfers = (baseUrl: string, contract: string, account: string) =>
  Effect.gen(function* () {
    const archive = yield* makeGroupClient("archive", baseUrl)
    const events: Array<TransferEvent> = []
    let cursor: string | undefined
    do {
      const page = yield* archive.accountEvents({
        path: { contractId: contract, account },
        urlParams: { limit: 1000, types: "transfer,spender_transfer", ...(cursor === undefined ? {} : { cursor }) }
      })
      events.push(...transfersOfPage(page.events))
      cursor = page.cursor ?? undefined
    } while (cursor !== undefined)
    return events
  })
