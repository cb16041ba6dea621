import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { ContractorId, OrgId } from "../Domain/Ids.ts"

export interface OpenInvite {
  readonly orgId: OrgId
  readonly orgName: string
  readonly contractorId: ContractorId
}

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
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("InviteRepo.issue"))

    const findOpen = (tokenHash: Buffer, now: Date) =>
      sql<OpenInvite>`
        SELECT i.org_id, o.name AS org_name, i.contractor_id
        FROM invites i JOIN orgs o ON o.id = i.org_id
        WHERE i.token_hash = ${tokenHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}`
        .pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie, Effect.withSpan("InviteRepo.findOpen"))

    /**
     * The oldest `invited` contractor whose address or email (any case) is the claimant's, with its newest open
     * invite whose token can be derived (none when it has no such invite).
     */
    const findForClaimant = (
      claimant: { readonly address: Option.Option<string>; readonly email: Option.Option<string> },
      now: Date
    ) =>
      sql<OpenInvite & { inviteId: string | null }>`
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
        ORDER BY c.created_at, c.id LIMIT 1`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            orgId: row.orgId,
            orgName: row.orgName,
            contractorId: row.contractorId,
            inviteId: Option.fromNullable(row.inviteId)
          }))
        ),
        Effect.orDie,
        Effect.withSpan("InviteRepo.findForClaimant")
      )

    /** Marks the invite accepted by `sub`; none when it was already used, revoked, expired or unknown. */
    const claim = (tokenHash: Buffer, sub: string, now: Date) =>
      sql<{ orgId: OrgId; contractorId: ContractorId }>`
        UPDATE invites SET accepted_at = ${now}, accepted_by = ${sub}
        WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
        RETURNING org_id, contractor_id`
        .pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie, Effect.withSpan("InviteRepo.claim"))

    return { issue, findOpen, findForClaimant, claim } as const
  })
}) {}
