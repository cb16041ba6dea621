import type { RecipientKeyFile } from "@confidential-payroll/client/confidential"
import { Button, Input, Select } from "@stellar/design-system"
import { type FormEvent, useEffect, useState } from "react"
import { Page, Section } from "../components/Page.tsx"
import { download, fileText } from "../disclosure/Download.ts"
import type { Issued, Verdict } from "../disclosure/VerifierLib.ts"
import { formatAmount } from "../lib/Amount.ts"

/** The recipient's tools, with the confidential client, in a chunk of their own. */
const lib = () => import("../disclosure/VerifierLib.ts")

type Key = RecipientKeyFile
type AskKind = "event" | "received-total" | "sent-total"

const short = (text: string) => `${text.slice(0, 8)}…${text.slice(-8)}`
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

const describeAsk = ({ ask }: Issued["request"]) =>
  ask.kind === "event"
    ? `One payout: event ${ask.ref.eventIndex} of transaction ${short(ask.ref.txHash)}`
    : `${ask.kind === "received-total" ? `Total received from ${short(ask.from)}` : `Total paid to ${short(ask.to)}`}, ${ask.period.start.slice(0, 10)} to ${ask.period.end.slice(0, 10)}`

const KeySection = ({ keyFile, onKey }: { readonly keyFile: Key | undefined; readonly onKey: (key: Key) => void }) => {
  const [problem, setProblem] = useState<string>()
  const load = async (input: HTMLInputElement) => {
    const text = await fileText(input)
    if (text === undefined) return
    const loaded = (await lib()).importKey(text)
    if (typeof loaded === "string") setProblem(loaded)
    else {
      setProblem(undefined)
      onKey(loaded)
    }
  }
  return (
    <Section title="Your recipient key" id="key-title">
      <p>
        A disclosure is sealed to a key of yours: its secret stays in this browser (download it to keep it elsewhere), and only
        its public half travels in your requests.
      </p>
      {keyFile === undefined
        ? <div className="row"><Button variant="primary" size="md" onClick={() => void lib().then((l) => onKey(l.makeKey()))}>Make a key</Button></div>
        : (
          <div className="stack">
            <p className="small">Public key <code title={keyFile.publicKey}>{short(keyFile.publicKey)}</code></p>
            <div className="row">
              <Button variant="secondary" size="md" onClick={() => download("disclosure-recipient-key.json", JSON.stringify(keyFile, null, 2))}>Download the key file</Button>
            </div>
          </div>
        )}
      <label className="small">
        Load a key file <input type="file" accept="application/json,.json" onChange={(e) => void load(e.currentTarget)} />
      </label>
      {problem === undefined ? null : <p className="action__error" role="alert">{problem}</p>}
    </Section>
  )
}

const RequestForm = ({ keyFile, onIssued }: { readonly keyFile: Key; readonly onIssued: () => void }) => {
  const [kind, setKind] = useState<AskKind>("event")
  const [txHash, setTxHash] = useState("")
  const [eventIndex, setEventIndex] = useState("0")
  const [account, setAccount] = useState("")
  const [start, setStart] = useState(day(-90))
  const [end, setEnd] = useState(day(1))
  const [label, setLabel] = useState("")
  const [problem, setProblem] = useState<string>()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const period = { start: new Date(start).toISOString(), end: new Date(end).toISOString() }
    const ask = kind === "event"
      ? { kind, ref: { txHash: txHash.trim().toLowerCase(), opIndex: 0 as const, eventIndex: Number(eventIndex) } }
      : kind === "received-total" ? { kind, from: account.trim(), period } : { kind, to: account.trim(), period }
    try {
      const l = await lib()
      const checked = l.checkAsk(ask)
      if (typeof checked === "string") return setProblem(checked)
      await l.issue(keyFile, checked, label)
      setProblem(undefined)
      onIssued()
    } catch (error) {
      setProblem(error instanceof Error ? error.message : "the request could not be made")
    }
  }
  return (
    <Section title="Ask for a disclosure" id="ask-title">
      <form className="form stack" onSubmit={(e) => void submit(e)} noValidate>
        <Select id="ask-kind" fieldSize="md" label="What you ask" value={kind} onChange={(e) => setKind(e.target.value as AskKind)}>
          <option value="event">One payout (the amount it paid)</option>
          <option value="received-total">Total an account received from a payer</option>
          <option value="sent-total">Total an account paid to a payee</option>
        </Select>
        {kind === "event"
          ? (
            <>
              <Input id="ask-tx" fieldSize="md" label="Transaction hash" value={txHash} onChange={(e) => setTxHash(e.target.value)} autoComplete="off" />
              <Input id="ask-index" fieldSize="md" label="Event index" inputMode="numeric" value={eventIndex} onChange={(e) => setEventIndex(e.target.value)} />
            </>
          )
          : (
            <>
              <Input id="ask-account" fieldSize="md" label={kind === "received-total" ? "Payer (G…)" : "Payee (G…)"} value={account} onChange={(e) => setAccount(e.target.value)} autoComplete="off" />
              <Input id="ask-start" fieldSize="md" label="From (inclusive)" type="date" value={start} onChange={(e) => setStart(e.target.value)} />
              <Input id="ask-end" fieldSize="md" label="Until (exclusive)" type="date" value={end} onChange={(e) => setEnd(e.target.value)} />
            </>
          )}
        <Input id="ask-label" fieldSize="md" label="Label (optional, shown to the holder)" value={label} onChange={(e) => setLabel(e.target.value)} />
        <div className="row"><Button variant="primary" size="md" type="submit">Make the request</Button></div>
        {problem === undefined ? null : <p className="action__error" role="alert">{problem}</p>}
      </form>
    </Section>
  )
}

const VerdictNote = ({ verdict }: { readonly verdict: Verdict }) =>
  verdict.ok
    ? (
      <p className="small" role="status" data-testid="disclosed">
        Verified: <strong className="amount" data-testid="disclosed-value">{formatAmount(verdict.value)}</strong> USDC
        {verdict.events === 1 ? "" : ` over ${verdict.events} payouts`}, disclosed by <code title={verdict.account}>{short(verdict.account)}</code>.
      </p>
    )
    : (
      <p className="action__error" role="alert" data-testid="refused">
        Refused at step {verdict.step} ({verdict.stepName}): {verdict.message}
      </p>
    )

const IssuedRow = ({ issued, keyFile, rpcUrl, onVerified }: {
  readonly issued: Issued
  readonly keyFile: Key
  readonly rpcUrl: string
  readonly onVerified: () => void
}) => {
  const [link, setLink] = useState<string>()
  const [verdict, setVerdict] = useState<Verdict>()
  const [busy, setBusy] = useState(false)
  useEffect(() => void lib().then((l) => setLink(l.holderLink(issued.request))), [issued.request])
  const check = async (input: HTMLInputElement) => {
    const text = await fileText(input)
    input.value = ""
    if (text === undefined) return
    setVerdict(undefined)
    setBusy(true)
    try {
      const verdict = await (await lib()).verify(issued, keyFile, text, rpcUrl)
      setVerdict(verdict)
      if (verdict.ok) onVerified()
    } finally {
      setBusy(false)
    }
  }
  return (
    <li className="stack disclosure-request">
      <p><strong>{issued.request.label ?? "Request"}</strong> — {describeAsk(issued.request)}</p>
      {issued.answered === undefined ? null : <p className="small">Answered: {formatAmount(BigInt(issued.answered))} USDC</p>}
      <div className="row">
        {link === undefined ? null : <a className="small" href={link}>Link for the holder</a>}
        <Button variant="tertiary" size="md" onClick={() => download(`disclosure-request-${issued.request.nonce.slice(0, 8)}.json`, JSON.stringify(issued.request, null, 2))}>
          Download the request
        </Button>
        <label className="small">
          Verify a bundle <input type="file" accept="application/json,.json" disabled={busy} onChange={(e) => void check(e.currentTarget)} />
        </label>
      </div>
      {busy ? <p className="small" aria-live="polite">Verifying: reading the chain and checking the proof…</p> : null}
      {verdict === undefined ? null : <VerdictNote verdict={verdict} />}
    </li>
  )
}

/**
 * The disclosure recipient's page (public, no account): its key, the requests it issues (a file or a link), and each
 * bundle a holder answers with, verified against the chain by SELECTIVE_DISCLOSURE.md §5.3's six steps.
 */
export const Verify = () => {
  const [keyFile, setKeyFile] = useState<Key>()
  const [issued, setIssued] = useState<ReadonlyArray<Issued>>([])
  const [rpcUrl, setRpcUrl] = useState("")
  const reload = () => void lib().then((l) => {
    setKeyFile(l.storedKey())
    setIssued(l.storedRequests())
    setRpcUrl((url) => (url === "" ? l.DEFAULT_RPC() : url))
  })
  useEffect(reload, [])
  return (
    <Page title="Verify a disclosure">
      <p className="muted">
        Ask a payee or a payer to disclose a payout, or a total over a period, to you alone: they answer with a proof you check
        here against the ledger. Nothing you make here needs an account, and your key's secret stays in this browser.
      </p>
      <KeySection keyFile={keyFile} onKey={(key) => { setKeyFile(key); reload() }} />
      {keyFile === undefined ? null : <RequestForm keyFile={keyFile} onIssued={reload} />}
      {keyFile === undefined || issued.length === 0 ? null : (
        <Section title="Your requests" id="requests-title">
          <Input
            id="rpc-url"
            fieldSize="md"
            label="Stellar RPC the chain is read through"
            note="By default this service's public gateway; this page may reach only its own origin."
            value={rpcUrl}
            onChange={(e) => setRpcUrl(e.target.value)}
          />
          <ul className="list stack">
            {issued.map((i) => <IssuedRow key={i.request.nonce} issued={i} keyFile={keyFile} rpcUrl={rpcUrl} onVerified={reload} />)}
          </ul>
        </Section>
      )}
    </Page>
  )
}
