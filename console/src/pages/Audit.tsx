import { Button, Input, Notification, Select } from "@stellar/design-system"
import { Option } from "effect"
import { type FormEvent, useState } from "react"
import type { Me } from "@confidential-payroll/client/contract"
import { type AuditFilter, useAudit, useVerify } from "../api/Audit.ts"
import { messageOf } from "../api/ApiError.ts"
import { CopyButton } from "../components/CopyButton.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { Time, timeZone } from "../components/Time.tsx"
import { Link } from "../router/Router.tsx"

const SUBJECTS = ["batch", "payout", "contractor", "member", "invite", "org", "apiKey", "webhook"] as const
const short = (text: string) => (text.length > 14 ? `${text.slice(0, 6)}…${text.slice(-6)}` : text)

const Verify = ({ manages }: { readonly manages: boolean }) => {
  const verify = useVerify()
  const [earlier, setEarlier] = useState("")
  const answer = verify.data
  const submit = (event: FormEvent) => {
    event.preventDefault()
    verify.mutate(earlier)
  }
  const kept = answer?.checkpointKept
  return (
    <Section title="Verify the chain" id="audit-verify">
      <p className="muted">
        Each entry is linked to the one before it by a hash. Verifying links what is waiting, then walks the whole chain.
        Keep the checkpoint it gives outside this service: checked later, it shows that no entry up to it was removed or
        rewritten since, which the chain alone cannot. A webhook endpoint that takes <code>audit.checkpoint</code> is
        sent one regularly (daily by default), so that your own systems keep them
        {manages ? <> (<Link to="/webhooks">Webhooks</Link>)</> : null}.
      </p>
      <form className="form" onSubmit={submit} aria-label="Verify the chain">
        <Input
          id="audit-checkpoint"
          fieldSize="md"
          label="Earlier checkpoint (optional)"
          note="position:hash, as an earlier verification gave it"
          value={earlier}
          onChange={(event) => setEarlier(event.target.value)}
        />
        <Button variant="secondary" size="md" type="submit" isLoading={verify.isPending}>Verify</Button>
      </form>
      <div aria-live="polite">
        {verify.isError ? <ErrorNote what="verify the chain" error={verify.error} /> : null}
        {answer === undefined ? null : answer.verified
          ? (
            <Notification variant="success" title="The chain holds">
              {answer.rows} entries verified{answer.pending === 0 ? "" : `, ${answer.pending} still waiting to be linked`}.
              {kept === true ? " The earlier checkpoint is still in it, unchanged." : ""}
            </Notification>
          )
          : (
            <Notification variant="error" title="The chain is broken">
              {answer.firstBrokenId === undefined
                ? `${answer.rows} entries checked and linked, but the earlier checkpoint is not in the chain: entries up to ` +
                  "it were removed or rewritten since, or it is not a checkpoint of this organization's chain."
                : `${answer.rows} entries checked; the first that does not match is ${answer.firstBrokenId}. Entries from ` +
                  "there on may have been changed." +
                  (kept === false ? " The earlier checkpoint is not in the chain either." : kept === true ? " The entries up to the earlier checkpoint are unchanged." : "")}
            </Notification>
          )}
        {answer?.checkpoint === undefined ? null : (
          <div className="secret">
            <p>
              Checkpoint at entry {answer.checkpoint.position}, signed by this service's key{" "}
              <code>{short(answer.checkpoint.signingKey)}</code>. Keep it to check a later verification against.
            </p>
            <code>{`${answer.checkpoint.position}:${answer.checkpoint.hash}`}</code>
            <CopyButton text={`${answer.checkpoint.position}:${answer.checkpoint.hash}`} label="Copy checkpoint" />
          </div>
        )}
      </div>
    </Section>
  )
}

const Filters = ({ onApply }: { readonly onApply: (filter: AuditFilter) => void }) => {
  const [form, setForm] = useState<AuditFilter>({})
  const set = (key: keyof AuditFilter) => (event: { readonly target: { readonly value: string } }) => setForm({ ...form, [key]: event.target.value })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onApply(form)
  }
  return (
    <form className="filters filters--grid filters--top" onSubmit={submit} aria-label="Filter the audit trail">
      <Select id="audit-subject-type" fieldSize="md" label="Subject type" value={form.subjectType ?? ""} onChange={set("subjectType")}>
        <option value="">Any</option>
        {SUBJECTS.map((s) => <option key={s} value={s}>{s}</option>)}
      </Select>
      <Input id="audit-subject-id" fieldSize="md" label="Subject id" value={form.subjectId ?? ""} onChange={set("subjectId")} />
      <Input id="audit-actor" fieldSize="md" label="Actor" note="An account, API key id, ledger or worker" value={form.actor ?? ""} onChange={set("actor")} />
      <Input id="audit-action" fieldSize="md" label="Action" placeholder="e.g. batch.approved" value={form.action ?? ""} onChange={set("action")} />
      <Input id="audit-from" fieldSize="md" type="datetime-local" label="From" note={timeZone} value={form.from ?? ""} onChange={set("from")} />
      <Input id="audit-to" fieldSize="md" type="datetime-local" label="Until" note={timeZone} value={form.to ?? ""} onChange={set("to")} />
      <div className="row">
        <Button variant="primary" size="md" type="submit">Apply filters</Button>
        <Button variant="tertiary" size="md" type="button" onClick={() => { setForm({}); onApply({}) }}>Clear</Button>
      </div>
    </form>
  )
}

export const Audit = ({ me }: { readonly me: Me }) => {
  const [filter, setFilter] = useState<AuditFilter>({})
  const trail = useAudit(filter)
  const rows = trail.data?.pages.flatMap((p) => p.items) ?? []
  return (
    <Page title="Audit trail">
      <Verify manages={me.employer?.permissions.includes("org:manage") === true} />
      <Section title="Entries" id="audit-entries">
        <Filters onApply={setFilter} />
        {trail.isPending
          ? <Loading what="the audit trail" />
          : trail.isError && rows.length === 0
          ? <ErrorNote what="load the audit trail" error={trail.error} />
          : rows.length === 0
          ? <Empty>No entry matches these filters.</Empty>
          : (
            <table className="table">
              <caption className="visually-hidden">Audit entries, newest first</caption>
              <thead>
                <tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Change</th></tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td data-label="When"><Time at={r.at} /></td>
                    <td data-label="Actor">{r.actor.type} <code title={r.actor.id}>{short(r.actor.id)}</code></td>
                    <td data-label="Action"><code>{r.action}</code></td>
                    <td data-label="Subject">
                      {r.subject.type}{" "}
                      {r.subject.type === "batch"
                        ? <Link to={`/batches/${r.subject.id}`} title={r.subject.id}>{short(r.subject.id)}</Link>
                        : <code title={r.subject.id}>{short(r.subject.id)}</code>}
                    </td>
                    <td data-label="Change">
                      {Option.isNone(r.from) && Option.isNone(r.to) ? "—" : `${Option.getOrElse(r.from, () => "—")} → ${Option.getOrElse(r.to, () => "—")}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        {trail.hasNextPage
          ? <Button variant="tertiary" size="md" onClick={() => void trail.fetchNextPage()} isLoading={trail.isFetchingNextPage}>Load more entries</Button>
          : null}
        {trail.isError && rows.length > 0 ? <p className="action__error" role="alert">{messageOf(trail.error)}</p> : null}
      </Section>
    </Page>
  )
}
