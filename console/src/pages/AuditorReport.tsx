import { Button, Input, Textarea } from "@stellar/design-system"
import { useMutation, useQuery } from "@tanstack/react-query"
import { useEffect, useState } from "react"
import type { AuditReport, AuditRow } from "@confidential-payroll/client/confidential"
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

const KIND: Record<AuditRow["kind"], string> = {
  transfer: "Transfer",
  withdraw: "Withdrawal",
  set_spender: "Allowance set",
  revoke_spender: "Allowance revoked",
  spender_transfer: "Paid by a spender",
  deposit: "Deposit",
  transfer_in: "Received",
  merge: "Merge"
}

/** What left the wallet is a payout or "not a payout here"; what came in or stayed (deposits, merges) is neither. */
const OUTGOING = new Set<AuditRow["kind"]>(["transfer", "withdraw", "spender_transfer", "set_spender", "revoke_spender"])

/** A Stellar account's strkey (G…): its checksum is left to the archive's answer. */
const ACCOUNT = /^G[A-Z2-7]{55}$/

const short = (address: string | undefined) => (address === undefined ? "" : `${address.slice(0, 6)}…${address.slice(-4)}`)

const amountOf = (row: AuditRow) => (row.amount === undefined ? "not opened" : formatAmount(row.amount))

const matchOf = (row: AuditRow) =>
  row.match.kind === "payout"
    ? `Payout to ${row.match.contractorName ?? row.match.contractorId} (batch ${row.match.batchId.slice(0, 8)})`
    : OUTGOING.has(row.kind) ? "not a payout here" : ""

const verdictOf = (row: AuditRow) =>
  [
    row.continuity === undefined ? "" : row.continuity.status === "continuous" ? "balance continuous" : row.continuity.status === "breaks" ? `balance breaks (expected ${formatAmount(row.continuity.expected)})` : "balance unchecked",
    row.receipt === undefined ? "" : row.receipt.status === "matches" ? "receipt matches" : `receipt differs (${row.receipt.what})`
  ].filter((s) => s !== "").join("; ")

const continuityOf = (report: AuditReport) => {
  const checkpoints = report.wallets.reduce((n, w) => n + w.checkpoints, 0)
  const unchecked = report.wallets.reduce((n, w) => n + w.unchecked, 0)
  const breaks = report.checks.breaks
  return `${breaks === 0 ? "unbroken" : `${breaks} break(s)`}: ${checkpoints} checkpoint(s)${unchecked === 0 ? "" : `, ${unchecked} unchecked`}`
}

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
      const period = { from: new Date(`${from}T00:00:00Z`), to: new Date(`${to}T00:00:00Z`) }
      if (Number.isNaN(period.from.getTime()) || Number.isNaN(period.to.getTime())) throw new Error("Enter both dates of the period.")
      if (period.to <= period.from) throw new Error("The period ends after it starts: pick an end date after the start date.")
      const list = [...new Set((wallets ?? "").split(/\s+/).filter((w) => w !== ""))]
      if (list.length === 0) throw new Error("Name at least one paying wallet.")
      const wrong = list.find((w) => !ACCOUNT.test(w))
      if (wrong !== undefined) throw new Error(`${wrong} is not a Stellar account (G…, 56 characters).`)
      const u = unlocked ?? await unlock.mutateAsync()
      return (await reportOps()).buildReport(session, u, list, period)
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
            <div className="report__wallets">
              <Textarea
                id="report-wallets" fieldSize="md" rows={3} spellCheck={false} label="Paying wallets, one a line"
                note="Those whose registration the service sponsored for the organization: confirm or correct them."
                value={wallets ?? ""} onChange={(e) => setWallets(e.target.value)}
              />
            </div>
            <div className="row report__build">
              <Button variant="primary" size="md" type="submit" isLoading={build.isPending}>Unlock the escrow key and build the report</Button>
            </div>
          </form>
          {build.isError ? <p className="error" role="alert">{messageOf(build.error)}</p> : null}
        </Section>
        {built === undefined ? null : (
          <>
            <Section title="Totals per contractor" id="report-contractors">
              <table className="table" data-testid="report-contractors">
                <thead><tr><th>Contractor</th><th className="numeric">Payouts</th><th className="numeric">Paid</th><th className="numeric">Not opened</th></tr></thead>
                <tbody>
                  {built.report.contractors.map((c) => (
                    <tr key={c.contractorId}>
                      <td data-label="Contractor">{c.contractorName ?? c.contractorId}</td><td data-label="Payouts" className="numeric">{c.paid.count}</td>
                      <td data-label="Paid" className="numeric amount">{formatAmount(c.paid.total)}</td><td data-label="Not opened" className="numeric">{c.undecryptable}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Section>
            <Section title="Per month" id="report-months">
              <MonthChart months={built.report.months} />
              <table className="table" data-testid="report-months">
                <thead><tr><th>Month</th><th className="numeric">Payouts</th><th className="numeric">Other transfers</th><th className="numeric">Withdrawals</th><th className="numeric">Deposits</th></tr></thead>
                <tbody>
                  {built.report.months.map((m) => (
                    <tr key={m.month}>
                      <td data-label="Month">{m.month}</td><td data-label="Payouts" className="numeric amount">{formatAmount(m.payouts.total)}</td>
                      <td data-label="Other transfers" className="numeric amount">{formatAmount(m.otherTransfers.total)}</td>
                      <td data-label="Withdrawals" className="numeric amount">{formatAmount(m.withdrawals.total)}</td>
                      <td data-label="Deposits" className="numeric amount">{formatAmount(m.deposits.total)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Section>
            <Section title="Checks" id="report-checks">
              <dl className="facts" data-testid="report-checks">
                <div><dt>Balance continuity</dt><dd>{continuityOf(built.report)}</dd></div>
                <div><dt>Operations the key did not open</dt><dd>{built.report.checks.undecryptable}</dd></div>
                <div><dt>Sealed receipts</dt><dd>{`${built.report.checks.receiptsMatch} match, ${built.report.checks.receiptsDiffer} differ`}</dd></div>
                <div>
                  <dt>Auditor registry</dt>
                  <dd>{built.registryHoldsCurrentKey === undefined ? "no escrow key" : built.registryHoldsCurrentKey ? "holds the current escrow key" : "holds another key"}</dd>
                </div>
              </dl>
              {built.keysNotSealedToYou === 0 ? null : (
                <p className="muted">{`${built.keysNotSealedToYou} escrow key(s) are not sealed to you: their events stay unopened until a holder shares them.`}</p>
              )}
            </Section>
            <Section title="Operations" id="report-operations">
              <table className="table report__ops" data-testid="report-operations">
                <thead>
                  <tr>
                    <th>When (UTC)</th><th>Wallet</th><th>Operation</th><th>Counterparty</th><th className="numeric">Amount</th>
                    <th className="numeric">Balance after</th><th>Payout</th><th>Checks</th>
                  </tr>
                </thead>
                <tbody>
                  {built.report.rows.map((r) => (
                    <tr key={`${r.eventId}-${r.wallet}`}>
                      <td data-label="When (UTC)" className="nowrap">{r.closedAt.replace("T", " ").slice(0, 19)}</td>
                      <td data-label="Wallet"><code title={r.wallet}>{short(r.wallet)}</code></td>
                      <td data-label="Operation">{KIND[r.kind]}</td>
                      <td data-label="Counterparty">{r.counterparty === undefined ? "" : <code title={r.counterparty}>{short(r.counterparty)}</code>}</td>
                      <td data-label="Amount" className="numeric amount">{amountOf(r)}</td>
                      <td data-label="Balance after" className="numeric amount">{r.balanceAfter === undefined ? "" : formatAmount(r.balanceAfter)}</td>
                      <td data-label="Payout">{matchOf(r)}</td>
                      <td data-label="Checks">{verdictOf(r)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="row report__downloads">
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
