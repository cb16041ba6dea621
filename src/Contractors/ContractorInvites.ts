import { Effect, Option, Redacted } from "effect"
import { createHmac, hkdfSync, randomUUID } from "node:crypto"
import { OperationalKeys } from "../Auth/Keys.ts"
import { hashToken, INVITE_TTL_MS } from "../Orgs/InviteToken.ts"
import type { Contractor } from "../Domain/Contractor.ts"
import type { ContractorId, OrgId } from "../Domain/Ids.ts"
import { InviteRepo, type NewInvite } from "./InviteRepo.ts"
import * as Spans from "../Observability/Spans.ts"

/** Who a session is, as far as invites go: its wallet address (SEP-10) or its verified email (Privy). */
export interface Claimant {
  readonly address: Option.Option<string>
  readonly email: Option.Option<string>
}

/** A contractor `GET /me` can find: still invited, with an address or an email to sign in with. */
const discoverable = (c: Contractor) => c.status === "invited" && (Option.isSome(c.address) || Option.isSome(c.email))

/**
 * Contractor invites. A token is a keyed MAC of the invite's id, so that only its hash is stored and yet the
 * service can hand a pending invite to the very contractor it was made for when they sign in (`GET /me`), which
 * only reads: the invite it hands out was issued when the contractor was added (`openFor`) or invited (`issue`).
 */
export class ContractorInvites extends Effect.Service<ContractorInvites>()("Contractors/ContractorInvites", {
  effect: Effect.gen(function*() {
    const repo = yield* InviteRepo
    const keys = yield* OperationalKeys
    const macKey = Buffer.from(
      hkdfSync("sha256", Redacted.value(keys.jwtSecret), new Uint8Array(), "contractor invite tokens", 32)
    )
    const tokenFor = (inviteId: string) => createHmac("sha256", macKey).update(inviteId).digest("base64url")

    const derived = (orgId: OrgId, contractorId: ContractorId, now: Date) => {
      const id = randomUUID()
      const token = tokenFor(id)
      const invite: NewInvite = {
        id,
        orgId,
        contractorId,
        tokenHash: hashToken(token),
        expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
        derived: true
      }
      return { invite, token }
    }

    /** A new invite for the contractor, revoking its earlier open ones; the token is shown once. */
    const issue = (orgId: OrgId, contractorId: ContractorId, now: Date) =>
      Effect.gen(function*() {
        const { invite, token } = derived(orgId, contractorId, now)
        yield* repo.issue(invite, { revokeOthers: true })
        return { token, expiresAt: invite.expiresAt }
      }).pipe(Spans.withSpan("ContractorInvites.issue"))

    /**
     * An invite for each of these contractors that `GET /me` can find (invited, with an address or an email), beside
     * their other ones; its token is not shown here: the contractor gets it from `GET /me`. Runs inside the caller's
     * transaction when there is one (see `addInvited`).
     */
    const openFor = (contractors: ReadonlyArray<Contractor>, now: Date) =>
      repo.issueMany(contractors.filter(discoverable).map((c) => derived(c.orgId, c.id, now).invite))

    /** Adds contractors (`insert`) and, in the same transaction, their invites (`openFor`). */
    const addInvited = <E, R>(insert: Effect.Effect<ReadonlyArray<Contractor>, E, R>, now: Date) =>
      insert.pipe(
        Effect.tap((added) => openFor(added, now)),
        repo.transaction,
        Spans.withSpan("ContractorInvites.addInvited")
      )

    /**
     * The pending invite of the claimant: the newest open invite with a derived token of the oldest `invited`
     * contractor, whose address or email is the claimant's, that has one. Reads only.
     */
    const discover = (claimant: Claimant, now: Date) =>
      Effect.gen(function*() {
        if (Option.isNone(claimant.address) && Option.isNone(claimant.email)) return Option.none()
        const found = yield* repo.findForClaimant(claimant, now)
        return Option.map(found, ({ inviteId, orgName }) => ({ company: orgName, token: tokenFor(inviteId) }))
      }).pipe(Spans.withSpan("ContractorInvites.discover"))

    return { issue, openFor, addInvited, discover } as const
  }),
  dependencies: [InviteRepo.Default, OperationalKeys.Default]
}) {}
