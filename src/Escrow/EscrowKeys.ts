import { Clock, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { Actor } from "../Domain/Actor.ts"
import { Conflict, notFound } from "../Domain/Errors.ts"
import type { SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { sealedDigest, sharedFrom } from "../Batches/Sealing.ts"
import { SealedAmountsRepo } from "../Batches/SealedAmountsRepo.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { isUniqueViolation } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"
import { type CreateEscrowKey, type EscrowKey, EscrowKeyId, EscrowKeyList, type RotateEscrowKey } from "./EscrowKey.ts"
import { EscrowPointInvalid, pointProblem } from "./EscrowPoint.ts"
import { EscrowRepo } from "./EscrowRepo.ts"
import { escrowPolicy } from "./Policy.ts"
import { sealedReaders } from "../Batches/SealedReaders.ts"

const checkReaders = sealedReaders(escrowPolicy.disclose)

const validPoint = (point: string) => {
  const problem = pointProblem(point)
  return problem === undefined ? Effect.void : Effect.fail(new EscrowPointInvalid({
    reason: problem,
    error: problem === "IdentityPoint"
      ? "the point is the identity (0, 0): every auditor ciphertext would open without a key"
      : "the point is not on Grumpkin (y² = x³ − 17) or a coordinate is not below r"
  }))
}

/**
 * The organization's escrow key (issue 36 §2): the service keeps its public point, its auditor id and its secret
 * sealed to the members holding `audit:disclose`, and never the secret. One key is current; a rotation stores the next
 * beside it with the ledger it took over at, the old one kept for the events before.
 */
export class EscrowKeys extends Effect.Service<EscrowKeys>()("Escrow/EscrowKeys", {
  effect: Effect.gen(function*() {
    const repo = yield* EscrowRepo
    const members = yield* SealedAmountsRepo
    const audit = yield* AuditTrail
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const list = Spans.fn("EscrowKeys.list")(function*(actor: Actor) {
      return new EscrowKeyList({ keys: yield* repo.list(actor.orgId) })
    })

    const found = (actor: Actor, id: EscrowKeyId) =>
      Effect.flatMap(repo.lock(actor.orgId, id), Option.match({ onNone: () => Effect.fail(notFound("escrow key")), onSome: Effect.succeed }))

    const store = (actor: Actor, fields: {
      readonly auditorId: number
      readonly point: string
      readonly version: number
      readonly envelope: SealedEnvelope
      readonly replaces: EscrowKeyId | null
      readonly validFromLedger: number | null
    }) =>
      Effect.gen(function*() {
        yield* checkReaders(members.readers, actor.orgId, fields.envelope, undefined)
        const id = EscrowKeyId.make(randomUUID())
        const at = yield* now
        yield* repo.insert({ ...fields, id, orgId: actor.orgId, digest: sealedDigest(fields.envelope), at, by: actor.sub }).pipe(
          Effect.catchIf(isUniqueViolation, () =>
            new Conflict({
              error: "the point is another escrow key's, or the auditor id is another organization's (each " +
                "organization registers its own key under its own id)"
            }))
        )
        yield* audit.append({
          orgId: actor.orgId,
          actor: actor.audit,
          action: fields.replaces === null ? "escrow.key_created" : "escrow.key_rotated",
          subject: { type: "escrow_key", id },
          from: fields.replaces,
          to: `${fields.auditorId}:${fields.point}`
        })
        return id
      })

    const answer = (actor: Actor, id: EscrowKeyId) =>
      Effect.map(repo.list(actor.orgId), (keys) => keys.find((k) => k.id === id)!)

    const create = Spans.fn("EscrowKeys.create")(function*(actor: Actor, payload: CreateEscrowKey) {
      yield* validPoint(payload.point)
      const id = yield* repo.transaction(Effect.gen(function*() {
        yield* repo.lockOrg(actor.orgId)
        if ((yield* repo.list(actor.orgId)).length > 0) {
          return yield* new Conflict({ error: "the organization has an escrow key: rotate it (POST /org/escrow-keys/{id}/rotate)" })
        }
        return yield* store(actor, { ...payload, replaces: null, validFromLedger: null })
      }))
      return yield* answer(actor, id)
    })

    const rotate = Spans.fn("EscrowKeys.rotate")(function*(actor: Actor, oldId: EscrowKeyId, payload: RotateEscrowKey) {
      yield* validPoint(payload.point)
      const id = yield* repo.transaction(Effect.gen(function*() {
        yield* repo.lockOrg(actor.orgId)
        const old = yield* found(actor, oldId)
        if (!old.current) return yield* new Conflict({ error: "that key was replaced already: rotate the current one" })
        if (Option.exists(old.validFromLedger, (from) => payload.replacedAtLedger <= from)) {
          return yield* new Conflict({ error: "a key is replaced at a later ledger than it took over at" })
        }
        return yield* store(actor, {
          auditorId: old.auditorId,
          point: payload.point,
          version: payload.version,
          envelope: payload.envelope,
          replaces: old.id,
          validFromLedger: payload.replacedAtLedger
        })
      }))
      return yield* answer(actor, id)
    })

    /** The same secret for more members: the digest must be the stored one, and the share may only add recipients. */
    const share = Spans.fn("EscrowKeys.share")(function*(actor: Actor, id: EscrowKeyId, envelope: SealedEnvelope) {
      const digest = sealedDigest(envelope)
      yield* repo.transaction(Effect.gen(function*() {
        const stored: EscrowKey = yield* found(actor, id)
        const previous = sharedFrom(Option.some(stored), digest)
        if (previous === undefined) {
          return yield* new Conflict({
            error: "the envelope seals another secret than the one on file (its digest differs): a share may only add recipients"
          })
        }
        yield* checkReaders(members.readers, actor.orgId, envelope, previous)
        yield* repo.updateEnvelope(id, envelope, yield* now, actor.sub)
        yield* audit.append({
          orgId: actor.orgId, actor: actor.audit, action: "escrow.key_shared", subject: { type: "escrow_key", id }, from: digest, to: digest
        })
      }))
      return yield* answer(actor, id)
    })

    return { list, create, rotate, share } as const
  }),
  dependencies: [EscrowRepo.Default, SealedAmountsRepo.Default, AuditTrail.Default]
}) {}
