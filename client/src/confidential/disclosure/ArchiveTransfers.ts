// The holder's own payouts, with their references (SELECTIVE_DISCLOSURE.md §15.2 item 3: index (tx hash, event index)
// per account event): the account's transfer events from the service's public archive (src/Archive/Api.ts), each a
// TransferEvent a disclosure can be proven over. Browser-safe.
import { DateTime, Effect } from "effect"
import { makeGroupClient } from "../../Client.ts"
import { decodeTransferEvent, fromArchived, isTransferEvent, type TransferEvent } from "./TransferEvent.ts"

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
      for (const item of page.events) {
        const { topics, data } = fromArchived(item.topics, item.value)
        const ref = { txHash: item.txHash, opIndex: 0 as const, eventIndex: item.eventIndex }
        const decoded = decodeTransferEvent(topics, data, { ref, ledger: item.ledger, closedAt: DateTime.toEpochMillis(item.ledgerClosedAt) })
        if (isTransferEvent(decoded)) events.push(decoded)
      }
      cursor = page.cursor ?? undefined
    } while (cursor !== undefined)
    return events
  })
