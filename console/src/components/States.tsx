import { Loader, Notification } from "@stellar/design-system"
import type { ReactNode } from "react"
import { messageOf } from "../api/ApiError.ts"

export const Loading = ({ what }: { readonly what: string }) => (
  <div className="state state--loading" role="status" aria-live="polite">
    <Loader size="1.25rem" />
    <span>Loading {what}…</span>
  </div>
)

/** What failed and the service's own words for why (its `{error}`). */
export const ErrorNote = ({ what, error, children }: { readonly what: string; readonly error: unknown; readonly children?: ReactNode }) => (
  <div className="state state--error" role="alert">
    <Notification variant="error" title={`Could not ${what}`}>
      {messageOf(error)}
      {children}
    </Notification>
  </div>
)

export const Empty = ({ children }: { readonly children: ReactNode }) => <p className="state state--empty">{children}</p>
