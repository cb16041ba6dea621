import { Effect, Option, Redacted } from "effect"
import { createHmac, hkdfSync, randomUUID } from "node:crypto"
import { OperationalKeys } from "../Auth/Keys.ts"
import { hashToken, INVITE_TTL_MS } from "../Orgs/InviteToken.ts"
import type { ContractorId, OrgId } from "../Domain/Ids.ts"
import { InviteRepo } from "./InviteRepo.ts"

/** Who a session is, as far as invites go: its wallet address (SEP-10) or its verified email (Privy). */
export interface Claimant {
  readonly address: Option.Option<string>
  readonly email: Option.Option<string>
}

/**
 * Contractor invites. A token is a keyed MAC of the invite's id, so that only its hash is stored and yet the
 * service can hand a pending invite to the very contractor it was made for when they sign in (`GET /me`).
 */
export class ContractorInvites extends Effect.Service<ContractorInvites>()("Contractors/ContractorInvites", {
  effect: Effect.gen(function*() {
    const repo = yield* InviteRepo
    const keys = yield* OperationalKeys
    const macKey = Buffer.from(
      hkdfSync("sha256", Redacted.value(keys.jwtSecret), new Uint8Array(), "contractor invite tokens", 32)
    )
    const tokenFor = (inviteId: string) => createHmac("sha256", macKey).update(inviteId).digest("base64url")

    /** A new invite for the contractor, revoking its earlier open ones; the token is shown once. */
    const issue = (orgId: OrgId, contractorId: ContractorId, now: Date) =>
      Effect.gen(function*() {
        const id = randomUUID()
        const token = tokenFor(id)
        const expiresAt = new Date(now.getTime() + INVITE_TTL_MS)
        yield* repo.issue({ id, orgId, contractorId, tokenHash: hashToken(token), expiresAt, derived: true }, { revokeOthers: true })
        return { token, expiresAt }
      }).pipe(Effect.withSpan("ContractorInvites.issue"))

    /**
     * The oldest open invite of an `invited` contractor whose address or email is the claimant's, with a usable
     * token. A contractor with no open invite, or only one whose token was random (issued before tokens were
     * derived), gets a new one beside it, so a token already sent out keeps working.
     */
    const discover = (claimant: Claimant, now: Date) =>
      Effect.gen(function*() {
        if (Option.isNone(claimant.address) && Option.isNone(claimant.email)) return Option.none()
        const found = yield* repo.findForClaimant(claimant, now)
        if (Option.isNone(found)) return Option.none()
        const { orgName, orgId, contractorId, inviteId } = found.value
        if (Option.isSome(inviteId)) return Option.some({ company: orgName, token: tokenFor(inviteId.value) })
        const id = randomUUID()
        const token = tokenFor(id)
        const expiresAt = new Date(now.getTime() + INVITE_TTL_MS)
        yield* repo.issue({ id, orgId, contractorId, tokenHash: hashToken(token), expiresAt, derived: true }, { revokeOthers: false })
        return Option.some({ company: orgName, token })
      }).pipe(Effect.withSpan("ContractorInvites.discover"))

    return { issue, discover } as const
  }),
  dependencies: [InviteRepo.Default, OperationalKeys.Default]
}) {}
