import type { Permission } from "../Domain/Roles.ts"

/** What each directory operation needs (issue 22 §1): every member reads it; owner, admin and initiator write it. */
export const directoryPolicy = {
  read: "directory:read",
  write: "directory:write"
} as const satisfies Record<string, Permission>
