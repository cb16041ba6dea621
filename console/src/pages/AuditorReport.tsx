import { Button, Input } from "@stellar/design-system"
import { useMutation, useQuery } from "@tanstack/react-query"
import { useEffect, useState } from "react"
import type { AuditRow } from "@confidential-payroll/client/confidential"
import type { Me } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { MonthChart } from "../escrow/MonthChart.tsx"
import { formatAmount } from "../lib/Amount.ts"
import { useSealing } from "../sealing/Sealing.tsx"
import { useSession } from "../session/Session.tsx"

const reportOps = () => import("../escrow/ReportOps.ts")

const download = (name: string, text: string, type: string) => {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement("a")
  a.href = url
  a.download = name
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 1_000)
}

const amountOf = (row: AuditRow) => (row.amount === undefined ? "not opened" : formatAmount(row.amount))

const matchOf = (row: AuditRow) =>
  row.match.kind === "payout" ? `Payout to ${row.match.contractorName ?? row.match.contractorId} (batch ${row.match.batchId.slice(0, 8)})` : "not a payout here"

const verdictOf = (row: AuditRow) =>
  [
    row.continuity === undefined ? "" : row.continuity.status === "continuous" ? "balance continuous" : row.continuity.status === "breaks" ? "balance breaks" : "balance unchecked",
    row.receipt === undefined ? "" : row.receipt.status === "matches" ? "receipt matches" : `receipt differs (${row.receipt.what})`
  ].filter((s) => s !== "").join("; ")

const firstOfMonth = (offset: number) => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 10)
}

export const AuditorReport = ({ me }: { readonly me: Me }) => {
  const session = useSession().session?.token ?? ""
  const { unlocked, unlock } = useSealing(me)
  const [from, setFrom] = useState(firstOfMonth(-2))
  const [to, setTo] = useState(firstOfMonth(1))
  const [wallets, setWallets] = useState<string | undefined>(undefined)
  const known = useQuery({ queryKey: ["paying-wallets"], queryFn: async () => (await reportOps()).payingWallets(session), retry: false })
  useEffect(() => {
    if (wallets === undefined && known.data !== undefined) setWallets(known.data.join("\n"))
  }, [known.data, wallets])
  const build = useMutation({
    mutationFn: async () => {
      const u = unlocked ?? await unlock.mutateAsync()
      const list = (wallets ?? "").split(/\s+/).filter((w) => w !== "")
      if (list.length === 0) throw new Error("Name at least one paying wallet.")
      return (await reportOps()).buildReport(session, u, list, { from: new Date(`${from}T00:00:00Z`), to: new Date(`${to}T00:00:00Z`) })
    }
  })
  const built = build.data
  return (
    <Restricted me={me} permission="audit:disclose" title="Auditor's report">
      <Page title="Auditor's report">
        <p className="muted">
          Every proven operation of the organization's paying wallets in the period, read from the public events with the escrow key in
          this browser, matched to the payouts sent here. The service sees nothing new.
        </p>
        <Section title="Period and wallets" id="report-input">
          <form onSubmit={(e) => { e.preventDefault(); build.mutate() }} aria-label="The report's period and wallets">
            <div className="filters filters--grid">
              <Input id="report-from" fieldSize="md" type="date" label="From (UTC)" value={from} onChange={(e) => setFrom(e.target.value)} />
              <Input id="report-to" fieldSize="md" type="date" label="Until (UTC, not included)" value={to} onChange={(e) => setTo(e.target.value)} />
            </div>
            <label htmlFor="report-wallets">Paying wallets (one a line): those whose registration the service sponsored for the organization; confirm or correct them</label>
            <textarea id="report-wallets" className="mono" rows={3} value={wallets ?? ""} onChange={(e) => setWallets(e.target.value)} />
            <p><Button variant="primary" size="md" type="submit" isLoading={build.isPending}>Unlock the escrow key and build the report</Button></p>
          </form>
          {build.isError ? <p className="error" role="alert">{messageOf(build.error)}</p> : null}
        </Section>
        {built === undefined ? null : (
          <>
            <Section title="Totals per contractor" id="report-contractors">
              <table className="table" data-testid="report-contractors">
                <thead><tr><th>Contractor</th><th>Payouts</th><th>Paid</th><th>Not opened</th></tr></thead>
                <tbody>
                  {built.report.contractors.map((c) => (
                    <tr key={c.contractorId}><td>{c.contractorName ?? c.contractorId}</td><td>{c.paid.count}</td><td>{formatAmount(c.paid.total)}</td><td>{c.undecryptable}</td></tr>
                  ))}
                </tbody>
              </table>
            </Section>
            <Section title="Per month" id="report-months">
              <MonthChart months={built.report.months} />
              <table className="table" data-testid="report-months">
                <thead><tr><th>Month</th><th>Payouts</th><th>Other transfers</th><th>Withdrawals</th><th>Deposits</th></tr></thead>
                <tbody>
                  {built.report.months.map((m) => (
                    <tr key={m.month}>
                      <td>{m.month}</td><td>{formatAmount(m.payouts.total)}</td><td>{formatAmount(m.otherTransfers.total)}</td>
                      <td>{formatAmount(m.withdrawals.total)}</td><td>{formatAmount(m.deposits.total)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Section>
            <Section title="Checks" id="report-checks">
              <p role="status" data-testid="report-checks">
                {`${built.report.checks.breaks} balance break(s); ${built.report.checks.undecryptable} operation(s) the key did not open; ` +
                  `receipts: ${built.report.checks.receiptsMatch} match, ${built.report.checks.receiptsDiffer} differ.`}
              </p>
            </Section>
            <Section title="Operations" id="report-operations">
              <table className="table" data-testid="report-operations">
                <thead><tr><th>When (UTC)</th><th>Wallet</th><th>Operation</th><th>Amount</th><th>Payout</th><th>Checks</th></tr></thead>
                <tbody>
                  {built.report.rows.map((r) => (
                    <tr key={`${r.eventId}-${r.wallet}`}>
                      <td>{r.closedAt.replace("T", " ").slice(0, 19)}</td><td className="mono small">{r.wallet.slice(0, 6)}…</td><td>{r.kind}</td>
                      <td>{amountOf(r)}</td><td>{matchOf(r)}</td><td>{verdictOf(r)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="row">
                <Button variant="secondary" size="sm" type="button" onClick={() => download("operations.csv", built.csv.operations, "text/csv")}>Download operations.csv</Button>
                <Button variant="secondary" size="sm" type="button" onClick={() => download("contractors.csv", built.csv.contractors, "text/csv")}>Download contractors.csv</Button>
                <Button variant="secondary" size="sm" type="button" onClick={() => download("months.csv", built.csv.months, "text/csv")}>Download months.csv</Button>
                <Button variant="secondary" size="sm" type="button" onClick={() => download("report.json", built.json, "application/json")}>Download report.json</Button>
              </p>
            </Section>
          </>
        )}
      </Page>
    </Restricted>
  )
}
