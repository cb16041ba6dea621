import { Clock, DateTime, Effect } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { Forbidden, InvalidRequest, NotFound, Unauthorized } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { ApiKeyRepo } from "./ApiKeyRepo.ts"
import { ApiKeyId, ApiKeyList, type CreateApiKey, NewApiKey } from "./ApiKeysApi.ts"
import { KeyOwners } from "./KeyOwners.ts"
import { within } from "../Domain/Roles.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { unavailableOrDie } from "../Sql/Errors.ts"
import { SqlClient } from "@effect/sql"
import * as Spans from "../Observability/Spans.ts"

/** What every key starts with: how a bearer key is told apart from a session JWT (which starts `eyJ`). */
export const API_KEY_PREFIX = "cpk_"

export const isApiKey = (token: string) => token.startsWith(API_KEY_PREFIX)

/** A key's use is written at most this often. */
const TOUCH_EVERY_MS = 60_000

/** API keys never end by themselves unless given `expiresAt`; their sessions say so with a far date. */
const NEVER = new Date(8_640_000_000_000_000)

const hashOf = (key: string) => createHash("sha256").update(key).digest()

const unauthorized = (error: string) => new Unauthorized({ error })

/**
 * An organization's API keys: created by a signed-in employer (never by another key), shown once, stored as their
 * SHA-256; each request's key is looked up in PostgreSQL, so a revoked or expired key is refused at once everywhere.
 */
export class ApiKeys extends Effect.Service<ApiKeys>()("Auth/ApiKeys", {
  effect: Effect.gen(function*() {
    const repo = yield* ApiKeyRepo
    const owners = yield* KeyOwners
    const audit = yield* AuditTrail
    const sql = yield* SqlClient.SqlClient
    /** The change and its audit row commit together. */
    const together = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))
    const record = (orgId: OrgId, session: Session, action: string, id: string) =>
      audit.append({ orgId, actor: { type: "member", id: session.sub }, action, subject: { type: "apiKey", id } })

    const managerOf = (session: Session) =>
      session.apiKey === undefined
        ? owners.managerOf(session)
        : Effect.fail(new Forbidden({ error: "API keys are managed by a signed-in employer, not by a key" }))
    const orgOf = (session: Session) => Effect.map(managerOf(session), (m) => m.orgId)

    const create = Spans.fn("ApiKeys.create")(function*(session: Session, request: CreateApiKey) {
      const { orgId, role } = yield* managerOf(session)
      if (request.role !== undefined && !within(request.role, role)) {
        return yield* new Forbidden({ error: `a key may be narrowed only to a role within yours (${role}): ${request.role} is not` })
      }
      const now = yield* Clock.currentTimeMillis
      const expiresAt = request.expiresAt
      if (expiresAt !== undefined && DateTime.toEpochMillis(expiresAt) <= now) {
        return yield* new InvalidRequest({ error: "invalid request: expiresAt must be in the future" })
      }
      const key = `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`
      const id = ApiKeyId.make(randomUUID())
      const scopes = [...new Set(request.scopes)]
      const allowedCidrs = [...new Set(request.allowedCidrs ?? [])]
      const createdAt = new Date(now)
      yield* together(Effect.zipRight(repo.insert({
        id,
        orgId,
        name: request.name,
        keyHash: hashOf(key),
        scopes,
        creatorSub: session.sub,
        creatorMethod: session.method,
        createdAt,
        expiresAt: expiresAt === undefined ? null : DateTime.toDate(expiresAt),
        role: request.role ?? null,
        allowedCidrs
      }), record(orgId, session, "api_key.created", id)))
      return new NewApiKey({
        id,
        key,
        name: request.name,
        scopes,
        createdAt: DateTime.unsafeFromDate(createdAt),
        expiresAt: expiresAt ?? null,
        role: request.role ?? null,
        allowedCidrs
      })
    })

    const list = Spans.fn("ApiKeys.list")(function*(session: Session) {
      return new ApiKeyList({ items: yield* repo.list(yield* orgOf(session)) })
    })

    const revoke = Spans.fn("ApiKeys.revoke")(function*(session: Session, id: ApiKeyId) {
      const orgId = yield* orgOf(session)
      const removed = yield* together(
        Effect.tap(repo.remove(orgId, id), (gone) => gone ? record(orgId, session, "api_key.revoked", id) : Effect.void)
      )
      if (!removed) return yield* new NotFound({ error: "API key not found" })
    })

    /**
     * A bearer key into the session it acts as, with the networks it may be used from (empty: any); 401 when unknown
     * (or revoked) or expired.
     */
    const verify = (key: string) =>
      Effect.gen(function*() {
        const found = yield* repo.find(hashOf(key))
        if (found._tag === "None") return yield* unauthorized("invalid or revoked API key")
        const record = found.value
        const now = yield* Clock.currentTimeMillis
        if (record.expiresAt !== null && record.expiresAt.getTime() <= now) return yield* unauthorized("API key expired")
        if (record.lastUsedAt === null || record.lastUsedAt.getTime() <= now - TOUCH_EVERY_MS) {
          yield* repo.touch(record.id, new Date(now)).pipe(
            Effect.catchAll((error) => Effect.logWarning("an API key's last use could not be recorded", error))
          )
        }
        const session: Session = {
          sub: record.creatorSub,
          method: record.creatorMethod,
          jti: `api-key:${record.id}`,
          expiresAt: record.expiresAt ?? NEVER,
          apiKey: { id: record.id, orgId: record.orgId, scopes: record.scopes, role: record.role }
        }
        return { session, allowedCidrs: record.allowedCidrs }
      }).pipe(Spans.withSpan("ApiKeys.verify"))

    return { create, list, revoke, verify } as const
  }),
  dependencies: [ApiKeyRepo.Default]
}) {}
