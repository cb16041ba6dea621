import { Button, Input } from "@stellar/design-system"
import { Option, Schema } from "effect"
import { type FormEvent, useState } from "react"
import { BatchId, type Me } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { type ExportName, type Range, useExport, useStatistics } from "../api/Exports.ts"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { ErrorNote, Loading } from "../components/States.tsx"
import { timeZone } from "../components/Time.tsx"

const FILES: ReadonlyArray<{ readonly name: ExportName; readonly label: string; readonly about: string }> = [
  { name: "payouts", label: "Download payouts.csv", about: "Every payout, its batch, contractor, status and transaction (no amounts: none are stored)." },
  { name: "contractors", label: "Download contractors.csv", about: "The contractor directory (the range does not apply)." },
  { name: "audit", label: "Download audit.csv", about: "The audit trail, in the order it was recorded." }
]

const Statistics = ({ within }: { readonly within: Range }) => {
  const stats = useStatistics(within)
  if (stats.isPending) return <Loading what="statistics" />
  if (stats.isError) return <ErrorNote what="load the statistics" error={stats.error} />
  const { payouts, batches, settleSeconds } = stats.data
  const seconds = (value: number | undefined) => (value === undefined ? "—" : `${value.toFixed(1)} s`)
  return (
    <dl className="facts">
      {Object.entries(payouts).map(([status, n]) => <div key={`p-${status}`}><dt>Payouts {status}</dt><dd>{n}</dd></div>)}
      {Object.entries(batches).map(([status, n]) => <div key={`b-${status}`}><dt>Batches {status}</dt><dd>{n}</dd></div>)}
      <div><dt>Transfers settled</dt><dd>{settleSeconds.count}</dd></div>
      <div><dt>Settle time, median</dt><dd>{seconds(settleSeconds.p50)}</dd></div>
      <div><dt>Settle time, 95th percentile</dt><dd>{seconds(settleSeconds.p95)}</dd></div>
    </dl>
  )
}

export const Exports = ({ me }: { readonly me: Me }) => {
  const [form, setForm] = useState<Range & { readonly batch: string }>({ from: "", to: "", batch: "" })
  const [within, setWithin] = useState<Range>({ from: "", to: "" })
  const download = useExport()
  const batchId = Schema.decodeUnknownOption(BatchId)(form.batch.trim())
  const badBatch = form.batch.trim() !== "" && Option.isNone(batchId)
  const apply = (event: FormEvent) => {
    event.preventDefault()
    setWithin({ from: form.from, to: form.to })
  }
  return (
    <Restricted me={me} permission="audit:read" title="Exports">
      <Page title="Exports">
        <Section title="Range" id="exports-range">
          <form className="filters filters--grid" onSubmit={apply} aria-label="Range of the exports and statistics">
            <Input id="exports-from" fieldSize="md" type="datetime-local" label="From" note={timeZone} value={form.from} onChange={(e) => setForm({ ...form, from: e.target.value })} />
            <Input id="exports-to" fieldSize="md" type="datetime-local" label="Until" note={timeZone} value={form.to} onChange={(e) => setForm({ ...form, to: e.target.value })} />
            <Input
              id="exports-batch"
              fieldSize="md"
              label="Only this batch (payouts)"
              placeholder="batch id"
              value={form.batch}
              onChange={(e) => setForm({ ...form, batch: e.target.value })}
              error={badBatch ? "a batch id is a UUID, as in the batch page's address" : undefined}
            />
            <div className="row"><Button variant="secondary" size="md" type="submit">Show statistics for this range</Button></div>
          </form>
        </Section>
        <Section title="CSV files" id="exports-files">
          <ul className="list">
            {FILES.map((file) => (
              <li key={file.name}>
                <Button
                  variant="secondary"
                  size="md"
                  disabled={badBatch}
                  isLoading={download.isPending && download.variables.name === file.name}
                  onClick={() => download.mutate({ name: file.name, within: form, batchId: file.name === "payouts" ? Option.getOrUndefined(batchId) : undefined })}
                >
                  {file.label}
                </Button>
                <span className="muted small">{file.about}</span>
              </li>
            ))}
          </ul>
          <p role="status" className="muted">{download.isSuccess ? `${download.data.name}.csv downloaded: ${download.data.rows} rows.` : ""}</p>
          {download.isError ? <p className="action__error" role="alert">Could not export {download.variables.name}.csv: {messageOf(download.error)}</p> : null}
        </Section>
        <Section title="Statistics" id="exports-statistics">
          <Statistics within={within} />
        </Section>
      </Page>
    </Restricted>
  )
}
