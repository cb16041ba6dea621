import { Button } from "@stellar/design-system"
import { useId } from "react"
import type { Allowed } from "../api/Me.ts"

/** The id of the element saying `reason`, so that controls refused for one reason can all point at one sentence. */
export const reasonId = (reason: string) => `why-${[...reason].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7).toString(36)}`

/** The reasons of a group of controls' refusals, each said once (ActionButton's `reasonShown="apart"` points at them). */
export const Reasons = ({ reasons }: { readonly reasons: ReadonlyArray<string | undefined> }) => {
  const unique = [...new Set(reasons.filter((r) => r !== undefined))]
  if (unique.length === 0) return null
  return <ul className="reasons">{unique.map((r) => <li key={r} id={reasonId(r)}>{r}</li>)}</ul>
}

/**
 * A control the member's role may not use stays visible but disabled, with the reason beside it (or, `apart`, in the
 * group's `Reasons`), read by screen readers with the button; one that failed shows the service's `{error}` beside it.
 */
export const ActionButton = ({
  label,
  onClick,
  allowed,
  busy = false,
  variant = "secondary",
  error,
  reasonShown = "beside",
  about
}: {
  readonly label: string
  /** What the control acts on, said to screen readers after the label (`Remove` … `Ada Lovelace`). */
  readonly about?: string
  readonly onClick: () => void
  readonly allowed: Allowed
  readonly busy?: boolean
  readonly variant?: "primary" | "secondary" | "tertiary" | "destructive"
  readonly error?: string | undefined
  readonly reasonShown?: "beside" | "apart"
}) => {
  const id = useId()
  const why = allowed.reason === undefined ? undefined : reasonShown === "beside" ? `${id}-why` : reasonId(allowed.reason)
  const described = [why, error === undefined ? undefined : `${id}-error`].filter((x) => x !== undefined).join(" ")
  return (
    <div className="action">
      <Button
        variant={variant}
        size="md"
        onClick={onClick}
        disabled={!allowed.allowed || busy}
        isLoading={busy}
        aria-describedby={described === "" ? undefined : described}
      >
        {label}
        {about === undefined ? null : <span className="visually-hidden"> {about}</span>}
      </Button>
      {allowed.reason === undefined || reasonShown === "apart" ? null : <span className="action__why" id={`${id}-why`}>{allowed.reason}</span>}
      {error === undefined ? null : <span className="action__error" id={`${id}-error`} role="alert">{error}</span>}
    </div>
  )
}
