import { Button } from "@stellar/design-system"
import { Option } from "effect"
import { useMyPayouts } from "../api/Portal.ts"
import { Page } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time } from "../components/Time.tsx"

const explorer = (hash: string) => `https://stellar.expert/explorer/testnet/tx/${hash}`

/** The contractor portal: what each organization paid them, and where to see it on the ledger (never the amount). */
export const Payouts = () => {
  const payouts = useMyPayouts()
  const items = payouts.data?.pages.flatMap((p) => p.items) ?? []
  return (
    <Page title="My payouts">
      <p className="muted">Amounts are encrypted on the ledger: only you (and the auditor you registered with) can read them, in your wallet.</p>
      {payouts.isPending
        ? <Loading what="your payouts" />
        : payouts.isError
        ? <ErrorNote what="load your payouts" error={payouts.error} />
        : items.length === 0
        ? <Empty>No payout to you yet.</Empty>
        : (
          <table className="table">
            <caption className="visually-hidden">My payouts, newest first</caption>
            <thead>
              <tr><th scope="col">From</th><th scope="col">Batch</th><th scope="col">Status</th><th scope="col">Transaction</th><th scope="col">Created</th><th scope="col">Updated</th></tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id}>
                  <td data-label="From">{p.company}</td>
                  <td data-label="Batch">{p.batchName}</td>
                  <td data-label="Status"><StatusBadge status={p.status} /></td>
                  <td data-label="Transaction">
                    {Option.match(p.hash, {
                      onNone: () => <span className="muted">not sent yet</span>,
                      onSome: (hash) => (
                        <a href={explorer(hash)} target="_blank" rel="noopener noreferrer" title={hash}>
                          {hash.slice(0, 6)}…{hash.slice(-6)}<span className="visually-hidden"> (opens the testnet explorer)</span>
                        </a>
                      )
                    })}
                  </td>
                  <td data-label="Created"><Time at={p.createdAt} /></td>
                  <td data-label="Updated"><Time at={p.updatedAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      {payouts.hasNextPage ? <Button variant="tertiary" size="md" onClick={() => void payouts.fetchNextPage()} isLoading={payouts.isFetchingNextPage}>Load more payouts</Button> : null}
    </Page>
  )
}
