import type { Permission } from "../Domain/Roles.ts"

/**
 * Who may do what with the organization's escrow key (issue 36 §2): every member reads its public part (a payer
 * registers wallets under its auditor id); `org:manage` creates and rotates it; the members who may audit
 * (`audit:disclose`: owner, admin, auditor) are its envelope's recipients and share it with each other.
 */
export const escrowPolicy = {
  read: "audit:read" satisfies Permission,
  manage: "org:manage" satisfies Permission,
  disclose: "audit:disclose" satisfies Permission
} as const
