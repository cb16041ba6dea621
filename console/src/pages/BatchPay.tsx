import { Button, Notification } from "@stellar/design-system"
import { useQueryClient } from "@tanstack/react-query"
import { useEffect, useRef, useState } from "react"
import type { Batch, Me, Payout, PayoutId } from "@confidential-payroll/client/contract"
import { useContractorAddresses } from "../api/Contractors.ts"
import { permissionsOf } from "../api/Me.ts"
import { useMembers } from "../api/Org.ts"
import { Section } from "../components/Page.tsx"
import { useKeepTabOpen } from "../components/useKeepTabOpen.ts"
import { useSession } from "../session/Session.tsx"
import type { PayItem, PayoutStep, PayStage } from "../confidential/PayBatch.ts"
import { formatAmount } from "../lib/Amount.ts"
import { type BatchAmounts, readersOf } from "./BatchAmounts.tsx"

const STAGE_WORDS: Readonly<Record<PayStage, string>> = {
  loading: "Loading the wallet's code and the circuits",
  keys: "Deriving your confidential keys: sign the message in Freighter (twice)",
  prover: "Starting the prover",
  syncing: "Catching up your balance from the archive",
  paying: "Paying"
}

const STEP_WORDS: Readonly<Record<PayoutStep, string>> = {
  proving: "proving",
  signing: "sign it in Freighter",
  sent: "sent",
  failed: "failed"
}

const UNLOCK = "Unlock the amounts above: they are what is paid."

/** Why this member cannot pay this batch now, or undefined. */
const refusal = (batch: Batch, me: Me, amounts: BatchAmounts): string | undefined => {
  const submit = permissionsOf(me)("transfers:submit")
  if (!submit.allowed) return submit.reason
  if (me.method !== "sep10") return "Payouts are signed by a wallet: sign in with Freighter to pay."
  if (batch.status === "paused") return "The batch is paused: resume it to pay."
  if (batch.status !== "ready" && batch.status !== "started") return `A ${batch.status} batch is not paid.`
  const missing = batch.approvalsRequired - batch.approvals.length
  if (missing > 0) return `It needs ${missing === 1 ? "1 more approval" : `${missing} more approvals`} before it is paid.`
  if (amounts.sealed === null) return "No amounts were sealed with this batch: there is nothing to pay."
  if (amounts.opened === undefined) return UNLOCK
  // The approvals name the digest of what they approved: the payer pays those amounts, not others.
  const digest = amounts.sealed?.digest
  if (batch.approvals.some((a) => a.sealedAmountsDigest !== digest)) {
    return "These sealed amounts are not the ones the approvers approved: nothing is paid."
  }
  return undefined
}

interface Run {
  /** What this run pays, fixed when it starts (the payouts' states move on as they are sent). */
  readonly items: ReadonlyArray<PayItem & { readonly name: string }>
  readonly stage: PayStage
  readonly note?: string
  readonly steps: ReadonlyMap<string, { readonly step: PayoutStep; readonly detail?: string }>
  readonly startedAt: number
  readonly sentTimes: ReadonlyArray<number>
}

const seconds = (ms: number) => (ms < 60_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`)

/** "Pay batch": each payout proven in this browser's prover worker, signed in Freighter, sent once. */
export const Pay = ({ batch, me, payouts, amounts, nameOf }: {
  readonly batch: Batch
  readonly me: Me
  readonly payouts: ReadonlyArray<Payout>
  readonly amounts: BatchAmounts
  readonly nameOf: (contractorId: string) => string
}) => {
  const queries = useQueryClient()
  const { session } = useSession()
  const [state, setState] = useState<Run | undefined>(undefined)
  const [running, setRunning] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const abort = useRef<AbortController | undefined>(undefined)
  const addresses = useContractorAddresses(payouts.map((p) => p.contractorId), permissionsOf(me)("transfers:submit").allowed)
  const members = useMembers()
  const { interrupted } = useKeepTabOpen(`pay:${batch.id}`, running)
  // Leaving the page within the console stops the run as "Stop paying" does: a run nobody sees would keep asking
  // Freighter to sign, and coming back could start a second one beside it.
  useEffect(() => () => abort.current?.abort(), [])
  const inFlight = payouts.filter((p) => p.status === "submitted")
  // What the service has not sent: a payout is offered only as `ready` or `failed`, never twice.
  const payable = payouts.filter((p) => p.status === "ready" || p.status === "failed")
  const reason = refusal(batch, me, amounts)
  if (reason !== undefined && state === undefined) {
    // Nothing to say to someone who could never pay (a viewer, an approver): the section is for payers.
    if (!permissionsOf(me)("transfers:submit").allowed) return null
    return (
      <Section title="Pay" id="batch-pay">
        {reason === UNLOCK && interrupted && payable.length > 0
          ? (
            <Notification variant="warning" title="A reload stopped paying">
              The keys stay only in the tab: unlock again to continue paying{" "}
              {payable.length === 1 ? "the 1 payout left" : `the ${payable.length} payouts left`}. Freighter asks for your
              confidential keys again when you pay; payouts already sent stay sent.
            </Notification>
          )
          : <p className="muted">{reason}</p>}
      </Section>
    )
  }
  const items: Array<PayItem & { readonly name: string }> = payable.flatMap((p) => {
    const to = addresses.data?.get(p.contractorId)
    const amount = amounts.opened?.get(p.id)
    return to === undefined || amount === undefined ? [] : [{ payoutId: p.id, to, amount, name: nameOf(p.contractorId) }]
  })
  const total = items.reduce((sum, i) => sum + i.amount, 0n)
  const start = async () => {
    setError(undefined)
    const controller = new AbortController()
    abort.current = controller
    setRunning(true)
    const steps = new Map<string, { step: PayoutStep; detail?: string }>()
    const sentTimes: Array<number> = []
    let current: Run = { items, stage: "loading", steps, startedAt: performance.now(), sentTimes }
    const update = (next: Partial<Run>) => {
      current = { ...current, ...next }
      setState(current)
    }
    update({})
    try {
      const { payBatch } = await import("../confidential/PayBatch.ts")
      // Each payout's receipt is sealed for every member who may read amounts (and the payer), like the amounts.
      const unlocked = amounts.unlocked!
      const readers = readersOf(members.data?.pages.flatMap((p) => p.items) ?? []).filter((r) => r.memberId !== unlocked.memberId)
      await payBatch({
        account: me.sub,
        batchId: batch.id,
        recipients: [{ memberId: unlocked.memberId, sealingKey: unlocked.keyPair.publicKey }, ...readers],
        session: session?.token ?? "",
        items,
        signal: controller.signal,
        // Time left is counted from the first proof: loading, the keys and the sync happen once a run.
        onStage: (stage, note) => update({ stage, ...(note === undefined ? {} : { note }), ...(stage === "paying" ? { startedAt: performance.now() } : {}) }),
        onPayout: (payoutId: PayoutId, step, detail) => {
          steps.set(payoutId, { step, ...(detail === undefined ? {} : { detail }) })
          if (step === "sent") sentTimes.push(performance.now())
          update({ steps: new Map(steps), sentTimes: [...sentTimes] })
          if (step === "sent" || step === "failed") {
            void queries.invalidateQueries({ queryKey: ["payouts", batch.id] })
            void queries.invalidateQueries({ queryKey: ["batch", batch.id] })
          }
        }
      })
    } catch (e) {
      setError(e instanceof Error ? (e.message === "cancelled" ? "Stopped: what was sent stays sent; nothing more was." : e.message) : String(e))
    } finally {
      abort.current = undefined
      setRunning(false)
      void queries.invalidateQueries({ queryKey: ["payouts", batch.id] })
      void queries.invalidateQueries({ queryKey: ["batch", batch.id] })
    }
  }
  const done = state === undefined ? 0 : [...state.steps.values()].filter((s) => s.step === "sent").length
  const left = (() => {
    if (state === undefined || state.sentTimes.length === 0) return undefined
    const per = (state.sentTimes.at(-1)! - state.startedAt) / state.sentTimes.length
    return seconds(per * (state.items.length - done))
  })()
  return (
    <Section title="Pay" id="batch-pay">
      {inFlight.length > 0 && !running
        ? <p role="status">{inFlight.length === 1 ? "1 payout is" : `${inFlight.length} payouts are`} on its way to the ledger: the rest can be paid once it is final.</p>
        : null}
      <div className="stack">
        {running
          ? (
            // The keys derived for this run live in this tab only (useKeepTabOpen asks before it is left).
            <Notification variant="warning" title="Paying: keep this tab open">
              Leaving this page or reloading it stops the run, and Freighter will ask you to unlock again; payouts already
              sent stay sent.
            </Notification>
          )
          : null}
        {items.length > 0
          ? (
            <>
              <p>
                {items.length === 1 ? "1 payout" : `${items.length} payouts`} to pay, {formatAmount(total)} USDC in all. Each
                is proven in this browser (a few seconds), then Freighter asks you to sign it; the service pays the network fee.
              </p>
              <div className="row">
                <Button variant="primary" size="md" onClick={() => void start()} disabled={running || inFlight.length > 0} isLoading={running}>
                  {running ? "Paying" : payable.length === payouts.filter((p) => p.status !== "canceled").length ? "Pay batch" : `Pay ${items.length} remaining`}
                </Button>
                {running ? <Button variant="tertiary" size="md" onClick={() => abort.current?.abort()}>Stop paying</Button> : null}
              </div>
            </>
          )
          : <p className="muted">{payable.length === 0 ? (inFlight.length > 0 ? "" : "Every payout of this batch is sent.") : "Loading the contractors' addresses…"}</p>}
        {state === undefined || (!running && error === undefined && items.length === 0) ? null : (
          <div aria-live="polite">
            <p className="small">
              {STAGE_WORDS[state.stage]}{state.note === undefined ? "" : ` (${state.note})`}
              {state.stage === "paying" ? ` — ${done} of ${state.items.length} sent${left === undefined || done === state.items.length ? "" : `, about ${left} left`}` : ""}
            </p>
            <ul className="list small">
              {state.items.filter((i) => state.steps.has(i.payoutId)).map((i) => {
                const s = state.steps.get(i.payoutId)!
                return <li key={i.payoutId}>{i.name}: {STEP_WORDS[s.step]}{s.step === "failed" && s.detail !== undefined ? ` (${s.detail})` : ""}</li>
              })}
            </ul>
          </div>
        )}
        {error === undefined ? null : <p className="action__error" role="alert">{error}</p>}
      </div>
    </Section>
  )
}

