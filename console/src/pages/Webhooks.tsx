import { Button } from "@stellar/design-system"
import type { FormEvent } from "react"
import type { Me, Webhook } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { useWebhookControls, useWebhooks } from "../api/Webhooks.ts"
import { Confirm } from "../components/Confirm.tsx"
import { ShownOnce } from "../components/ShownOnce.tsx"
import { EndpointFields, isUrlError, useEndpointFields } from "../components/EndpointFields.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { Time } from "../components/Time.tsx"
import { Link } from "../router/Router.tsx"

const NewEndpointForm = () => {
  const { create } = useWebhookControls()
  const fields = useEndpointFields({ url: "", events: ["payout.settled", "payout.failed", "batch.completed"] })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ url: fields.url.trim(), events: fields.chosen }, { onSuccess: () => fields.setUrl("") })
  }
  return (
    <Section title="New endpoint" id="new-webhook">
      <form className="form" onSubmit={submit}>
        <EndpointFields idPrefix="webhook" fields={fields} error={create.error} />
        <Button variant="primary" size="md" type="submit" isLoading={create.isPending} disabled={fields.incomplete}>
          Add endpoint
        </Button>
        {create.isError && !isUrlError(create.error) ? <ErrorNote what="add the endpoint" error={create.error} /> : null}
      </form>
      {create.data === undefined ? null : (
        <ShownOnce value={create.data.secret} copyLabel="Copy signing secret">
          <strong>{create.data.url}</strong>: copy its signing secret now. It is shown only once; verify each delivery's
          {" "}<code>webhook-signature</code> with it (Standard Webhooks).
        </ShownOnce>
      )}
    </Section>
  )
}

const EndpointRow = ({ endpoint }: { readonly endpoint: Webhook }) => {
  const { remove } = useWebhookControls()
  return (
    <tr>
      <td data-label="URL"><Link to={`/webhooks/${endpoint.id}`} className="url">{endpoint.url}</Link></td>
      <td data-label="Events">{endpoint.events.join(", ")}</td>
      <td data-label="Status">
        <div>
          <StatusBadge status={endpoint.status} />
          {endpoint.disabledReason === null ? null : <div className="muted small">{endpoint.disabledReason}</div>}
          {endpoint.disabledAt === null ? null : <div className="muted small">since <Time at={endpoint.disabledAt} /></div>}
        </div>
      </td>
      <td data-label="Created"><Time at={endpoint.createdAt} /></td>
      <td data-label="Actions">
        <div>
          <div className="row">
            <Link to={`/webhooks/${endpoint.id}`}>Deliveries<span className="visually-hidden"> to {endpoint.url}</span></Link>
            <Confirm question={`Remove ${endpoint.url} and its deliveries?`} confirmLabel="Yes, remove" onConfirm={() => remove.mutate(endpoint.id)}>
              {(ask) => <Button variant="tertiary" size="sm" onClick={ask} isLoading={remove.isPending}>Remove<span className="visually-hidden"> {endpoint.url}</span></Button>}
            </Confirm>
          </div>
          {remove.isError ? <span className="action__error" role="alert">{messageOf(remove.error)}</span> : null}
        </div>
      </td>
    </tr>
  )
}

export const Webhooks = ({ me }: { readonly me: Me }) => {
  const endpoints = useWebhooks()
  return (
    <Restricted me={me} permission="org:manage" title="Webhooks">
      <Page title="Webhooks">
        <NewEndpointForm />
        <Section title="Endpoints" id="webhooks-list">
          <p className="muted small">
            Each event is signed and delivered at least once, retried with a growing delay for over a day; an endpoint that
            fails all that long is disabled until one of its deliveries is resent. An endpoint's page changes its URL or
            event types and rotates its signing secret.
          </p>
          {endpoints.isPending
            ? <Loading what="webhook endpoints" />
            : endpoints.isError
            ? <ErrorNote what="load the webhook endpoints" error={endpoints.error} />
            : endpoints.data.items.length === 0
            ? <Empty>No webhook endpoint yet.</Empty>
            : (
              <table className="table">
                <caption className="visually-hidden">Webhook endpoints, newest first</caption>
                <thead>
                  <tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Actions</th></tr>
                </thead>
                <tbody>{endpoints.data.items.map((e) => <EndpointRow key={e.id} endpoint={e} />)}</tbody>
              </table>
            )}
        </Section>
      </Page>
    </Restricted>
  )
}
