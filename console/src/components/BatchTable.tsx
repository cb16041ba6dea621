import type { Batch } from "@confidential-payroll/client/contract"
import { Link } from "../router/Router.tsx"
import { StatusBadge } from "./StatusBadge.tsx"
import { Time } from "./Time.tsx"

/** Batches as a table that turns into stacked cards on a narrow screen (each cell labelled by `data-label`). */
export const BatchTable = ({ batches, caption }: { readonly batches: ReadonlyArray<Batch>; readonly caption: string }) => (
  <table className="table">
    <caption className="visually-hidden">{caption}</caption>
    <thead>
      <tr>
        <th scope="col">Batch</th>
        <th scope="col">Status</th>
        <th scope="col">Payouts</th>
        <th scope="col">Settled / failed / canceled</th>
        <th scope="col">Approvals</th>
        <th scope="col">Created</th>
      </tr>
    </thead>
    <tbody>
      {batches.map((batch) => (
        <tr key={batch.id}>
          <td data-label="Batch"><Link to={`/batches/${batch.id}`}>{batch.name}</Link></td>
          <td data-label="Status"><StatusBadge status={batch.status} /></td>
          <td data-label="Payouts">{batch.payoutCount}</td>
          <td data-label="Settled / failed / canceled">{batch.settledCount} / {batch.failedCount} / {batch.canceledCount}</td>
          <td data-label="Approvals">{batch.approvalsRequired === 0 ? "not required" : `${batch.approvals.length} of ${batch.approvalsRequired}`}</td>
          <td data-label="Created"><Time at={batch.createdAt} /></td>
        </tr>
      ))}
    </tbody>
  </table>
)
