import type { ReactNode } from "react"
import { CopyButton } from "./CopyButton.tsx"

/**
 * A value the service shows only in this answer (a key, a secret, an invite): what it is and what to do with it,
 * the value, and a button copying it. Announced when it appears.
 */
export const ShownOnce = ({ value, copyLabel, children }: {
  readonly value: string
  readonly copyLabel: string
  readonly children: ReactNode
}) => (
  <div className="secret" aria-live="polite">
    <p>{children}</p>
    <code>{value}</code>
    <CopyButton text={value} label={copyLabel} />
  </div>
)
