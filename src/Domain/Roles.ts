import { Schema } from "effect"

/**
 * An organization member's role. The Stellar Disbursement Platform's roles (`internal/data/roles.go`: owner,
 * financial controller, developer, business, initiator, approver) split here by what moves money: who prepares a
 * payroll (initiator), who approves it (approver), who pays it (payer), who only reads (viewer).
 */
export const MemberRole = Schema.Literal("owner", "admin", "initiator", "approver", "payer", "viewer", "auditor").annotations({
  description: "`owner` (everything), `admin` (everything but paying; cannot touch owners), `initiator` (the directory " +
    "and batches), `approver` (approves, rejects, pauses and resumes batches), `payer` (pays: transfers and batch runs; " +
    "pauses and resumes), `viewer` (reads), `auditor` (reads, and opens the organization's escrow key for the auditor's " +
    "report: `audit:disclose`, which owners and admins hold too). Every role reads the directory, batches, the audit " +
    "trail and exports; every role but `viewer` and `auditor` may read a batch's sealed amounts (`amounts:read`)"
})
export type MemberRole = typeof MemberRole.Type

/** What a member may do; each route needs one. */
export const Permission = Schema.Literal(
  "directory:read",
  "directory:write",
  "batches:read",
  "batches:write",
  "batches:approve",
  "batches:control",
  "transfers:submit",
  "org:manage",
  "audit:read",
  "amounts:read",
  "audit:disclose"
)
export type Permission = typeof Permission.Type

const READ: ReadonlyArray<Permission> = ["directory:read", "batches:read", "audit:read"]

/**
 * The permission table of issue 22, once: directory write, batches (create, edit, ready, cancel), approve/reject,
 * pay, pause/resume, manage (members, settings, API keys, webhooks), and the reads every role has; with issue 31,
 * `amounts:read`: whose sealing key a batch's amounts are sealed to (every role but viewer); with issue 36,
 * `audit:disclose`: whose sealing key the organization's escrow key is sealed to (owner, admin, auditor). The auditor
 * also reads the directory and batches, as the report matches operations to payouts and contractors.
 */
export const ROLE_PERMISSIONS: Readonly<Record<MemberRole, ReadonlyArray<Permission>>> = {
  owner: [...READ, "directory:write", "batches:write", "batches:approve", "transfers:submit", "batches:control", "org:manage", "amounts:read", "audit:disclose"],
  admin: [...READ, "directory:write", "batches:write", "batches:approve", "batches:control", "org:manage", "amounts:read", "audit:disclose"],
  initiator: [...READ, "directory:write", "batches:write", "amounts:read"],
  approver: [...READ, "batches:approve", "batches:control", "amounts:read"],
  payer: [...READ, "transfers:submit", "batches:control", "amounts:read"],
  viewer: READ,
  auditor: [...READ, "audit:disclose"]
}

export const can = (role: MemberRole, permission: Permission) => ROLE_PERMISSIONS[role].includes(permission)

/** Whether `narrower` grants nothing `role` lacks: an API key may be narrowed to it. */
export const within = (narrower: MemberRole, role: MemberRole) => ROLE_PERMISSIONS[narrower].every((p) => can(role, p))

/** What a caller may do when it is a key narrowed to `keyRole` of a member whose role is now `memberRole`. */
export const effectivePermissions = (memberRole: MemberRole, keyRole: MemberRole | null): ReadonlyArray<Permission> =>
  keyRole === null ? ROLE_PERMISSIONS[memberRole] : ROLE_PERMISSIONS[memberRole].filter((p) => can(keyRole, p))
