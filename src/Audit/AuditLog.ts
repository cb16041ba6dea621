import { DateTime, Effect, Option } from "effect"
import type { OrgId } from "../Domain/Ids.ts"
import * as Spans from "../Observability/Spans.ts"
import { decodeAuditCursor, encodeAuditCursor } from "./AuditCursor.ts"
import { AuditPage, AuditRecord, AuditVerification, type ListAuditParams } from "./AuditRecord.ts"
import { AuditRepo, type AuditRow, SEAL_BATCH } from "./AuditRepo.ts"
import { GENESIS, walk } from "./Chain.ts"

/** Linked rows read per query while verifying: the most a verification holds in memory. */
const VERIFY_PAGE = 1_000

const toRecord = (row: AuditRow) =>
  new AuditRecord({
    id: row.id,
    at: DateTime.unsafeFromDate(row.at),
    actor: { type: row.actorType, id: row.actorId },
    action: row.action,
    subject: { type: row.subjectType, id: row.subjectId },
    from: Option.fromNullable(row.fromState),
    to: Option.fromNullable(row.toState),
    requestId: Option.fromNullable(row.requestId)
  }, { disableValidation: true })

/** An organization's audit trail as members read it (`audit:read`), and the proof that nothing in it was changed. */
export class AuditLog extends Effect.Service<AuditLog>()("Audit/AuditLog", {
  effect: Effect.gen(function*() {
    const repo = yield* AuditRepo

    const list = Spans.fn("AuditLog.list")(function*(orgId: OrgId, params: ListAuditParams) {
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeAuditCursor(params.cursor))
      const limit = params.limit ?? 50
      const rows = yield* repo.page(orgId, {
        subjectType: params.subjectType,
        subjectId: params.subjectId,
        actor: params.actor,
        action: params.action,
        from: params.from === undefined ? undefined : DateTime.toDate(params.from),
        to: params.to === undefined ? undefined : DateTime.toDate(params.to)
      }, limit, after)
      const last = rows.length > limit ? rows[limit - 1] : undefined
      return new AuditPage({
        items: rows.slice(0, limit).map(toRecord),
        ...(last === undefined ? {} : { nextCursor: encodeAuditCursor(last.seq) })
      })
    })

    /** Links every row of the organization waiting to be, a batch at a time, until a batch comes back short. */
    const seal = Spans.fn("AuditLog.seal")(function*(orgId: OrgId) {
      let total = 0
      for (;;) {
        const linked = yield* repo.seal(orgId)
        total += linked
        if (linked < SEAL_BATCH) return total
      }
    })

    /**
     * Seals first, so that everything committed so far is covered, then walks the whole chain in position order, a
     * page at a time (constant memory), and stops at the first row that breaks it.
     */
    const verify = Spans.fn("AuditLog.verify")(function*(orgId: OrgId) {
      yield* seal(orgId)
      let head = GENESIS
      let rows = 0
      for (;;) {
        const page = yield* repo.linked(orgId, head.position, VERIFY_PAGE)
        const walked = walk(head, page)
        rows += walked.checked
        if (Option.isSome(walked.brokenId)) {
          return new AuditVerification({ rows, verified: false, firstBrokenId: walked.brokenId.value, pending: yield* repo.pending(orgId) })
        }
        if (page.length < VERIFY_PAGE) return new AuditVerification({ rows, verified: true, pending: yield* repo.pending(orgId) })
        head = walked.head
      }
    })

    return { list, seal, verify } as const
  }),
  dependencies: [AuditRepo.Default]
}) {}
