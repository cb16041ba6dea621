import { Button, Input, Select } from "@stellar/design-system"
import { Option } from "effect"
import { type ChangeEvent, type FormEvent, type ReactNode, useState } from "react"
import type { ContractorJson, ContractorStatus, Me } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { useContractorControls, useContractors } from "../api/Contractors.ts"
import { type Allowed, permissionsOf } from "../api/Me.ts"
import { Confirm } from "../components/Confirm.tsx"
import { ShownOnce } from "../components/ShownOnce.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time } from "../components/Time.tsx"
import { contractorRows, type ImportRow } from "../lib/Csv.ts"
import { href } from "../router/Router.tsx"

/** Words for screen readers only: which row a short button acts on. */
const Hidden = ({ children }: { readonly children: ReactNode }) => <span className="visually-hidden">{children}</span>

const STATUSES: ReadonlyArray<ContractorStatus> = ["invited", "onboarding", "ready", "inactive"]
const short = (text: string) => (text.length > 14 ? `${text.slice(0, 6)}…${text.slice(-6)}` : text)

const AddContractor = ({ allowed }: { readonly allowed: Allowed }) => {
  const { create } = useContractorControls()
  const [form, setForm] = useState({ name: "", email: "", address: "" })
  const set = (key: keyof typeof form) => (e: ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ name: form.name.trim(), email: form.email.trim(), address: form.address.trim() }, {
      onSuccess: () => setForm({ name: "", email: "", address: "" })
    })
  }
  if (!allowed.allowed) return null
  return (
    <Section title="Add a contractor" id="add-contractor">
      <form className="form" onSubmit={submit}>
        <Input id="contractor-name" fieldSize="md" label="Name" value={form.name} onChange={set("name")} maxLength={200} required />
        <Input id="contractor-email" fieldSize="md" label="Email (optional)" type="email" value={form.email} onChange={set("email")} />
        <Input
          id="contractor-address"
          fieldSize="md"
          label="Stellar address (optional)"
          note="G… or C…: ready at once if it is registered with the confidential token; otherwise invite them."
          value={form.address}
          onChange={set("address")}
          autoComplete="off"
        />
        <Button variant="primary" size="md" type="submit" isLoading={create.isPending} disabled={form.name.trim() === ""}>Add contractor</Button>
        {create.isError ? <ErrorNote what="add the contractor" error={create.error} /> : null}
        {create.isSuccess ? <p role="status" className="muted">Added {create.data.name} ({create.data.status}).</p> : null}
      </form>
    </Section>
  )
}

const BulkImportForm = ({ allowed }: { readonly allowed: Allowed }) => {
  const { bulk } = useContractorControls()
  const [rows, setRows] = useState<ReadonlyArray<ImportRow>>([])
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    bulk.reset()
    const file = event.target.files?.[0]
    if (file === undefined) return
    void file.text().then((text) => {
      const parsed = contractorRows(text)
      if ("problem" in parsed) {
        setProblem(parsed.problem)
        setRows([])
      } else {
        setProblem(undefined)
        setRows(parsed.rows)
      }
    })
  }
  const errors = new Map(bulk.data?.errors.map((e) => [e.row, e.reason]) ?? [])
  if (!allowed.allowed) return null
  return (
    <Section title="Import from a CSV file" id="bulk-import">
      <p className="muted small">Columns: name, and as you have them email, address, amount. The file is read in this browser; up to 1,000 rows.</p>
      <div className="field">
        <label htmlFor="bulk-file">CSV file</label>
        <input id="bulk-file" type="file" accept=".csv,text/csv" onChange={choose} />
      </div>
      {problem === undefined ? null : <p className="action__error" role="alert">{problem}</p>}
      {rows.length === 0 ? null : (
        <>
          <table className="table">
            <caption className="visually-hidden">Rows read from the file</caption>
            <thead><tr><th scope="col">Row</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Address</th><th scope="col">Result</th></tr></thead>
            <tbody>
              {rows.map((row, i) => (
                <tr key={i}>
                  <td data-label="Row">{i + 1}</td>
                  <td data-label="Name">{row.name}</td>
                  <td data-label="Email">{row.email ?? ""}</td>
                  <td data-label="Address">{row.address === undefined ? "" : <code title={row.address}>{short(row.address)}</code>}</td>
                  <td data-label="Result">
                    {bulk.data === undefined ? "" : errors.has(i) ? <span className="action__error">{errors.get(i)}</span> : "imported"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="row">
            <Button variant="primary" size="md" onClick={() => bulk.mutate(rows)} isLoading={bulk.isPending} disabled={bulk.isSuccess}>
              {`Import ${rows.length} row${rows.length === 1 ? "" : "s"}`}
            </Button>
            <span role="status">
              {bulk.data === undefined ? "" : `${bulk.data.imported.length} imported, ${bulk.data.errors.length} refused (see each row).`}
            </span>
          </div>
          {bulk.isError ? <ErrorNote what="import the file" error={bulk.error} /> : null}
        </>
      )}
    </Section>
  )
}

const ContractorRow = ({ contractor, allowed }: { readonly contractor: typeof ContractorJson.Type; readonly allowed: Allowed }) => {
  const { invite, check, setStatus } = useContractorControls()
  const link = invite.data === undefined ? undefined : `${window.location.origin}${href(`/invites/${encodeURIComponent(invite.data.token)}`)}`
  const failed = [invite, check, setStatus].find((m) => m.isError)
  return (
    <tr>
      <td data-label="Name">{contractor.name}{Option.match(contractor.email, { onNone: () => null, onSome: (e) => <div className="muted small">{e}</div> })}</td>
      <td data-label="Status"><StatusBadge status={contractor.status} /></td>
      <td data-label="Address">{Option.match(contractor.address, { onNone: () => <span className="muted">none yet</span>, onSome: (a) => <code title={a}>{short(a)}</code> })}</td>
      <td data-label="Added"><Time at={contractor.createdAt} /></td>
      <td data-label="Last paid">{Option.match(contractor.lastPaidAt, { onNone: () => "never", onSome: (at) => <Time at={at} /> })}</td>
      <td data-label="Actions">
        {!allowed.allowed ? null : (
          <div className="row">
            {contractor.status === "invited"
              ? <Button variant="secondary" size="sm" onClick={() => invite.mutate(contractor.id)} isLoading={invite.isPending}>Invite link<Hidden> for {contractor.name}</Hidden></Button>
              : null}
            {contractor.status === "invited" || contractor.status === "onboarding"
              ? <Button variant="tertiary" size="sm" onClick={() => check.mutate(contractor.id)} isLoading={check.isPending}>Check registration<Hidden> of {contractor.name}</Hidden></Button>
              : null}
            {contractor.status !== "inactive"
              ? (
                <Confirm question={`Deactivate ${contractor.name}?`} confirmLabel="Yes, deactivate" onConfirm={() => setStatus.mutate({ id: contractor.id, status: "inactive" })}>
                  {(ask) => <Button variant="tertiary" size="sm" onClick={ask} isLoading={setStatus.isPending}>Deactivate<Hidden> {contractor.name}</Hidden></Button>}
                </Confirm>
              )
              : null}
          </div>
        )}
        {link === undefined ? null : (
          <ShownOnce value={link} copyLabel="Copy invite link">
            Send this link to {contractor.name} (single use, valid until <Time at={invite.data!.expiresAt} />):
          </ShownOnce>
        )}
        {failed === undefined ? null : <span className="action__error" role="alert">{messageOf(failed.error)}</span>}
      </td>
    </tr>
  )
}

export const Contractors = ({ me }: { readonly me: Me }) => {
  const allowed = permissionsOf(me)("directory:write")
  const [status, setStatus] = useState<ContractorStatus | undefined>(undefined)
  const [search, setSearch] = useState("")
  const [q, setQ] = useState("")
  const list = useContractors({ status, q })
  const items = list.data?.pages.flatMap((p) => p.items) ?? []
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setQ(search.trim())
  }
  return (
    <Page title="Contractors">
      <div className="columns">
        <AddContractor allowed={allowed} />
        <BulkImportForm allowed={allowed} />
      </div>
      <Section title="Directory" id="directory">
        {allowed.allowed ? null : <p className="muted small">{allowed.reason} You can search and read the directory.</p>}
        <form className="filters filters--grid" onSubmit={submit} aria-label="Search the directory">
          <Input id="contractor-search" fieldSize="md" label="Search name or email" value={search} onChange={(e) => setSearch(e.target.value)} />
          <Select id="contractor-status" fieldSize="md" label="Status" value={status ?? ""} onChange={(e) => setStatus(e.target.value === "" ? undefined : e.target.value as ContractorStatus)}>
            <option value="">Any status</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </Select>
          <div className="row"><Button variant="secondary" size="md" type="submit">Search</Button></div>
        </form>
        {list.isPending
          ? <Loading what="contractors" />
          : list.isError
          ? <ErrorNote what="load the directory" error={list.error} />
          : items.length === 0
          ? <Empty>{q === "" && status === undefined ? "No contractor yet: add one above." : "No contractor matches."}</Empty>
          : (
            <table className="table">
              <caption className="visually-hidden">Contractors, newest first</caption>
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Address</th><th scope="col">Added</th><th scope="col">Last paid</th><th scope="col">Actions</th></tr>
              </thead>
              <tbody>{items.map((c) => <ContractorRow key={c.id} contractor={c} allowed={allowed} />)}</tbody>
            </table>
          )}
        {list.hasNextPage ? <Button variant="tertiary" size="md" onClick={() => void list.fetchNextPage()} isLoading={list.isFetchingNextPage}>Load more contractors</Button> : null}
      </Section>
    </Page>
  )
}
