import { Button, Checkbox, Textarea } from "@stellar/design-system"
import { Option, Schema } from "effect"
import { type FormEvent, useEffect, useState } from "react"
import { type Batch, BatchId, type ContractorId, type Me, type Payout } from "@confidential-payroll/client/contract"
import { useBatch, useBatchControls, usePayouts, usePollDelay } from "../api/Batches.ts"
import { messageOf } from "../api/ApiError.ts"
import { useContractorNames, useContractors } from "../api/Contractors.ts"
import { type Allowed, permissionsOf } from "../api/Me.ts"
import { ActionButton, Reasons } from "../components/ActionButton.tsx"
import { Confirm } from "../components/Confirm.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time } from "../components/Time.tsx"
import { TxLink } from "../components/TxLink.tsx"
import { Link, navigate } from "../router/Router.tsx"
import { sealingOps } from "../sealing/Sealing.tsx"
import { AnswerRequest } from "../disclosure/AnswerRequest.tsx"
import { useSession } from "../session/Session.tsx"
import { Amounts, type BatchAmounts, useBatchAmounts } from "./BatchAmounts.tsx"
import { Pay } from "./BatchPay.tsx"

const short = (text: string) => (text.length > 14 ? `${text.slice(0, 6)}…${text.slice(-6)}` : text)
const errorOf = (m: { readonly isError: boolean; readonly error: unknown }) => (m.isError ? messageOf(m.error) : undefined)

/** Approving needs the permission, and someone other than whoever made or readied the batch (maker-checker). */
const approval = (batch: Batch, me: Me, can: (p: "batches:approve") => Allowed, amounts: BatchAmounts): Allowed => {
  const allowed = can("batches:approve")
  if (!allowed.allowed) return allowed
  // Once sealed amounts are known to exist, the approval names their digest, so they must be open on this page. (While
  // they load, an approval without a digest is refused by the service if there are some: 409.)
  if (amounts.sealed !== null && amounts.sealed !== undefined && amounts.opened === undefined) {
    return { allowed: false, reason: "Unlock and read the amounts first: an approval names the amounts it approves." }
  }
  if (Option.contains(batch.createdBy, me.sub)) return { allowed: false, reason: "You created this batch: another member must approve it." }
  if (Option.contains(batch.readiedBy, me.sub)) return { allowed: false, reason: "You marked this batch ready: another member must approve it." }
  if (batch.approvals.some((a) => a.by === me.sub)) return { allowed: false, reason: "You have already approved this batch." }
  return allowed
}

const Summary = ({ batch, poll }: { readonly batch: Batch; readonly poll: number | false }) => (
  <>
    <dl className="facts">
      <div><dt>Status</dt><dd><StatusBadge status={batch.status} /></dd></div>
      <div><dt>Payouts</dt><dd>{batch.payoutCount}</dd></div>
      <div><dt>Settled</dt><dd>{batch.settledCount}</dd></div>
      <div><dt>Failed</dt><dd>{batch.failedCount}</dd></div>
      <div><dt>Canceled</dt><dd>{batch.canceledCount}</dd></div>
      <div>
        <dt>Approvals</dt>
        <dd>{batch.approvalsRequired === 0 ? "not required" : `${batch.approvals.length} of ${batch.approvalsRequired}`}</dd>
      </div>
      <div><dt>Created</dt><dd><Time at={batch.createdAt} />{Option.match(batch.createdBy, { onNone: () => null, onSome: (by) => <> by <code title={by}>{short(by)}</code></> })}</dd></div>
      {Option.match(batch.readiedBy, { onNone: () => null, onSome: (by) => <div><dt>Readied by</dt><dd><code title={by}>{short(by)}</code></dd></div> })}
      {Option.match(batch.startedAt, { onNone: () => null, onSome: (at) => <div><dt>Started</dt><dd><Time at={at} /></dd></div> })}
      {Option.match(batch.completedAt, { onNone: () => null, onSome: (at) => <div><dt>Completed</dt><dd><Time at={at} /></dd></div> })}
      {Option.match(batch.cancelRequestedAt, { onNone: () => null, onSome: (at) => <div><dt>Cancel requested</dt><dd><Time at={at} /></dd></div> })}
    </dl>
    {batch.approvals.length === 0 ? null : (
      <ul className="list" aria-label="Approvals">
        {batch.approvals.map((a) => <li key={a.by}>Approved by <code title={a.by}>{short(a.by)}</code> on <Time at={a.at} /></li>)}
      </ul>
    )}
    <p className="muted small" aria-live="off">{poll === false ? "" : `Refreshing every ${Math.round(poll / 1000)} s while the batch can still change.`}</p>
  </>
)

const RejectForm = ({ onReject, busy, error, allowed }: {
  readonly onReject: (reason: string) => void
  readonly busy: boolean
  readonly error: string | undefined
  readonly allowed: Allowed
}) => {
  const [open, setOpen] = useState(false)
  const [reason, setReason] = useState("")
  if (!open) return <ActionButton reasonShown="apart" label="Reject" allowed={allowed} onClick={() => setOpen(true)} error={error} />
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onReject(reason.trim())
  }
  return (
    <form className="form reject" onSubmit={submit}>
      <Textarea
        id="reject-reason"
        fieldSize="md"
        label="Why is it rejected?"
        note="The batch goes back to draft, its approvals cleared; the reason is in the audit trail and the webhook."
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        maxLength={500}
        autoFocus
        error={error}
      />
      <div className="row">
        <Button variant="destructive" size="md" type="submit" isLoading={busy} disabled={reason.trim() === ""}>Reject batch</Button>
        <Button variant="tertiary" size="md" type="button" onClick={() => setOpen(false)}>Back</Button>
      </div>
    </form>
  )
}

const Controls = ({ batch, me, amounts }: { readonly batch: Batch; readonly me: Me; readonly amounts: BatchAmounts }) => {
  const can = permissionsOf(me)
  const controls = useBatchControls(batch.id)
  const write = can("batches:write")
  const control = can("batches:control")
  const s = batch.status
  const running = s === "ready" || s === "started" || s === "paused"
  const needsApproval = s === "ready" && batch.approvalsRequired > 0 && batch.approvals.length < batch.approvalsRequired
  const ready = write.allowed && batch.payoutCount === 0 ? { allowed: false, reason: "Add at least one payout first." } : write
  const approve = approval(batch, me, can, amounts)
  // The digest approved is the one of the envelope this page opened, computed here: with the key commitment inside it,
  // the approval binds what the approver read, whatever digest the service reports (a different one is refused, 409).
  const approveWhatWasRead = async () => {
    const envelope = amounts.sealed?.envelope
    // A version 1 envelope never opens, so its batch cannot be approved here (approval() says why).
    controls.approve.mutate(envelope === undefined || envelope.version !== 2 ? amounts.sealed?.digest : (await sealingOps()).digest(envelope))
  }
  const shown = [
    s === "draft" ? [ready, write] : [],
    needsApproval ? [approve, can("batches:approve")] : [],
    s === "ready" || s === "started" || s === "paused" ? [control] : [],
    running && Option.isNone(batch.cancelRequestedAt) ? [write] : []
  ].flat()
  return (
    <Section title="Controls" id="batch-controls">
      <div className="controls">
        {s === "draft"
          ? (
            <>
              <ActionButton reasonShown="apart"
                label="Mark ready"
                variant="primary"
                allowed={ready}
                busy={controls.ready.isPending}
                onClick={() => controls.ready.mutate()}
                error={errorOf(controls.ready)}
              />
              <Confirm question="Delete this draft batch?" confirmLabel="Delete draft" onConfirm={() => controls.remove.mutate(undefined, { onSuccess: () => navigate("/batches") })}>
                {(ask) => <ActionButton reasonShown="apart" label="Delete draft" variant="tertiary" allowed={write} busy={controls.remove.isPending} onClick={ask} error={errorOf(controls.remove)} />}
              </Confirm>
            </>
          )
          : null}
        {needsApproval
          ? (
            <>
              <ActionButton reasonShown="apart"
                label="Approve"
                variant="primary"
                allowed={approve}
                busy={controls.approve.isPending}
                onClick={() => void approveWhatWasRead()}
                error={errorOf(controls.approve)}
              />
              <RejectForm allowed={can("batches:approve")} busy={controls.reject.isPending} error={errorOf(controls.reject)} onReject={(reason) => controls.reject.mutate(reason)} />
            </>
          )
          : null}
        {s === "ready" || s === "started"
          ? <ActionButton reasonShown="apart" label="Pause" allowed={control} busy={controls.pause.isPending} onClick={() => controls.pause.mutate()} error={errorOf(controls.pause)} />
          : null}
        {s === "paused"
          ? <ActionButton reasonShown="apart" label="Resume" variant="primary" allowed={control} busy={controls.resume.isPending} onClick={() => controls.resume.mutate()} error={errorOf(controls.resume)} />
          : null}
        {running && Option.isNone(batch.cancelRequestedAt)
          ? (
            <Confirm question="Cancel every payout not yet sent?" confirmLabel="Yes, cancel batch" onConfirm={() => controls.cancel.mutate()}>
              {(ask) => <ActionButton reasonShown="apart" label="Cancel batch" variant="destructive" allowed={write} busy={controls.cancel.isPending} onClick={ask} error={errorOf(controls.cancel)} />}
            </Confirm>
          )
          : null}
        {s === "completed" || s === "canceled" ? <p className="muted">This batch is {s}: nothing more can be done to it.</p> : null}
      </div>
      <Reasons reasons={shown.map((a) => a.reason)} />
    </Section>
  )
}

const AddPayouts = ({ batch, present, me }: { readonly batch: Batch; readonly present: ReadonlySet<string>; readonly me: Me }) => {
  const allowed = permissionsOf(me)("batches:write")
  const ready = useContractors({ status: "ready" }, 100)
  const { addPayouts } = useBatchControls(batch.id)
  const [chosen, setChosen] = useState<ReadonlySet<ContractorId>>(new Set())
  const candidates = (ready.data?.pages.flatMap((p) => p.items) ?? []).filter((c) => !present.has(c.id))
  const toggle = (id: ContractorId) => setChosen((now) => {
    const next = new Set(now)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    return next
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    addPayouts.mutate([...chosen], { onSuccess: () => setChosen(new Set()) })
  }
  return (
    <Section title="Add payouts" id="add-payouts">
      {!allowed.allowed
        ? <p className="muted">{allowed.reason}</p>
        : ready.isPending
        ? <Loading what="ready contractors" />
        : ready.isError
        ? <ErrorNote what="load ready contractors" error={ready.error} />
        : candidates.length === 0 && !ready.hasNextPage
        ? <Empty>No ready contractor left to add. Contractors become ready once their wallet is registered with the confidential token (<Link to="/contractors">Contractors</Link>).</Empty>
        : (
          <form className="form" onSubmit={submit}>
            <fieldset className="checklist">
              <legend>Ready contractors</legend>
              {candidates.map((c) => (
                <Checkbox
                  key={c.id}
                  id={`add-${c.id}`}
                  label={c.name}
                  fieldSize="md"
                  checked={chosen.has(c.id)}
                  onChange={() => toggle(c.id)}
                />
              ))}
            </fieldset>
            {ready.hasNextPage
              ? <Button variant="tertiary" size="md" type="button" onClick={() => void ready.fetchNextPage()} isLoading={ready.isFetchingNextPage}>Load more contractors</Button>
              : null}
            <div className="row">
              <Button variant="primary" size="md" type="submit" isLoading={addPayouts.isPending} disabled={chosen.size === 0}>
                {chosen.size === 1 ? "Add 1 payout" : `Add ${chosen.size} payouts`}
              </Button>
              {addPayouts.isError ? <span className="action__error" role="alert">{messageOf(addPayouts.error)}</span> : null}
            </div>
          </form>
        )}
    </Section>
  )
}

const PayoutRow = ({ payout, batch, name, me, onDisclose }: {
  readonly payout: Payout
  readonly batch: Batch
  readonly name: string
  readonly me: Me
  readonly onDisclose?: (hash: string) => void
}) => {
  const write = permissionsOf(me)("batches:write")
  const { removePayout, cancelPayout } = useBatchControls(batch.id)
  const unsent = payout.status === "draft" || payout.status === "ready"
  return (
    <tr>
      <td data-label="Contractor">{name}</td>
      <td data-label="Status"><StatusBadge status={payout.status} /></td>
      <td data-label="Transaction">
        {Option.match(payout.hash, {
          onNone: () => <span className="muted">not sent</span>,
          onSome: (hash) => <TxLink hash={hash} />
        })}
        {payout.status === "settled" && onDisclose !== undefined && Option.isSome(payout.hash)
          ? <> <Button variant="tertiary" size="sm" onClick={() => onDisclose(Option.getOrThrow(payout.hash))}>Disclose this payout</Button></>
          : null}
        {Option.match(payout.error, { onNone: () => null, onSome: (e) => <span className="action__error"> {e}</span> })}
      </td>
      <td data-label="Updated"><Time at={payout.updatedAt} /></td>
      {!write.allowed ? null : (
        <td data-label="Actions">
          {batch.status === "draft"
            ? <ActionButton label="Remove" about={name} variant="tertiary" allowed={write} busy={removePayout.isPending} onClick={() => removePayout.mutate(payout.id)} error={errorOf(removePayout)} />
            : unsent && batch.status !== "canceled" && batch.status !== "completed"
            ? <ActionButton label="Cancel payout" about={`to ${name}`} variant="tertiary" allowed={write} busy={cancelPayout.isPending} onClick={() => cancelPayout.mutate(payout.id)} error={errorOf(cancelPayout)} />
            : null}
        </td>
      )}
    </tr>
  )
}

/**
 * D-sender (issue 37): the paying wallet proves to the recipient whose request it opens one payout's amount, or the
 * total it paid a payee over a period (the aggregate). The request's own criteria select the payouts, not the row
 * clicked: a bundle over another payout than the one asked about is refused at the verifier's step 0, and a total
 * covers this wallet's payouts to that payee from every batch.
 */
const DisclosePayout = ({ hash, me }: { readonly hash: string; readonly me: Me }) => {
  const { session } = useSession()
  return (
    <Section title="Disclose this payout" id="disclose-payout">
      <p className="muted">
        Open the request the recipient (a bank, an auditor) sent about the payout of transaction <code title={hash}>{short(hash)}</code>, or
        about the total this wallet paid a contractor over a period: the payouts it asks about are selected, and the proof is made in
        this browser with the keys of the wallet that paid them.
      </p>
      {session === undefined ? null : <AnswerRequest account={me.sub} session={session.token} />}
    </Section>
  )
}

const BatchView = ({ id, me }: { readonly id: BatchId; readonly me: Me }) => {
  const [poll, setPoll] = useState<number | false>(false)
  const batch = useBatch(id, poll)
  const payouts = usePayouts(id, poll)
  const names = useContractorNames(payouts.data?.pages.map((page) => page.items.map((p) => p.contractorId)) ?? [])
  const delay = usePollDelay(batch.data, batch.dataUpdatedAt)
  const amounts = useBatchAmounts(id, me, poll)
  const [disclosing, setDisclosing] = useState<string>()
  useEffect(() => setPoll(delay), [delay])
  if (batch.isPending) return <Page title="Batch"><Loading what="the batch" /></Page>
  if (batch.isError) return <Page title="Batch"><ErrorNote what="load the batch" error={batch.error}><p><Link to="/batches">Back to batches</Link></p></ErrorNote></Page>
  const b = batch.data
  const items = payouts.data?.pages.flatMap((p) => p.items) ?? []
  const nameOf = (contractorId: string) => names.get(contractorId) ?? `contractor ${contractorId.slice(0, 8)}`
  return (
    <Page title={b.name} actions={<Link to="/batches">All batches</Link>}>
      <Summary batch={b} poll={poll} />
      <Amounts batch={b} me={me} payouts={items} nameOf={nameOf} amounts={amounts} />
      <Controls batch={b} me={me} amounts={amounts} />
      <Pay batch={b} me={me} payouts={items} amounts={amounts} nameOf={nameOf} />
      {b.status === "draft" ? <AddPayouts batch={b} me={me} present={new Set(items.map((p) => p.contractorId as string))} /> : null}
      <Section title="Payouts" id="batch-payouts">
        {payouts.isPending
          ? <Loading what="payouts" />
          : payouts.isError
          ? <ErrorNote what="load the payouts" error={payouts.error} />
          : items.length === 0
          ? <Empty>No payout in this batch yet.</Empty>
          : (
            <table className="table">
              <caption className="visually-hidden">Payouts of {b.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Contractor</th><th scope="col">Status</th><th scope="col">Transaction</th><th scope="col">Updated</th>
                  {permissionsOf(me)("batches:write").allowed ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {items.map((p) => (
                  <PayoutRow key={p.id} payout={p} batch={b} name={nameOf(p.contractorId)} me={me} {...(me.method === "sep10" ? { onDisclose: setDisclosing } : {})} />
                ))}
              </tbody>
            </table>
          )}
        {payouts.hasNextPage ? <Button variant="tertiary" size="md" onClick={() => void payouts.fetchNextPage()}>Load more payouts</Button> : null}
      </Section>
      {disclosing === undefined ? null : <DisclosePayout hash={disclosing} me={me} />}
    </Page>
  )
}

export const BatchDetail = ({ rawId, me }: { readonly rawId: string; readonly me: Me }) =>
  Option.match(Schema.decodeUnknownOption(BatchId)(rawId), {
    onNone: () => <Page title="Batch not found"><Empty>There is no batch at this address. <Link to="/batches">All batches</Link></Empty></Page>,
    onSome: (id) => <BatchView key={id} id={id} me={me} />
  })
