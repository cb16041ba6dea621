import { Button, Input, Notification } from "@stellar/design-system"
import { type FormEvent, useState } from "react"
import type { Me } from "@confidential-payroll/client/contract"
import { ActionButton, Reasons } from "../components/ActionButton.tsx"
import { Page, Section } from "../components/Page.tsx"
import { CopyButton } from "../components/CopyButton.tsx"
import { TxLink } from "../components/TxLink.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { ErrorNote, Loading } from "../components/States.tsx"
import { seconds, TreasuryProgress } from "../confidential/TreasuryProgress.tsx"
import { useTreasury } from "../confidential/useTreasury.ts"
import type { TreasuryView } from "../confidential/Treasury.ts"
import { formatAmount, parseAmount } from "../lib/Amount.ts"
import { useSession } from "../session/Session.tsx"

type Treasury = ReturnType<typeof useTreasury>

const Register = ({ treasury }: { readonly treasury: Treasury }) => (
  <Section title="Register the paying wallet" id="treasury-register">
    <div className="stack">
      <p className="muted">
        Before it holds a confidential balance, the wallet registers with the token, once: its keys are derived from a message
        Freighter signs (twice, to check it signs the same way), the proof that they are its own is made in this browser, and
        Freighter signs the registration. The service pays its network fee; neither the keys nor the proof's secrets leave this page.
      </p>
      {treasury.busy ? null : <div className="row"><Button variant="primary" size="md" onClick={treasury.register}>Register with the token</Button></div>}
      <TreasuryProgress job={treasury.job} of={["register"]} onCancel={treasury.cancel} />
    </div>
  </Section>
)

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

const checkedAt = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" })

const Openings = ({ view }: { readonly view: TreasuryView }) => (
  <>
    <h3 className="treasury__subtitle">Openings kept in this browser</h3>
    <p className="small muted">
      The values and blindings that open both balances exist only here, sealed in this browser's storage: they follow the wallet's
      events, which the service archives, and are checked against the chain's commitments.
    </p>
    <dl className="facts">
      <div>
        <dt>Pending spends</dt>
        <dd>{view.pending === 0 ? "None" : `${view.pending} not on the ledger yet`}</dd>
        {view.pending === 0 ? null : <dd className="small muted">Payouts proven here; a merge or a rebuild drops them.</dd>}
      </div>
      <div>
        <dt>Against the chain</dt>
        <dd>{view.mismatch === undefined ? "Agree" : "Disagree"}</dd>
        <dd className="small muted">checked at {checkedAt(view.checkedAt)}</dd>
      </div>
      <div className="facts__wide">
        <dt>Synced to</dt>
        <dd>{view.cursor === undefined ? "No event yet" : `Ledger ${view.cursor.ledger.toLocaleString("en")}`}</dd>
        {view.cursor === undefined ? null : <dd className="small muted">the wallet's event <code className="url">{view.cursor.id}</code></dd>}
      </div>
    </dl>
  </>
)

const Registered = ({ registration }: { readonly registration: Treasury["registration"] }) =>
  registration === undefined ? null : (
    <p className="small" role="status">
      {registration.hash === undefined
        ? "The wallet was registered with the token in the meantime."
        : <>Registered in {seconds(registration.ms)}: the transaction <TxLink hash={registration.hash} /> is on the ledger.</>}
    </p>
  )

/** The wallet's public balance of the asset the token wraps, beside the confidential ones: what a deposit draws on. */
const PublicBalance = ({ treasury }: { readonly treasury: Treasury }) => {
  const { data, error, isPending } = treasury.publicBalance
  const symbol = data?.symbol ?? "USDC"
  return (
    <div>
      <dt>Public balance ({symbol})</dt>
      <dd className="amount">
        {data === undefined ? (isPending ? "Reading…" : "Unknown") : data.amount === undefined ? `No ${symbol} trustline` : `${formatAmount(data.amount)} ${symbol}`}
      </dd>
      <dd className="small muted">
        {data === undefined && error !== null ? error.message : `In the wallet, outside the token: what a deposit draws on.`}
      </dd>
    </div>
  )
}

const Balance = ({ treasury, kept }: { readonly treasury: Treasury; readonly kept: boolean }) => {
  const { view, busy } = treasury
  const progress = <TreasuryProgress job={treasury.job} of={["open", "rebuild", "merge"]} onCancel={treasury.cancel} />
  if (view === undefined) {
    return (
      <Section title="Confidential balance" id="treasury-balance">
        <div className="stack">
          <Registered registration={treasury.registration} />
          {kept
            ? <p className="muted">Your balances are decrypted with keys derived from a message Freighter signs (once); the keys never leave this browser.</p>
            : (
              <p className="muted">
                This browser keeps no openings of the wallet (another browser holds them, or this one's storage was cleared). They are
                rebuilt from every event of the wallet on the token, which the service archives; Freighter signs one message for your keys.
              </p>
            )}
          {busy ? null : (
            <div className="row">
              {kept ? <Button variant="primary" size="md" onClick={treasury.open}>Show balance</Button> : null}
              <Button variant={kept ? "tertiary" : "primary"} size="md" onClick={treasury.rebuild}>Rebuild from chain</Button>
            </div>
          )}
          {progress}
        </div>
      </Section>
    )
  }
  const receiving = view.balances?.receiving ?? 0n
  const mergeRefused = view.balances === undefined
    ? "Rebuild the openings first."
    : receiving === 0n
    ? "Nothing to merge: the receiving balance is zero."
    : undefined
  return (
    <Section title="Confidential balance" id="treasury-balance">
      <Registered registration={treasury.registration} />
      <dl className="facts treasury__balances">
        <div>
          <dt>Spendable</dt>
          <dd className="amount">{view.balances === undefined ? "Unknown" : `${formatAmount(view.balances.spendable)} USDC`}</dd>
          <dd className="small muted">What payouts are paid from.</dd>
        </div>
        <div>
          <dt>Receiving</dt>
          <dd className="amount">{view.balances === undefined ? "Unknown" : `${formatAmount(receiving)} USDC`}</dd>
          <dd className="small muted">Deposits and transfers in, until merged.</dd>
        </div>
        <PublicBalance treasury={treasury} />
      </dl>
      {view.mismatch === undefined ? null : (
        <div className="treasury__notice">
          <Notification variant="warning" title="The openings kept here disagree with the chain">
            {sentence(view.mismatch)}. The archive may not have recorded the latest call yet: rebuild them from the chain, now or in a moment.
          </Notification>
        </div>
      )}
      <Openings view={view} />
      <div className="stack">
        <div>
          <div className="controls">
            <ActionButton
              label="Merge into spendable"
              variant={receiving > 0n ? "primary" : "secondary"}
              onClick={treasury.merge}
              busy={busy && treasury.job?.job === "merge"}
              allowed={{ allowed: mergeRefused === undefined && !busy, reason: mergeRefused }}
              reasonShown="apart"
            />
            <ActionButton
              label="Rebuild from chain"
              variant={view.mismatch === undefined ? "tertiary" : "primary"}
              onClick={treasury.rebuild}
              busy={busy && treasury.job?.job === "rebuild"}
              allowed={{ allowed: !busy, reason: undefined }}
            />
          </div>
          <Reasons reasons={[mergeRefused]} />
        </div>
        {progress}
      </div>
    </Section>
  )
}

const Deposit = ({ treasury }: { readonly treasury: Treasury }) => {
  const [text, setText] = useState("")
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseAmount(text)
    if ("problem" in parsed) return setProblem(parsed.problem)
    setProblem(undefined)
    // Cleared once the deposit landed, so that one more click does not deposit the same amount again.
    void treasury.deposit(parsed.amount).then((landed) => {
      if (landed) setText("")
    })
  }
  return (
    <Section title="Deposit USDC" id="treasury-deposit">
      <div className="stack">
        <div>
          <p className="muted">
            Moves USDC from the wallet's public balance into its receiving balance on the token; merge it to pay from it. A
            deposit's amount is public on the ledger, as it leaves a public balance; what is paid from the spendable balance is not.
          </p>
          <p className="small muted">
            A deposit draws on the wallet's public balance shown above; a larger one is refused before anything is signed.
          </p>
        </div>
        <form className="form form--inline" onSubmit={submit} noValidate>
          <Input
            id="treasury-deposit-amount"
            fieldSize="md"
            label="Amount (USDC)"
            inputMode="decimal"
            autoComplete="off"
            placeholder="e.g. 5000.00"
            value={text}
            onChange={(e) => setText(e.target.value)}
            error={problem}
          />
          <Button variant="primary" size="md" type="submit" disabled={treasury.busy} isLoading={treasury.busy && treasury.job?.job === "deposit"}>Deposit</Button>
        </form>
        <TreasuryProgress job={treasury.job} of={["deposit"]} onCancel={treasury.cancel} />
      </div>
    </Section>
  )
}

const TreasuryBody = ({ account, session }: { readonly account: string; readonly session: string }) => {
  const treasury = useTreasury(account, session)
  const { status } = treasury
  return (
    <Page title="Treasury">
      <p className="lead">
        Payouts are paid from the wallet you signed in with, <code title={account}>{`${account.slice(0, 6)}…${account.slice(-6)}`}</code>{" "}
        <CopyButton text={account} label="Copy address" />, through the confidential token.
        Its balances are decrypted here, in this browser: the service never sees an amount.
      </p>
      {status.data === undefined && status.isPending
        ? <Loading what="the paying wallet" />
        : status.data === undefined
        ? (
          <ErrorNote what="read the paying wallet on the token" error={status.error}>
            <p><button type="button" className="linkish" onClick={() => void status.refetch()}>Try again</button></p>
          </ErrorNote>
        )
        : !status.data.registered && !treasury.opened
        ? <Register treasury={treasury} />
        : (
          <>
            <Balance treasury={treasury} kept={status.data.kept} />
            {treasury.opened ? <Deposit treasury={treasury} /> : null}
          </>
        )}
    </Page>
  )
}

/** "Treasury": the paying wallet's registration, deposits, merges and confidential balance, for members who may pay. */
export const Treasury = ({ me }: { readonly me: Me }) => {
  const { session } = useSession()
  return (
    <Restricted me={me} permission="transfers:submit" title="Treasury">
      {me.method !== "sep10" || session === undefined
        ? (
          <Page title="Treasury">
            <p className="state state--empty">The treasury is a wallet's: sign in with Freighter to register it, deposit into it and see its balance.</p>
          </Page>
        )
        : <TreasuryBody account={me.sub} session={session.token} />}
    </Restricted>
  )
}
