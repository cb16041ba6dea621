import { Effect } from "effect"
import type { Actor } from "../Domain/Actor.ts"
import { Forbidden } from "../Domain/Errors.ts"
import type { MemberRole, Permission } from "../Domain/Roles.ts"

const ownersOnly = new Forbidden({ error: "only an owner may make, change or remove an owner" })

/**
 * Who may manage the organization (issue 22 §1): members, invites and settings need `org:manage` (owner, admin);
 * the settings are readable by every member; and an admin cannot touch owners: it neither invites nor promotes
 * anyone to owner, and neither demotes nor removes an owner.
 */
export const orgPolicy = {
  manage: "org:manage" satisfies Permission,
  readSettings: "audit:read" satisfies Permission,
  /** Publishing a sealing key, and listing the members (whose keys a batch's amounts are sealed to). */
  readAmounts: "amounts:read" satisfies Permission,
  /** The same for the escrow key's secret (src/Escrow/), sealed to the members who may audit: the auditor role too. */
  disclose: "audit:disclose" satisfies Permission,

  /** Inviting someone as `role`. */
  mayGrant: (actor: Actor, role: MemberRole) => role === "owner" && actor.role !== "owner" ? Effect.fail(ownersOnly) : Effect.void,

  /** Changing a member of role `current` to `next` (`undefined`: removing them). */
  mayChange: (actor: Actor, current: MemberRole, next: MemberRole | undefined) =>
    actor.role !== "owner" && (current === "owner" || next === "owner") ? Effect.fail(ownersOnly) : Effect.void
} as const
