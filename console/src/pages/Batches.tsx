import { Button, Input, Select } from "@stellar/design-system"
import { type FormEvent, useState } from "react"
import type { BatchStatus, Me } from "@confidential-payroll/client/contract"
import { useBatches, useCreateBatch } from "../api/Batches.ts"
import { messageOf } from "../api/ApiError.ts"
import { permissionsOf } from "../api/Me.ts"
import { BatchTable } from "../components/BatchTable.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { navigate } from "../router/Router.tsx"

const STATUSES: ReadonlyArray<BatchStatus> = ["draft", "ready", "started", "paused", "completed", "canceled"]

const CreateBatchForm = ({ me }: { readonly me: Me }) => {
  const allowed = permissionsOf(me)("batches:write")
  const create = useCreateBatch()
  const [name, setName] = useState("")
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(name.trim(), { onSuccess: (batch) => navigate(`/batches/${batch.id}`) })
  }
  return (
    <Section title="New batch" id="new-batch">
      <form className="form form--inline" onSubmit={submit}>
        <Input
          id="batch-name"
          fieldSize="md"
          label="Batch name"
          placeholder="e.g. November 2026"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={200}
          disabled={!allowed.allowed}
          note={allowed.reason}
          error={create.isError ? messageOf(create.error) : undefined}
        />
        <Button variant="primary" size="md" type="submit" isLoading={create.isPending} disabled={!allowed.allowed || name.trim() === ""}>
          Create batch
        </Button>
      </form>
    </Section>
  )
}

export const Batches = ({ me }: { readonly me: Me }) => {
  const [status, setStatus] = useState<BatchStatus | undefined>(undefined)
  const batches = useBatches(status)
  const items = batches.data?.pages.flatMap((page) => page.items) ?? []
  return (
    <Page title="Batches">
      <CreateBatchForm me={me} />
      <Section title="All batches" id="all-batches">
        <div className="filters">
          <Select
            id="batch-status"
            fieldSize="md"
            label="Status"
            value={status ?? ""}
            onChange={(e) => setStatus(e.target.value === "" ? undefined : e.target.value as BatchStatus)}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </Select>
        </div>
        {batches.isPending
          ? <Loading what="batches" />
          : batches.isError
          ? <ErrorNote what="load batches" error={batches.error} />
          : items.length === 0
          ? <Empty>{status === undefined ? "No batch yet: create the first one above." : `No ${status} batch.`}</Empty>
          : <BatchTable batches={items} caption="Batches, newest first" />}
        {batches.hasNextPage
          ? (
            <Button variant="tertiary" size="md" onClick={() => void batches.fetchNextPage()} isLoading={batches.isFetchingNextPage}>
              Load more batches
            </Button>
          )
          : null}
        {batches.isFetchNextPageError ? <ErrorNote what="load more batches" error={batches.error} /> : null}
      </Section>
    </Page>
  )
}
