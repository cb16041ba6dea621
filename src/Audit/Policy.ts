import type { Permission } from "../Domain/Roles.ts"

/** What reading the trail, the exports and the statistics needs (issue 22 §1): every member has it. */
export const auditPolicy = {
  read: "audit:read"
} as const satisfies Record<string, Permission>
