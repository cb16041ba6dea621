import { Button, Select } from "@stellar/design-system"
import { type FormEvent, useEffect, useState } from "react"
import type { Me } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { permissionsOf } from "../api/Me.ts"
import { useSettings, useUpdateSettings } from "../api/Org.ts"
import { Page, Section } from "../components/Page.tsx"
import { ErrorNote, Loading } from "../components/States.tsx"

const CHOICES = [
  { value: 0, label: "None: a ready batch can be paid at once" },
  { value: 1, label: "One approval" },
  { value: 2, label: "Two approvals" }
] as const

export const Settings = ({ me }: { readonly me: Me }) => {
  const allowed = permissionsOf(me)("org:manage")
  const settings = useSettings()
  const update = useUpdateSettings()
  const [value, setValue] = useState<0 | 1 | 2>(0)
  useEffect(() => {
    if (settings.data !== undefined) setValue(settings.data.approvalsRequired)
  }, [settings.data])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    update.mutate(value)
  }
  return (
    <Page title="Settings">
      <Section title="Approvals before payment" id="settings-approvals">
        <p className="muted">
          Maker-checker: a ready batch's payouts are sponsored only once it holds this many approvals, none by the member
          who created or readied it.
        </p>
        {settings.isPending
          ? <Loading what="the settings" />
          : settings.isError
          ? <ErrorNote what="load the settings" error={settings.error} />
          : (
            <form className="form" onSubmit={submit}>
              <Select
                id="approvals-required"
                fieldSize="md"
                label="Approvals required"
                value={String(value)}
                disabled={!allowed.allowed}
                note={allowed.reason}
                onChange={(e) => setValue(Number(e.target.value) as 0 | 1 | 2)}
                {...(update.isError ? { error: messageOf(update.error) } : {})}
              >
                {CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
              </Select>
              <div className="row">
                <Button variant="primary" size="md" type="submit" isLoading={update.isPending} disabled={!allowed.allowed || value === settings.data.approvalsRequired}>
                  Save
                </Button>
                <span role="status" className="muted small">{update.isSuccess && value === settings.data.approvalsRequired ? "Saved." : ""}</span>
              </div>
            </form>
          )}
      </Section>
    </Page>
  )
}
