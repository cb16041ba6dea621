import { Button, Select } from "@stellar/design-system"
import { Option, Schema } from "effect"
import { type FormEvent, useEffect, useState } from "react"
import { type Me, type Webhook, type WebhookDelivery, WebhookId } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { type DeliveryStatus, useDeliveries, useDeliveryPoll, useResend, useWebhookControls, useWebhooks } from "../api/Webhooks.ts"
import { Confirm } from "../components/Confirm.tsx"
import { ShownOnce } from "../components/ShownOnce.tsx"
import { EndpointFields, isUrlError, useEndpointFields } from "../components/EndpointFields.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time } from "../components/Time.tsx"
import { Link, navigate } from "../router/Router.tsx"

const STATUSES: ReadonlyArray<DeliveryStatus> = ["pending", "delivered", "failed"]

/** The endpoint's last answer in words: its HTTP status, or why there was none (no answer, a refused address). */
const lastAnswer = (d: WebhookDelivery) => (d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : d.lastError ?? "no answer")

const DeliveryRow = ({ delivery, endpointId }: { readonly delivery: WebhookDelivery; readonly endpointId: WebhookId }) => {
  const resend = useResend(endpointId)
  return (
    <tr>
      <td data-label="Event"><div><code>{delivery.type}</code><div className="muted small" title="webhook-id">{delivery.eventId}</div></div></td>
      <td data-label="Status">
        <div>
          <StatusBadge status={delivery.status} />
          {delivery.deliveredAt === null ? null : <div className="muted small"><Time at={delivery.deliveredAt} /></div>}
        </div>
      </td>
      <td data-label="Attempts">{delivery.attempts}</td>
      <td data-label="Queued"><Time at={delivery.createdAt} /></td>
      <td data-label="Last attempt">
        {delivery.lastAttemptAt === null ? <span className="muted">none yet</span> : (
          <div>
            <Time at={delivery.lastAttemptAt} />
            <div className={delivery.status === "delivered" ? "muted small" : "action__error"}>{lastAnswer(delivery)}</div>
          </div>
        )}
      </td>
      <td data-label="Next attempt">{delivery.nextAttemptAt === null ? <span className="muted">none</span> : <Time at={delivery.nextAttemptAt} />}</td>
      <td data-label="Actions">
        <div className="action">
          <Button variant="tertiary" size="sm" onClick={() => resend.mutate(delivery.id)} isLoading={resend.isPending}>
            Resend<span className="visually-hidden"> {delivery.type} of <Time at={delivery.createdAt} /></span>
          </Button>
          <span role="status" className="muted small">{resend.isSuccess ? "Queued again." : ""}</span>
          {resend.isError ? <span className="action__error" role="alert">{messageOf(resend.error)}</span> : null}
        </div>
      </td>
    </tr>
  )
}

const Deliveries = ({ endpoint, onPoll }: { readonly endpoint: Webhook; readonly onPoll: (delay: number | false) => void }) => {
  const [status, setStatus] = useState<DeliveryStatus | undefined>(undefined)
  const [poll, setPoll] = useState<number | false>(false)
  const deliveries = useDeliveries(endpoint.id, status, poll)
  const items = deliveries.data?.pages.flatMap((p) => p.items)
  const delay = useDeliveryPoll(items, deliveries.dataUpdatedAt)
  useEffect(() => {
    setPoll(delay)
    onPoll(delay)
  }, [delay, onPoll])
  return (
    <Section title="Deliveries" id="webhook-deliveries">
      <div className="filters filters--grid">
        <Select id="delivery-status" fieldSize="md" label="Status" value={status ?? ""} onChange={(e) => setStatus(e.target.value === "" ? undefined : e.target.value as DeliveryStatus)}>
          <option value="">Any status</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </Select>
        <div className="row"><Button variant="secondary" size="md" onClick={() => void deliveries.refetch()}>Refresh</Button></div>
      </div>
      <p className="muted small" aria-live="off">
        {poll === false ? "" : `Refreshing every ${Math.round(poll / 1000)} s while a delivery is pending.`}
        {endpoint.status === "disabled" ? " Resending a delivery enables the endpoint again." : ""}
      </p>
      {items === undefined
        ? deliveries.isError ? <ErrorNote what="load the deliveries" error={deliveries.error} /> : <Loading what="deliveries" />
        : items.length === 0
        ? <Empty>{status === undefined ? "No delivery yet: the events this endpoint receives appear here as they happen." : `No ${status} delivery.`}</Empty>
        : (
          <table className="table">
            <caption className="visually-hidden">Deliveries to {endpoint.url}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Queued</th>
                <th scope="col">Last attempt</th><th scope="col">Next attempt</th><th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>{items.map((d) => <DeliveryRow key={d.id} delivery={d} endpointId={endpoint.id} />)}</tbody>
          </table>
        )}
      {items !== undefined && deliveries.isError ? <ErrorNote what="refresh the deliveries" error={deliveries.error} /> : null}
      {deliveries.hasNextPage ? <Button variant="tertiary" size="md" onClick={() => void deliveries.fetchNextPage()}>Load more deliveries</Button> : null}
    </Section>
  )
}

const EditEndpoint = ({ endpoint }: { readonly endpoint: Webhook }) => {
  const { update } = useWebhookControls()
  const fields = useEndpointFields(endpoint)
  const unchanged = fields.url.trim() === endpoint.url && fields.chosen.join() === endpoint.events.join()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    update.mutate({ id: endpoint.id, url: fields.url.trim(), events: fields.chosen })
  }
  return (
    <Section title="Change the endpoint" id="webhook-edit">
      <form className="form" onSubmit={submit}>
        <EndpointFields idPrefix="edit" fields={fields} error={update.error} />
        <Button variant="primary" size="md" type="submit" isLoading={update.isPending} disabled={fields.incomplete || unchanged}>
          Save changes
        </Button>
        <span role="status" className="muted small">{update.isSuccess && unchanged ? "Saved." : ""}</span>
        {update.isError && !isUrlError(update.error) ? <ErrorNote what="change the endpoint" error={update.error} /> : null}
      </form>
    </Section>
  )
}

/** How long the replaced secret may keep signing: the choices offered (the contract allows 0 to a week, in seconds). */
const OVERLAPS: ReadonlyArray<readonly [seconds: number, words: string]> = [
  [0, "stops at once"],
  [3_600, "signs for another hour"],
  [86_400, "signs for another day"],
  [604_800, "signs for another week"]
]

const RotateSecretSection = ({ endpoint }: { readonly endpoint: Webhook }) => {
  const { rotate } = useWebhookControls()
  const [overlap, setOverlap] = useState(86_400)
  const rotated = rotate.data?.id === endpoint.id ? rotate.data : undefined
  return (
    <Section title="Signing secret" id="webhook-secret">
      <p>
        {endpoint.previousSecretExpiresAt === null
          ? "One secret signs each delivery."
          : <>Each delivery is signed with the new secret and, until <Time at={endpoint.previousSecretExpiresAt} />, with the one it replaced: the receiver can verify with either while it switches.</>}
      </p>
      <div className="form form--inline">
        <Select id="secret-overlap" fieldSize="md" label="The secret being replaced" value={String(overlap)} onChange={(e) => setOverlap(Number(e.target.value))}>
          {OVERLAPS.map(([seconds, words]) => <option key={seconds} value={seconds}>{words}</option>)}
        </Select>
        <Confirm question="Replace the signing secret?" confirmLabel="Yes, rotate" onConfirm={() => rotate.mutate({ id: endpoint.id, overlapSeconds: overlap })}>
          {(ask) => <Button variant="secondary" size="md" onClick={ask} isLoading={rotate.isPending}>Rotate secret</Button>}
        </Confirm>
      </div>
      {rotate.isError ? <ErrorNote what="rotate the secret" error={rotate.error} /> : null}
      {rotated === undefined ? null : (
        <ShownOnce value={rotated.secret} copyLabel="Copy new signing secret">
          The new signing secret, shown only now: give it to the receiver.{" "}
          {rotated.previousSecretExpiresAt === null
            ? "The old one no longer signs."
            : <>The old one signs beside it until <Time at={rotated.previousSecretExpiresAt} />.</>}
        </ShownOnce>
      )}
    </Section>
  )
}

const EndpointView = ({ id }: { readonly id: WebhookId }) => {
  const [poll, setPoll] = useState<number | false>(false)
  const endpoints = useWebhooks(poll)
  const { remove } = useWebhookControls()
  if (endpoints.isPending) return <Page title="Webhook endpoint"><Loading what="the endpoint" /></Page>
  if (endpoints.isError) return <Page title="Webhook endpoint"><ErrorNote what="load the endpoint" error={endpoints.error}><p><Link to="/webhooks">All endpoints</Link></p></ErrorNote></Page>
  const endpoint = endpoints.data.items.find((e) => e.id === id)
  if (endpoint === undefined) {
    return <Page title="Endpoint not found"><Empty>There is no webhook endpoint at this address (it may have been removed). <Link to="/webhooks">All endpoints</Link></Empty></Page>
  }
  return (
    <Page title={`Deliveries to ${new URL(endpoint.url).host}`} actions={<Link to="/webhooks">All endpoints</Link>}>
      <Section title="Endpoint" id="webhook-endpoint">
        <dl className="facts">
          <div className="facts__wide"><dt>URL</dt><dd><code>{endpoint.url}</code></dd></div>
          <div>
            <dt>Status</dt>
            <dd><StatusBadge status={endpoint.status} />{endpoint.disabledReason === null ? null : <div className="muted small">{endpoint.disabledReason}</div>}</dd>
          </div>
          <div><dt>Events</dt><dd>{endpoint.events.join(", ")}</dd></div>
          <div><dt>Created</dt><dd><Time at={endpoint.createdAt} /></dd></div>
        </dl>
        <div className="controls">
          <Confirm question="Remove this endpoint and its deliveries?" confirmLabel="Yes, remove" onConfirm={() => remove.mutate(endpoint.id, { onSuccess: () => navigate("/webhooks") })}>
            {(ask) => <Button variant="tertiary" size="md" onClick={ask} isLoading={remove.isPending}>Remove endpoint</Button>}
          </Confirm>
          {remove.isError ? <span className="action__error" role="alert">{messageOf(remove.error)}</span> : null}
        </div>
      </Section>
      <Deliveries endpoint={endpoint} onPoll={setPoll} />
      <RotateSecretSection endpoint={endpoint} />
      <EditEndpoint endpoint={endpoint} />
    </Page>
  )
}

export const WebhookDetail = ({ rawId, me }: { readonly rawId: string; readonly me: Me }) => (
  <Restricted me={me} permission="org:manage" title="Webhook endpoint">
    {Option.match(Schema.decodeUnknownOption(WebhookId)(rawId), {
      onNone: () => <Page title="Endpoint not found"><Empty>There is no webhook endpoint at this address. <Link to="/webhooks">All endpoints</Link></Empty></Page>,
      onSome: (id) => <EndpointView key={id} id={id} />
    })}
  </Restricted>
)
