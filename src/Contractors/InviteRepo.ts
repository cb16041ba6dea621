import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { ContractorId, OrgId } from "../Domain/Ids.ts"

export interface OpenInvite {
  readonly orgId: OrgId
  readonly orgName: string
  readonly contractorId: ContractorId
}

/** Invite tokens are stored only as SHA-256 hashes and claimed at most once. */
export class InviteRepo extends Effect.Service<InviteRepo>()("Contractors/InviteRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Stores a new invite and revokes the contractor's earlier open ones. */
    const issue = (orgId: OrgId, contractorId: ContractorId, tokenHash: Buffer, expiresAt: Date) =>
      Effect.gen(function*() {
        yield* sql`
          UPDATE invites SET revoked_at = now()
          WHERE contractor_id = ${contractorId} AND accepted_at IS NULL AND revoked_at IS NULL`
        yield* sql`INSERT INTO invites ${sql.insert({ id: randomUUID(), orgId, contractorId, tokenHash, expiresAt })}`
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("InviteRepo.issue"))

    const findOpen = (tokenHash: Buffer, now: Date) =>
      sql<OpenInvite>`
        SELECT i.org_id, o.name AS org_name, i.contractor_id
        FROM invites i JOIN orgs o ON o.id = i.org_id
        WHERE i.token_hash = ${tokenHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}`
        .pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie, Effect.withSpan("InviteRepo.findOpen"))

    /** Marks the invite accepted by `sub`; none when it was already used, revoked, expired or unknown. */
    const claim = (tokenHash: Buffer, sub: string, now: Date) =>
      sql<{ orgId: OrgId; contractorId: ContractorId }>`
        UPDATE invites SET accepted_at = ${now}, accepted_by = ${sub}
        WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
        RETURNING org_id, contractor_id`
        .pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie, Effect.withSpan("InviteRepo.claim"))

    return { issue, findOpen, claim } as const
  })
}) {}
