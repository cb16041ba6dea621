import type { Permission } from "../Domain/Roles.ts"

/** What batch runs need (issue 22 §1): starting one pays (owner, payer); following one reads batches (every member). */
export const batchRunPolicy = {
  start: "transfers:submit",
  poll: "batches:read"
} as const satisfies Record<string, Permission>
