import { Banner } from "@stellar/design-system"
import { useQuery } from "@tanstack/react-query"
import type { Batch, Me } from "@confidential-payroll/client/contract"
import { useBatches } from "../api/Batches.ts"
import { run } from "../api/Client.ts"
import { useContractors } from "../api/Contractors.ts"
import { permissionsOf } from "../api/Me.ts"
import { BatchTable } from "../components/BatchTable.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time } from "../components/Time.tsx"
import { Link } from "../router/Router.tsx"
import { useClient } from "../api/useClient.ts"

/** A ready batch this member can approve: short of approvals, not theirs to check (maker-checker), not approved yet. */
const awaits = (sub: string) => (batch: Batch) =>
  batch.approvals.length < batch.approvalsRequired &&
  !batch.approvals.some((a) => a.by === sub) &&
  (batch.createdBy._tag === "None" || batch.createdBy.value !== sub) &&
  (batch.readiedBy._tag === "None" || batch.readiedBy.value !== sub)

const BatchList = ({ title, id, status, keep, empty }: {
  readonly title: string
  readonly id: string
  readonly status: "ready" | "paused" | undefined
  readonly keep: (batch: Batch) => boolean
  readonly empty: string
}) => {
  const batches = useBatches(status, 100)
  const items = batches.data?.pages.flatMap((page) => page.items).filter(keep) ?? []
  return (
    <Section title={title} id={id}>
      {batches.isPending
        ? <Loading what="batches" />
        : batches.isError
        ? <ErrorNote what="load batches" error={batches.error} />
        : items.length === 0
        ? <Empty>{empty}</Empty>
        : <BatchTable batches={items} caption={title} />}
    </Section>
  )
}

const Onboarding = () => {
  const invited = useContractors({ status: "invited" }, 10)
  const onboarding = useContractors({ status: "onboarding" }, 10)
  const items = [...(onboarding.data?.pages[0]?.items ?? []), ...(invited.data?.pages[0]?.items ?? [])]
  const failed = invited.error ?? onboarding.error
  return (
    <Section title="Contractors still onboarding" id="home-onboarding">
      {invited.isPending || onboarding.isPending
        ? <Loading what="contractors" />
        : failed !== null
        ? <ErrorNote what="load contractors" error={failed} />
        : items.length === 0
        ? <Empty>Every contractor has finished onboarding.</Empty>
        : (
          <ul className="list">
            {items.map((c) => (
              <li key={c.id}>
                <span>{c.name}</span> <StatusBadge status={c.status} /> <span className="muted small">added <Time at={c.createdAt} /></span>
              </li>
            ))}
            <li><Link to="/contractors">All contractors</Link></li>
          </ul>
        )}
    </Section>
  )
}

/** The archive of the token's events lagging more than a minute behind the ledger: what the service reports may be late. */
const ArchiveLag = () => {
  const client = useClient()
  const status = useQuery({ queryKey: ["archive-status"], queryFn: ({ signal }) => run(client.archive.status(), signal), retry: false })
  const lag = status.data?.lagSeconds
  if (lag === undefined || lag === null || lag <= 60) return null
  return (
    <Banner variant="warning">
      The ledger archive is {Math.round(lag / 60)} minute{lag < 120 ? "" : "s"} behind the network: settlements may show late.
    </Banner>
  )
}

export const Home = ({ me }: { readonly me: Me }) => {
  const can = permissionsOf(me)
  const approver = can("batches:approve").allowed
  return (
    <Page title="What needs you now">
      <ArchiveLag />
      <div className="columns">
        {approver
          ? <BatchList title="Awaiting my approval" id="home-approval" status="ready" keep={awaits(me.sub)} empty="No batch is waiting for your approval." />
          : null}
        <BatchList title="Paused batches" id="home-paused" status="paused" keep={() => true} empty="No batch is paused." />
        <BatchList
          title="Batches with failed payouts"
          id="home-failed"
          status={undefined}
          keep={(b) => b.failedCount > 0}
          empty="No payout failed in the latest 100 batches."
        />
        <Onboarding />
      </div>
    </Page>
  )
}
