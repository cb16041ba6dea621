import { Checkbox, Input } from "@stellar/design-system"
import { useState } from "react"
import { EventType } from "@confidential-payroll/client/contract"
import { ApiError } from "../api/ApiError.ts"
import { EVENT_WORDS } from "../lib/WebhookEvents.ts"

const EVENTS = EventType.literals
/** The contract's limit on one endpoint's event types. */
const MAX_EVENTS = 10

/** Whether the error is the URL's (shown under the field by EndpointFields), not one to show on its own. */
export const isUrlError = (error: unknown): error is ApiError => error instanceof ApiError && error.tag === "InvalidRequest"

/** A webhook endpoint's URL and event types as a form edits them, with what the form may not send. */
export const useEndpointFields = (initial: { readonly url: string; readonly events: ReadonlyArray<EventType> }) => {
  const [url, setUrl] = useState(initial.url)
  const [events, setEvents] = useState<ReadonlySet<EventType>>(new Set(initial.events))
  const toggle = (event: EventType) => setEvents((now) => {
    const next = new Set(now)
    if (next.has(event)) next.delete(event)
    else next.add(event)
    return next
  })
  const tooMany = events.size > MAX_EVENTS
  return {
    url,
    setUrl,
    events,
    toggle,
    tooMany,
    /** The event types chosen, in the contract's order. */
    chosen: EVENTS.filter((e) => events.has(e)),
    incomplete: url.trim() === "" || events.size === 0 || tooMany
  }
}

/**
 * The URL field and the event types' checklist of a webhook endpoint form (`idPrefix` keeps two forms on one page
 * apart). A 400 from the service is about the URL (the event types come from the contract's own list): it is said
 * under the field.
 */
export const EndpointFields = ({ idPrefix, fields, error }: {
  readonly idPrefix: string
  readonly fields: ReturnType<typeof useEndpointFields>
  readonly error: unknown
}) => {
  const urlError = isUrlError(error) ? error.message : undefined
  return (
    <>
      <Input
        id={`${idPrefix}-url`}
        fieldSize="md"
        label="URL"
        type="url"
        placeholder="e.g. https://hr.example.com/hooks/payroll"
        note="https, reachable on the public internet: the service refuses private, loopback and link-local hosts."
        value={fields.url}
        onChange={(e) => fields.setUrl(e.target.value)}
        maxLength={2048}
        autoComplete="off"
        required
        aria-invalid={urlError === undefined ? undefined : true}
        aria-describedby={urlError === undefined ? undefined : `${idPrefix}-url-error`}
      />
      {urlError === undefined ? null : <p className="action__error" id={`${idPrefix}-url-error`} role="alert">{urlError}</p>}
      <fieldset className="checklist">
        <legend>Events to send</legend>
        {EVENTS.map((event) => (
          <Checkbox
            key={event}
            id={`${idPrefix}-event-${event}`}
            fieldSize="md"
            label={<small className="event"><code>{event}</code> <span className="muted">{EVENT_WORDS[event]}</span></small>}
            checked={fields.events.has(event)}
            onChange={() => fields.toggle(event)}
          />
        ))}
      </fieldset>
      {fields.tooMany ? <p className="action__why" role="status">At most {MAX_EVENTS} event types per endpoint: add a second endpoint for the rest.</p> : null}
    </>
  )
}

