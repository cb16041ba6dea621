import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ContractorId, OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "../Sql/Errors.ts"

const OpenInvite = Schema.Struct({ orgId: OrgId, orgName: Schema.String, contractorId: ContractorId })
export type OpenInvite = typeof OpenInvite.Type

const ClaimantInvite = Schema.Struct({ ...OpenInvite.fields, inviteId: Schema.OptionFromNullOr(Schema.String) })

const Claimed = Schema.Struct({ orgId: OrgId, contractorId: ContractorId })

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

    /** Stores a new invite; with `revokeOthers`, the contractor's earlier open ones stop working. */
    const issue = (invite: NewInvite, options: { readonly revokeOthers: boolean }) =>
      Effect.gen(function*() {
        if (options.revokeOthers) {
          yield* sql`
            UPDATE invites SET revoked_at = now()
            WHERE contractor_id = ${invite.contractorId} AND accepted_at IS NULL AND revoked_at IS NULL`
        }
        yield* sql`INSERT INTO invites ${sql.insert({ ...invite })}`
      }).pipe(sql.withTransaction, orUnavailable, Effect.withSpan("InviteRepo.issue"))

    const findOpen = (tokenHash: Buffer, now: Date) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: OpenInvite,
        execute: () =>
          sql`
            SELECT i.org_id, o.name AS org_name, i.contractor_id
            FROM invites i JOIN orgs o ON o.id = i.org_id
            WHERE i.token_hash = ${tokenHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}`
      })(undefined).pipe(orUnavailable, Effect.withSpan("InviteRepo.findOpen"))

    /**
     * The oldest `invited` contractor whose address or email (any case) is the claimant's, with its newest open
     * invite whose token can be derived (none when it has no such invite).
     */
    const findForClaimant = (
      claimant: { readonly address: Option.Option<string>; readonly email: Option.Option<string> },
      now: Date
    ) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: ClaimantInvite,
        execute: () =>
          sql`
        SELECT c.org_id, o.name AS org_name, c.id AS contractor_id, i.id AS invite_id
        FROM contractors c
        JOIN orgs o ON o.id = c.org_id
        LEFT JOIN LATERAL (
          SELECT id FROM invites
          WHERE contractor_id = c.id AND derived AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
          ORDER BY created_at DESC LIMIT 1) i ON true
        WHERE c.status = 'invited' AND (${
        sql.or([
          ...Option.toArray(Option.map(claimant.address, (address) => sql`c.address = ${address}`)),
          ...Option.toArray(Option.map(claimant.email, (email) => sql`lower(c.email) = ${email.toLowerCase()}`))
        ])
      })
        ORDER BY c.created_at, c.id LIMIT 1`
      })(undefined).pipe(
        orUnavailable,
        Effect.withSpan("InviteRepo.findForClaimant")
      )

    /** Marks the invite accepted by `sub`; none when it was already used, revoked, expired or unknown. */
    const claim = (tokenHash: Buffer, sub: string, now: Date) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: Claimed,
        execute: () =>
          sql`
            UPDATE invites SET accepted_at = ${now}, accepted_by = ${sub}
            WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
            RETURNING org_id, contractor_id`
      })(undefined).pipe(orUnavailable, Effect.withSpan("InviteRepo.claim"))

    return { issue, findOpen, findForClaimant, claim } as const
  })
}) {}
