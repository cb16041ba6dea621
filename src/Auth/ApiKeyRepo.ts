import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { OrgId } from "../Domain/Ids.ts"
import { SignInMethod } from "../Domain/Session.ts"
import { MemberRole } from "../Domain/Roles.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import { ApiKey, ApiKeyId } from "./ApiKeysApi.ts"
import { Scope } from "./Scopes.ts"
import * as Spans from "../Observability/Spans.ts"

/** A key's networks as stored: NULL for keys made before they could be narrowed. */
const Cidrs = Schema.transform(Schema.NullOr(Schema.Array(Schema.String)), Schema.Array(Schema.String), {
  strict: true,
  decode: (cidrs) => cidrs ?? [],
  encode: (cidrs) => cidrs
})

const Listed = Schema.Struct({
  id: ApiKeyId,
  name: Schema.String,
  scopes: Schema.Array(Scope),
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.NullOr(Schema.DateTimeUtcFromDate),
  role: Schema.NullOr(MemberRole),
  allowedCidrs: Cidrs,
  lastUsedAt: Schema.NullOr(Schema.DateTimeUtcFromDate)
})

/** What a request's key resolves to: whom it acts as, for which organization, within what. */
export const KeyRecord = Schema.Struct({
  id: ApiKeyId,
  orgId: OrgId,
  scopes: Schema.Array(Scope),
  creatorSub: Schema.String,
  creatorMethod: SignInMethod,
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
  role: Schema.NullOr(MemberRole),
  allowedCidrs: Cidrs
})
export type KeyRecord = typeof KeyRecord.Type

export interface NewKeyRow {
  readonly id: ApiKeyId
  readonly orgId: OrgId
  readonly name: string
  readonly keyHash: Uint8Array
  readonly scopes: ReadonlyArray<Scope>
  readonly creatorSub: string
  readonly creatorMethod: SignInMethod
  readonly createdAt: Date
  readonly expiresAt: Date | null
  readonly role: MemberRole | null
  readonly allowedCidrs: ReadonlyArray<string>
}

/** API keys by hash (one indexed lookup per request) and by organization; revoking deletes the row. */
export class ApiKeyRepo extends Effect.Service<ApiKeyRepo>()("Auth/ApiKeyRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (row: NewKeyRow) =>
      sql`
        INSERT INTO api_keys
          (id, org_id, name, key_hash, scopes, creator_sub, creator_method, created_at, expires_at, role, allowed_cidrs)
        VALUES (${row.id}, ${row.orgId}, ${row.name}, ${Buffer.from(row.keyHash)}, string_to_array(${row.scopes.join(",")}, ','),
          ${row.creatorSub}, ${row.creatorMethod}, ${row.createdAt}, ${row.expiresAt}, ${row.role},
          string_to_array(${row.allowedCidrs.join(",")}, ','))`.pipe(
        Effect.asVoid,
        orUnavailable,
        Spans.withSpan("ApiKeyRepo.insert")
      )

    const listOf = SqlSchema.findAll({
      Request: OrgId,
      Result: Listed,
      execute: (orgId) =>
        sql`
          SELECT id, name, scopes, created_at, expires_at, role, allowed_cidrs, last_used_at FROM api_keys
          WHERE org_id = ${orgId} ORDER BY created_at DESC, id`
    })
    const list = (orgId: OrgId) =>
      listOf(orgId).pipe(
        Effect.map((rows) => rows.map((row) => new ApiKey(row))),
        orUnavailable,
        Spans.withSpan("ApiKeyRepo.list")
      )

    const byHash = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: KeyRecord,
      execute: (hash) =>
        sql`
          SELECT id, org_id, scopes, creator_sub, creator_method, expires_at, last_used_at, role, allowed_cidrs FROM api_keys
          WHERE key_hash = ${Buffer.from(hash)}`
    })
    const find = (hash: Uint8Array) => byHash(hash).pipe(orUnavailable)

    const deleted = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, id: ApiKeyId }),
      Result: Schema.Struct({ id: ApiKeyId }),
      execute: ({ id, orgId }) => sql`DELETE FROM api_keys WHERE id = ${id} AND org_id = ${orgId} RETURNING id`
    })
    /** True when the organization had the key (now gone). */
    const remove = (orgId: OrgId, id: ApiKeyId) =>
      deleted({ orgId, id }).pipe(Effect.map(Option.isSome), orUnavailable, Spans.withSpan("ApiKeyRepo.remove"))

    /** Records a use, unless one was recorded within the last minute (by any instance). */
    const touch = (id: ApiKeyId, now: Date) =>
      sql`
        UPDATE api_keys SET last_used_at = ${now}
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${new Date(now.getTime() - 60_000)})`.pipe(
        Effect.asVoid,
        orUnavailable
      )

    return { insert, list, find, remove, touch } as const
  })
}) {}
