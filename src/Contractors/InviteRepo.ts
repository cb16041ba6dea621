import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ContractorId, OrgId } from "../Domain/Ids.ts"
import { orUnavailable, unavailableOrDie } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

const OpenInvite = Schema.Struct({ orgId: OrgId, orgName: Schema.String, contractorId: ContractorId })
export type OpenInvite = typeof OpenInvite.Type

const ClaimantInvite = Schema.Struct({ ...OpenInvite.fields, inviteId: Schema.String })

const Claimed = Schema.Struct({ orgId: OrgId, contractorId: ContractorId })

const ByToken = Schema.Struct({ tokenHash: Schema.Uint8ArrayFromSelf, now: Schema.DateFromSelf })

export interface NewInvite {
  readonly id: string
  readonly orgId: OrgId
  readonly contractorId: ContractorId
  readonly tokenHash: Buffer
  readonly expiresAt: Date
  readonly derived: boolean
}

/** Invite tokens are stored only as SHA-256 hashes and claimed at most once. */
export class InviteRepo extends Effect.Service<InviteRepo>()("Contractors/InviteRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Runs `effect` (calls of this repo and others) in one transaction. */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))

    /** Stores a new invite; with `revokeOthers`, the contractor's earlier open ones stop working. */
    const issue = (invite: NewInvite, options: { readonly revokeOthers: boolean }) =>
      Effect.gen(function*() {
        if (options.revokeOthers) {
          yield* sql`
            UPDATE invites SET revoked_at = now()
            WHERE contractor_id = ${invite.contractorId} AND accepted_at IS NULL AND revoked_at IS NULL`
        }
        yield* sql`INSERT INTO invites ${sql.insert({ ...invite })}`
      }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("InviteRepo.issue"))

    /** Stores new invites beside the contractors' other ones, in one statement (inside a caller's transaction too). */
    const issueMany = (invites: ReadonlyArray<NewInvite>) =>
      invites.length === 0
        ? Effect.void
        : sql`INSERT INTO invites ${sql.insert(invites.map((invite) => ({ ...invite })))}`.pipe(
          Effect.asVoid,
          orUnavailable,
          Spans.withSpan("InviteRepo.issueMany", { attributes: { invites: invites.length } })
        )

    const openByToken = SqlSchema.findOne({
      Request: ByToken,
      Result: OpenInvite,
      execute: ({ tokenHash, now }) =>
        sql`
            SELECT i.org_id, o.name AS org_name, i.contractor_id
            FROM invites i JOIN orgs o ON o.id = i.org_id
            WHERE i.token_hash = ${tokenHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}`
    })
    const findOpen = (tokenHash: Buffer, now: Date) =>
      openByToken({ tokenHash, now }).pipe(orUnavailable, Spans.withSpan("InviteRepo.findOpen"))

    const openForClaimant = SqlSchema.findOne({
      Request: Schema.Struct({
        address: Schema.OptionFromSelf(Schema.String),
        email: Schema.OptionFromSelf(Schema.String),
        now: Schema.DateFromSelf
      }),
      Result: ClaimantInvite,
      execute: ({ address, email, now }) =>
        sql`
        SELECT c.org_id, o.name AS org_name, c.id AS contractor_id, i.id AS invite_id
        FROM contractors c
        JOIN orgs o ON o.id = c.org_id
        JOIN LATERAL (
          SELECT id FROM invites
          WHERE contractor_id = c.id AND derived AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
          ORDER BY created_at DESC LIMIT 1) i ON true
        WHERE c.status = 'invited' AND (${
          sql.or([
            ...Option.toArray(Option.map(address, (address) => sql`c.address = ${address}`)),
            ...Option.toArray(Option.map(email, (email) => sql`lower(c.email) = ${email.toLowerCase()}`))
          ])
        })
        ORDER BY c.created_at, c.id LIMIT 1`
    })
    /**
     * The oldest `invited` contractor whose address or email (any case) is the claimant's and that has an open invite
     * whose token can be derived, with the newest such invite. Reads only.
     */
    const findForClaimant = (
      claimant: { readonly address: Option.Option<string>; readonly email: Option.Option<string> },
      now: Date
    ) =>
      openForClaimant({ address: claimant.address, email: claimant.email, now }).pipe(
        orUnavailable,
        Spans.withSpan("InviteRepo.findForClaimant")
      )

    const claimByToken = SqlSchema.findOne({
      Request: Schema.Struct({ ...ByToken.fields, sub: Schema.String }),
      Result: Claimed,
      execute: ({ tokenHash, sub, now }) =>
        sql`
            UPDATE invites SET accepted_at = ${now}, accepted_by = ${sub}
            WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
            RETURNING org_id, contractor_id`
    })
    /** Marks the invite accepted by `sub`; none when it was already used, revoked, expired or unknown. */
    const claim = (tokenHash: Buffer, sub: string, now: Date) =>
      claimByToken({ tokenHash, sub, now }).pipe(orUnavailable, Spans.withSpan("InviteRepo.claim"))

    return { transaction, issue, issueMany, findOpen, findForClaimant, claim } as const
  })
}) {}
