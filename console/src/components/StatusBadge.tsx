import { Badge } from "@stellar/design-system"

type Variant = "primary" | "secondary" | "tertiary" | "success" | "warning" | "error"

/** One colour per state, across batches, payouts, contractors and webhooks. */
const VARIANTS: Readonly<Record<string, Variant>> = {
  draft: "tertiary",
  ready: "secondary",
  started: "secondary",
  submitted: "secondary",
  paused: "warning",
  invited: "primary",
  onboarding: "warning",
  settled: "success",
  completed: "success",
  failed: "error",
  canceled: "tertiary",
  inactive: "tertiary",
  pending: "secondary",
  delivered: "success",
  enabled: "success",
  disabled: "error"
}

export const StatusBadge = ({ status }: { readonly status: string }) => (
  <Badge variant={VARIANTS[status] ?? "secondary"} size="sm">{status}</Badge>
)
