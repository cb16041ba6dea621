import { Clock, DateTime, Duration, Effect, Option } from "effect"
import type { OrgId } from "../Domain/Ids.ts"
import * as Spans from "../Observability/Spans.ts"
import { decodeAuditCursor, encodeAuditCursor } from "./AuditCursor.ts"
import { AuditPage, AuditRecord, AuditVerification, type ListAuditParams, type VerifyAuditParams } from "./AuditRecord.ts"
import { AuditRepo, type AuditRow, SEAL_BATCH, type Seal } from "./AuditRepo.ts"
import { type ChainContent, type ChainHead, GENESIS, sameHash, type Slot, walk } from "./Chain.ts"
import { CheckpointSigner, parseCheckpoint, signCheckpoint } from "./Checkpoint.ts"

/** Seals read per query while verifying. */
const VERIFY_SEALS = 100

/** Rows read per query while verifying (a seal holds at most SEAL_BATCH, and is read whole). */
const VERIFY_ROWS = 1_000

/** How long a verification waits for transactions begun before it to end, so that it covers their rows. */
const VERIFY_WAIT = Duration.seconds(5)

/** Verifications walking a chain at once on one instance, across organizations; more wait their turn. */
const VERIFY_AT_ONCE = 2

/** Consecutive seals in groups of about VERIFY_ROWS rows: one query reads a group's rows. */
const groupsOfRows = (seals: ReadonlyArray<Seal>): ReadonlyArray<ReadonlyArray<Seal>> => {
  const groups: Array<Array<Seal>> = []
  let size = VERIFY_ROWS
  for (const seal of seals) {
    if (size + seal.ids.length > VERIFY_ROWS) {
      groups.push([])
      size = 0
    }
    groups.at(-1)!.push(seal)
    size += seal.ids.length
  }
  return groups
}

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
    const signer = yield* CheckpointSigner

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

    /** Links every row waiting to be, a round at a time, until a round comes back short; answers the last round. */
    const seal = Spans.fn("AuditLog.seal")(function*(wait: boolean) {
      for (;;) {
        const round = yield* repo.seal(wait)
        if (round.sealed < SEAL_BATCH) return round
      }
    })

    /**
     * Links everything committed before the verification began: what an organization did a moment ago is in the
     * chain it is shown. A transaction begun before and still running holds the sealer back (it links in transaction
     * order), so the wait is bounded; what is still waiting after it is counted in `pending`.
     */
    const sealCommitted = Effect.gen(function*() {
      const { next } = yield* repo.horizon
      const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(VERIFY_WAIT)
      for (;;) {
        const round = yield* seal(true)
        if (round.bound >= next || (yield* Clock.currentTimeMillis) >= deadline) return
        yield* Effect.sleep("20 millis")
      }
    })

    /** One seal's places: its rows' ids in chain order, their recorded hashes and the rows as they are now. */
    const slotsOf = (seal: Seal, current: ReadonlyMap<string, ChainContent>): ReadonlyArray<Slot> =>
      seal.ids.map((id, i) => ({
        // A seal whose recorded end disagrees with its rows breaks at its last place.
        position: i === seal.ids.length - 1 ? seal.lastPosition : seal.firstPosition + i,
        id,
        hash: seal.hashes.length === seal.ids.length * 32 ? seal.hashes.subarray(i * 32, (i + 1) * 32) : null,
        row: current.get(id) ?? null
      }))

    /**
     * Seals first, so that everything committed before it is covered, then walks the whole chain in position order, a
     * page of seals at a time (about VERIFY_ROWS rows in memory), and stops at the first place that breaks it.
     */
    const walkChain = Spans.fn("AuditLog.verify")(function*(orgId: OrgId, params: VerifyAuditParams) {
      yield* sealCommitted
      const given = Option.map(Option.fromNullable(params.checkpoint), parseCheckpoint)
      /** The given checkpoint against the chain's hash at its position, once the walk passed it (GENESIS: position 0). */
      let seen: Option.Option<Uint8Array> = Option.flatMap(given, (c) => c.position === 0 ? Option.some(GENESIS.hash) : Option.none())
      const kept = () => Option.map(given, (c) => Option.exists(seen, (hash) => sameHash(hash, c.hash)))
      let head: ChainHead = GENESIS
      let places = 0
      for (;;) {
        const seals = yield* repo.seals(orgId, head.position, VERIFY_SEALS)
        for (const group of groupsOfRows(seals)) {
          const current = new Map<string, ChainContent>((yield* repo.rows(group.flatMap((s) => s.ids))).map((r) => [r.id, r]))
          const walked = walk(head, group.flatMap((s) => slotsOf(s, current)), Option.getOrUndefined(given)?.position)
          places += walked.checked
          seen = Option.orElse(walked.watched, () => seen)
          if (Option.isSome(walked.brokenId)) {
            return new AuditVerification({
              rows: places,
              verified: false,
              firstBrokenId: walked.brokenId.value,
              pending: yield* repo.pending(orgId),
              checkpointKept: Option.getOrUndefined(kept())
            })
          }
          head = walked.head
        }
        if (seals.length < VERIFY_SEALS) {
          const checkpointKept = Option.getOrUndefined(kept())
          const verified = checkpointKept !== false
          return new AuditVerification({
            rows: places,
            verified,
            pending: yield* repo.pending(orgId),
            checkpointKept,
            checkpoint: verified ? signCheckpoint(signer, orgId, head) : undefined
          })
        }
      }
    })

    /**
     * Each verification reads and hashes the whole chain, so one member (or key) asking again and again must not take
     * the database from the payroll: on this instance an organization's verifications run one after another, and at
     * most VERIFY_AT_ONCE run at once across organizations; the others wait their turn.
     */
    const slots = yield* Effect.makeSemaphore(VERIFY_AT_ONCE)
    const queues = new Map<OrgId, { readonly turn: Effect.Semaphore; waiting: number }>()
    const verify = (orgId: OrgId, params: VerifyAuditParams = {}) =>
      Effect.suspend(() => {
        const queue = queues.get(orgId) ?? { turn: Effect.unsafeMakeSemaphore(1), waiting: 0 }
        queues.set(orgId, queue)
        queue.waiting += 1
        return queue.turn.withPermits(1)(slots.withPermits(1)(walkChain(orgId, params))).pipe(
          Effect.ensuring(Effect.sync(() => {
            queue.waiting -= 1
            if (queue.waiting === 0) queues.delete(orgId)
          }))
        )
      })

    return { list, seal, verify } as const
  }),
  dependencies: [AuditRepo.Default]
}) {}
