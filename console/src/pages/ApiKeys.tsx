import { Button, Checkbox, Input, Select } from "@stellar/design-system"
import { type FormEvent, useState } from "react"
import { type ApiKey, type Me, MemberRole, Scope } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { useApiKeyControls, useApiKeys } from "../api/Org.ts"
import { Confirm } from "../components/Confirm.tsx"
import { ShownOnce } from "../components/ShownOnce.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { Time } from "../components/Time.tsx"

const SCOPES = Scope.literals

const NewKeyForm = () => {
  const { create } = useApiKeyControls()
  const [name, setName] = useState("")
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(new Set(["batches:read"]))
  const [role, setRole] = useState<MemberRole | "">("")
  const toggle = (scope: Scope) => setScopes((now) => {
    const next = new Set(now)
    if (next.has(scope)) next.delete(scope)
    else next.add(scope)
    return next
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ name: name.trim(), scopes: SCOPES.filter((s) => scopes.has(s)), role: role === "" ? undefined : role })
  }
  return (
    <Section title="New API key" id="new-key">
      <form className="form" onSubmit={submit}>
        <Input id="key-name" fieldSize="md" label="Name" placeholder="e.g. Payroll runner" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required />
        <fieldset className="checklist">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <Checkbox key={scope} id={`scope-${scope}`} fieldSize="md" label={scope} checked={scopes.has(scope)} onChange={() => toggle(scope)} />
          ))}
        </fieldset>
        <Select id="key-role" fieldSize="md" label="Acts as" note="A key never does more than your own role allows." value={role} onChange={(e) => setRole(e.target.value as MemberRole | "")}>
          <option value="">My role</option>
          {MemberRole.literals.map((r) => <option key={r} value={r}>{r}</option>)}
        </Select>
        <Button variant="primary" size="md" type="submit" isLoading={create.isPending} disabled={name.trim() === "" || scopes.size === 0}>Create key</Button>
        {create.isError ? <ErrorNote what="create the key" error={create.error} /> : null}
      </form>
      {create.data === undefined ? null : (
        <ShownOnce value={create.data.key} copyLabel="Copy key">
          <strong>{create.data.name}</strong>: copy the key now. It is shown only once; the service keeps only its hash.
        </ShownOnce>
      )}
    </Section>
  )
}

const KeyRow = ({ apiKey }: { readonly apiKey: ApiKey }) => {
  const { revoke } = useApiKeyControls()
  return (
    <tr>
      <td data-label="Name">{apiKey.name}</td>
      <td data-label="Scopes">{apiKey.scopes.join(", ")}</td>
      <td data-label="Acts as">{apiKey.role ?? "its creator's role"}</td>
      <td data-label="Created"><Time at={apiKey.createdAt} /></td>
      <td data-label="Expires">{apiKey.expiresAt === null ? "never" : <Time at={apiKey.expiresAt} />}</td>
      <td data-label="Last used">{apiKey.lastUsedAt === null ? "never" : <Time at={apiKey.lastUsedAt} />}</td>
      <td data-label="Actions">
        <Confirm question={`Revoke ${apiKey.name}?`} confirmLabel="Yes, revoke" onConfirm={() => revoke.mutate(apiKey.id)}>
          {(ask) => <Button variant="tertiary" size="sm" onClick={ask} isLoading={revoke.isPending}>Revoke<span className="visually-hidden"> {apiKey.name}</span></Button>}
        </Confirm>
        {revoke.isError ? <span className="action__error" role="alert">{messageOf(revoke.error)}</span> : null}
      </td>
    </tr>
  )
}

export const ApiKeys = ({ me }: { readonly me: Me }) => {
  const keys = useApiKeys()
  return (
    <Restricted me={me} permission="org:manage" title="API keys">
      <Page title="API keys">
        <NewKeyForm />
        <Section title="Keys" id="keys-list">
          {keys.isPending
            ? <Loading what="API keys" />
            : keys.isError
            ? <ErrorNote what="load the API keys" error={keys.error} />
            : keys.data.items.length === 0
            ? <Empty>No API key yet.</Empty>
            : (
              <table className="table">
                <caption className="visually-hidden">API keys, newest first</caption>
                <thead>
                  <tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Acts as</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Actions</th></tr>
                </thead>
                <tbody>{keys.data.items.map((k) => <KeyRow key={k.id} apiKey={k} />)}</tbody>
              </table>
            )}
        </Section>
      </Page>
    </Restricted>
  )
}
