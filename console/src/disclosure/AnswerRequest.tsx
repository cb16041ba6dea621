import type { DisclosureRequestFile, TransferEvent } from "@confidential-payroll/client/confidential"
import { Button, Checkbox, Textarea } from "@stellar/design-system"
import { type FormEvent, useEffect, useRef, useState } from "react"
import { Time } from "../components/Time.tsx"
import { download, fileText } from "./Download.ts"
import type { AnswerStage, Opened } from "./HolderLib.ts"

const lib = () => import("./HolderLib.ts")
const short = (text: string) => `${text.slice(0, 6)}…${text.slice(-6)}`
const keyOf = (e: TransferEvent) => `${e.ref.txHash}/${e.ref.eventIndex}`

const STAGES: Readonly<Record<AnswerStage, string>> = {
  keys: "Deriving your confidential keys: sign the message in Freighter",
  prover: "Starting the prover",
  proving: "Proving in this browser"
}

const askWords = (request: DisclosureRequestFile) => {
  const { ask } = request
  if (ask.kind === "event") return `the amount of one payout (transaction ${short(ask.ref.txHash)}, event ${ask.ref.eventIndex})`
  const span = `between ${ask.period.start.slice(0, 10)} and ${ask.period.end.slice(0, 10)}`
  return ask.kind === "received-total" ? `the total ${short(ask.from)} paid you ${span}` : `the total you paid ${short(ask.to)} ${span}`
}

/** The link's request, when the page was opened with one (`#request=…`). */
const fromLocation = () => (window.location.hash.includes("request=") ? window.location.href : "")

/**
 * Answering a disclosure request (SELECTIVE_DISCLOSURE.md §12): the recipient's link or file opened, the payouts it asks
 * about pre-selected among the account's own by the request's own criteria (never by the page it is opened from: a total
 * asks for every payout in its period), the proof made here, and the bundle downloaded for the holder to send.
 */
export const AnswerRequest = ({ session, account }: { readonly session: string; readonly account: string }) => {
  const [text, setText] = useState(fromLocation)
  const [opened, setOpened] = useState<Opened>()
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set())
  const [stage, setStage] = useState<AnswerStage | "opening">()
  const [problem, setProblem] = useState<string>()
  const [done, setDone] = useState<string>()
  const openedOnce = useRef(false)

  const open = async (input: string) => {
    setProblem(undefined)
    setDone(undefined)
    const l = await lib()
    const request = l.readRequest(input)
    if (request._tag === "Left") return setProblem(`This is not a disclosure request: ${request.left.split("\n")[0]}`)
    setStage("opening")
    try {
      const o = await l.openRequest(session, account, request.right)
      setOpened(o)
      setChosen(new Set(o.matching.map(keyOf)))
    } catch (error) {
      setProblem(error instanceof Error ? error.message : "the request could not be opened")
    } finally {
      setStage(undefined)
    }
  }
  useEffect(() => {
    if (openedOnce.current || text === "") return
    openedOnce.current = true
    void open(text)
  }, [])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void open(text)
  }
  const prove = async () => {
    if (opened === undefined) return
    setProblem(undefined)
    try {
      const events = opened.events.filter((e) => chosen.has(keyOf(e)))
      const bundle = await (await lib()).answer(session, account, opened.request, events, setStage)
      download(`disclosure-bundle-${opened.request.nonce.slice(0, 8)}.json`, bundle)
      setDone(`The bundle is downloaded: send it to ${opened.request.label ?? "the recipient"}. It carries the proof and the sealed value, nothing else.`)
    } catch (error) {
      setProblem(error instanceof Error ? error.message : "the disclosure could not be proven")
    } finally {
      setStage(undefined)
    }
  }
  const toggle = (key: string) => setChosen((current) => {
    const next = new Set(current)
    if (!next.delete(key)) next.add(key)
    return next
  })
  const relevant = opened === undefined ? [] : opened.events.filter((e) => e.to === account || e.originator === account)

  return (
    <div className="stack disclosure-answer">
      <form className="form stack" onSubmit={submit} noValidate>
        <Textarea id="disclosure-request" fieldSize="md" label="The request's link or file contents" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
        <div className="row">
          <Button variant="secondary" size="md" type="submit" isLoading={stage === "opening"} disabled={text.trim() === ""}>Open the request</Button>
          <label className="small">
            or a request file <input type="file" accept="application/json,.json" onChange={(e) => void fileText(e.currentTarget).then((t) => t === undefined ? undefined : (setText(t), open(t)))} />
          </label>
        </div>
      </form>
      {opened === undefined ? null : (
        <div className="stack">
          <p>{opened.request.label ?? "A recipient"} asks for {askWords(opened.request)}. The proof discloses that value to them alone.</p>
          {relevant.length === 0 ? <p className="muted">None of your payouts is in the archive yet.</p> : (
            <fieldset className="checklist">
              <legend>Payouts the disclosure covers</legend>
              {relevant.map((e) => (
                <Checkbox
                  key={keyOf(e)}
                  id={`disclose-${keyOf(e)}`}
                  fieldSize="md"
                  // One <small>, in one flow (styles.css: the label is a flex row whose span children are the box).
                  label={<small>{e.to === account ? `From ${short(e.originator)}` : `To ${short(e.to)}`}, <Time at={new Date(e.closedAt)} /> (transaction {short(e.ref.txHash)})</small>}
                  checked={chosen.has(keyOf(e))}
                  onChange={() => toggle(keyOf(e))}
                />
              ))}
            </fieldset>
          )}
          <div className="row">
            <Button variant="primary" size="md" onClick={() => void prove()} isLoading={stage !== undefined && stage !== "opening"} disabled={chosen.size === 0 || stage !== undefined}>
              Prove and download the bundle
            </Button>
          </div>
        </div>
      )}
      <div aria-live="polite">
        {stage === undefined || stage === "opening" ? null : <p className="small">{STAGES[stage]}…</p>}
        {done === undefined ? null : <p className="small" role="status">{done}</p>}
      </div>
      {problem === undefined ? null : <p className="action__error" role="alert">{problem}</p>}
    </div>
  )
}
