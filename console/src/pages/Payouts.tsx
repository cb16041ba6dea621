import { Button } from "@stellar/design-system"
import { Option } from "effect"
import { useMemo } from "react"
import type { ContractorPayout, Me } from "@confidential-payroll/client/contract"
import { useMe } from "../api/Me.ts"
import { useMyPayouts } from "../api/Portal.ts"
import { Page, Section } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time, timeZone } from "../components/Time.tsx"
import { TxLink } from "../components/TxLink.tsx"
import type { Unlocked } from "../confidential/Received.ts"
import { type Reconciled, reconcile } from "../confidential/ReceivedTotals.ts"
import { type ReadStage, useReceived } from "../confidential/useReceived.ts"
import { WithdrawForm } from "../confidential/WithdrawForm.tsx"
import { AnswerRequest } from "../disclosure/AnswerRequest.tsx"
import { formatAmount } from "../lib/Amount.ts"
import { useSession } from "../session/Session.tsx"

const short = (text: string) => `${text.slice(0, 6)}…${text.slice(-6)}`

const STAGE_WORDS: Readonly<Record<ReadStage, string>> = {
  loading: "Loading the wallet's code",
  keys: "Deriving your confidential keys: sign the message in Freighter",
  prover: "Starting the prover",
  syncing: "Catching up your balance from the service's archive",
  decrypting: "Decrypting what you received"
}

/** A payout's amount once shown, or why it has none yet. */
const amountCell = (payout: ContractorPayout, reconciled: Reconciled) => {
  const transfer = reconciled.byPayout.get(payout.id)
  if (transfer !== undefined) return <span className="amount">{formatAmount(transfer.amount)}</span>
  const why = payout.status === "settled" ? "not in the archive yet" : payout.status === "submitted" ? "on its way" : payout.status === "failed" ? "not received" : "not sent yet"
  return <span className="muted">{why}</span>
}

const Balance = ({ me, session, received }: { readonly me: Me; readonly session: string; readonly received: ReturnType<typeof useReceived> }) => {
  const { state } = received
  if (me.method !== "sep10") {
    return <Section title="Your balance" id="balance-title"><p className="muted">Amounts are read with keys your wallet derives: sign in with Freighter to see them.</p></Section>
  }
  return (
    <Section title="Your balance" id="balance-title">
      {state.phase === "idle" || state.phase === "failed"
        ? (
          <div className="stack balance">
            <p>
              Your keys for the confidential token are derived from a message Freighter signs; the amounts are decrypted with them here,
              in this browser. Neither the keys nor the amounts leave it.
            </p>
            <div className="row"><Button variant="primary" size="md" onClick={received.show}>Show amounts</Button></div>
            {state.phase === "failed" ? <p className="action__error" role="alert">{state.error}</p> : null}
          </div>
        )
        : null}
      {state.phase === "running"
        ? (
          <div className="row" aria-live="polite">
            <p className="small">{STAGE_WORDS[state.stage]}{state.note === undefined ? "" : ` (${state.note})`}…</p>
            <Button variant="tertiary" size="md" onClick={received.cancel}>Cancel</Button>
          </div>
        )
        : null}
      {state.phase === "shown" ? <Shown unlocked={state.unlocked} session={session} received={received} /> : null}
    </Section>
  )
}

const Shown = ({ unlocked, session, received }: { readonly unlocked: Unlocked; readonly session: string; readonly received: ReturnType<typeof useReceived> }) => {
  const { spendable, receiving } = unlocked.balances
  const count = unlocked.received.length
  return (
    <div className="stack balance">
      <dl className="facts">
        <div><dt>Confidential balance</dt><dd className="amount">{formatAmount(spendable + receiving)} USDC</dd></div>
        <div><dt>Received, not merged yet</dt><dd className="amount">{formatAmount(receiving)} USDC</dd></div>
        <div><dt>Spendable</dt><dd className="amount">{formatAmount(spendable)} USDC</dd></div>
      </dl>
      <div className="row">
        <p className="muted small">
          {count === 1 ? "1 transfer" : `${count} transfers`} decrypted in this browser in {Math.max(1, Math.round(unlocked.decryptMs))} ms.
        </p>
        <Button variant="tertiary" size="md" onClick={received.hide}>Hide amounts</Button>
      </div>
      <WithdrawForm unlocked={unlocked} session={session} onWithdrawn={received.withdrawn} />
    </div>
  )
}

const Totals = ({ reconciled }: { readonly reconciled: Reconciled }) => (
  <Section title="Received by organization and month" id="totals-title">
    {reconciled.totals.length === 0
      ? <p className="muted">No payout of an organization here has reached your account yet.</p>
      : (
        <>
          <table className="table">
            <caption className="visually-hidden">Received payouts by month (the month their ledger closed, in {timeZone}) and organization</caption>
            <thead>
              <tr><th scope="col">Month</th><th scope="col">Organization</th><th scope="col">Payouts</th><th scope="col" className="numeric">Total (USDC)</th></tr>
            </thead>
            <tbody>
              {reconciled.totals.map((t) => (
                <tr key={`${t.month} ${t.company}`}>
                  <td data-label="Month">{t.label}</td>
                  <td data-label="Organization">{t.company}</td>
                  <td data-label="Payouts">{t.payouts}</td>
                  <td data-label="Total" className="numeric amount">{formatAmount(t.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small">Months are those in which each transfer's ledger closed, in your time zone ({timeZone}).</p>
        </>
      )}
  </Section>
)

const Others = ({ reconciled }: { readonly reconciled: Reconciled }) =>
  reconciled.others.length === 0 ? null : (
    <Section title="Other transfers" id="others-title">
      <p className="muted">Transfers to your account that are no payout of an organization on this service.</p>
      <table className="table">
        <caption className="visually-hidden">Other transfers to you, newest first</caption>
        <thead><tr><th scope="col">From</th><th scope="col">Received</th><th scope="col" className="numeric">Amount (USDC)</th></tr></thead>
        <tbody>
          {reconciled.others.map((t) => (
            <tr key={t.id}>
              <td data-label="From"><code title={t.from}>{short(t.from)}</code></td>
              <td data-label="Received"><Time at={t.closedAt} /></td>
              <td data-label="Amount" className="numeric amount">{formatAmount(t.amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )

/** A bank, a tax office or an auditor asked for a payout, or a total, proven to them alone (issue 37). */
const Disclose = ({ account, session }: { readonly account: string; readonly session: string }) => (
  <Section title="Answer a disclosure request" id="disclose-title">
    <p className="muted">
      Open the request a recipient sent you: the payouts it asks about are selected, the proof is made in this browser, and you
      send the downloaded bundle. They learn that amount (or total) and nothing else.
    </p>
    <AnswerRequest account={account} session={session} />
  </Section>
)

/**
 * The contractor portal: what each organization paid them, where to see it on the ledger, and — once they ask, in
 * their browser only — each amount, the totals per organization and month, and a withdrawal to their USDC balance.
 */
export const Payouts = () => {
  const payouts = useMyPayouts()
  const me = useMe()
  const { session } = useSession()
  const received = useReceived(me.data?.sub ?? "", session?.token ?? "")
  const items = payouts.data?.pages.flatMap((p) => p.items) ?? []
  const unlocked = received.state.phase === "shown" ? received.state.unlocked : undefined
  const reconciled = useMemo(() => (unlocked === undefined ? undefined : reconcile(unlocked.payouts, unlocked.received)), [unlocked])
  return (
    <Page title="My payouts">
      <p className="muted">
        Amounts are encrypted on the ledger: only you (and the auditor you registered with) can read them. “Show amounts” decrypts
        them here, with keys from your wallet.
      </p>
      {items.length > 0 && me.data !== undefined ? <Balance me={me.data} session={session?.token ?? ""} received={received} /> : null}
      {reconciled === undefined ? null : <Totals reconciled={reconciled} />}
      {payouts.isPending
        ? <Loading what="your payouts" />
        : payouts.isError
        ? <ErrorNote what="load your payouts" error={payouts.error} />
        : items.length === 0
        ? <Empty>No payout to you yet.</Empty>
        : (
          <Section title="Payouts" id="payouts-title">
            <table className="table">
              <caption className="visually-hidden">My payouts, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">From</th><th scope="col">Batch</th><th scope="col">Status</th>
                  {reconciled === undefined ? null : <th scope="col" className="numeric">Amount (USDC)</th>}
                  <th scope="col">Transaction</th><th scope="col">Created</th><th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {items.map((p) => (
                  <tr key={p.id}>
                    <td data-label="From">{p.company}</td>
                    <td data-label="Batch">{p.batchName}</td>
                    <td data-label="Status"><StatusBadge status={p.status} /></td>
                    {reconciled === undefined ? null : <td data-label="Amount" className="numeric">{amountCell(p, reconciled)}</td>}
                    <td data-label="Transaction">
                      {Option.match(p.hash, {
                        onNone: () => <span className="muted">not sent yet</span>,
                        onSome: (hash) => <TxLink hash={hash} />
                      })}
                    </td>
                    <td data-label="Created"><Time at={p.createdAt} /></td>
                    <td data-label="Updated"><Time at={p.updatedAt} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
            {payouts.hasNextPage ? <Button variant="tertiary" size="md" onClick={() => void payouts.fetchNextPage()} isLoading={payouts.isFetchingNextPage}>Load more payouts</Button> : null}
          </Section>
        )}
      {reconciled === undefined ? null : <Others reconciled={reconciled} />}
      {/* Not only for payroll payouts: a transfer from outside the payroll is in the archive too, and disclosable. */}
      {me.data?.method === "sep10" && session !== undefined ? <Disclose account={me.data.sub} session={session.token} /> : null}
    </Page>
  )
}
