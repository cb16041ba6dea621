import { type FeeBumpTransaction, StrKey, type Transaction } from "@stellar/stellar-sdk"
import { Clock, Data, DateTime, Duration, Effect, Either, Exit, Fiber, Option } from "effect"
import type { SqlError } from "@effect/sql/SqlError"
import { Organizations } from "../Orgs/Organizations.ts"
import { StellarConfig, SubmissionConfig } from "../Config.ts"
import { Conflict, Forbidden, InvalidRequest, notFound, type ServiceUnavailable, UpstreamUnavailable } from "../Domain/Errors.ts"
import type { OrgId, PayoutId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"
import type { AuditActor } from "../Domain/Actor.ts"
import { outcomeOf, SponsorRefused, type TransferRequest, TransferStatus } from "../Domain/Transfer.ts"
import { countSponsorRefusal } from "../Observability/Metrics.ts"
import { keepLeased } from "../Sql/Lease.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { decodeInner, envelopeXdr, txHashHex, validSigners } from "./Envelope.ts"
import { followSchedule, Network, PollOutcome, type SendOutcome, slotOf } from "./Network.ts"
import { SettlementHooks } from "./SettlementHooks.ts"
import { answerFor, Settle } from "./Settle.ts"
import { FINAL_STATES, type Submission, SubmissionRepo } from "./SubmissionRepo.ts"
import { type QuotaReservation, Sponsor } from "./Sponsor.ts"
import { checkSources, type OwnCaller, type Submitter } from "./Submitter.ts"
import { registerAuditorId, tokenCallOf } from "./SponsorPolicy.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import * as Spans from "../Observability/Spans.ts"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The submission followed is not final yet (or not recorded yet): looked up again. */
class NotFinal extends Data.TaggedError("NotFinal")<{ readonly row: Option.Option<Submission> }> {}

/** POST /transfer (and a wallet's own token calls): check, fee-bump, persist, submit, follow to the ledger. */
export class Transfers extends Effect.Service<Transfers>()("Transfers/Transfers", {
  effect: Effect.gen(function*() {
    const { networkPassphrase } = yield* StellarConfig
    const { pollMargin, reconcileInterval } = yield* SubmissionConfig
    const leaseFor = Duration.times(reconcileInterval, 3)
    const orgs = yield* Organizations
    const sponsor = yield* Sponsor
    const repo = yield* SubmissionRepo
    const network = yield* Network
    const settle = yield* Settle
    const rpc = yield* RpcClient
    const hooks = yield* SettlementHooks
    const audit = yield* AuditTrail

    /** The envelope must carry a valid signature of its source (or one of its signers) for this network. */
    const signedForThisNetwork = (tx: Transaction) =>
      Effect.gen(function*() {
        // The source check (403) ran first: a muxed or otherwise foreign source never gets here.
        if (!StrKey.isValidEd25519PublicKey(tx.source)) return false
        if (validSigners(tx, [tx.source]).length > 0) return true
        const signers = yield* rpc.getAccountSigners(tx.source).pipe(
          Effect.mapError(() => new UpstreamUnavailable({ error: "could not read the source account from Stellar RPC" }))
        )
        return Option.match(signers, {
          onNone: () => false,
          onSome: ({ weights }) => validSigners(tx, Object.keys(weights).filter((k) => (weights[k] ?? 0) > 0)).length > 0
        })
      })

    /**
     * Holds the lease while this request drives the submission, so the reconciler leaves it alone. The lease taken
     * when the submission was recorded lasts three reconcile intervals and the first renewal comes one interval in
     * (`keepLeased`), so a transfer that settles sooner writes no lease at all. A renewal that fails (the database
     * down) is tried again on the next beat; a lease that lapsed meanwhile only lets the reconciler follow the
     * transaction too, which never sends it twice.
     */
    const heartbeat = (innerHash: string) =>
      keepLeased(
        Effect.flatMap(now, (at) => repo.lease(innerHash, new Date(at.getTime() + Duration.toMillis(leaseFor)))),
        reconcileInterval,
        "a submission lease"
      )

    /** Hands the submission to the reconciler at once, whatever the outcome here (interrupted included). */
    const releaseLease = (innerHash: string) =>
      Effect.flatMap(now, (at) => repo.lease(innerHash, at)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("could not release a submission lease", cause))
      )

    /**
     * Whether the account has an earlier transaction recorded here and not yet final; while it has, waits for it (up
     * to `deadline`). True when there was one and it is final now.
     */
    const earlierSettled = (row: Submission, sequence: string, deadline: Date) =>
      Effect.gen(function*() {
        const pending = repo.earlierInFlight(row.source, sequence, [row.innerHash])
        if (!(yield* pending)) return false
        const budget = Duration.millis(Math.max(0, deadline.getTime() - (yield* Clock.currentTimeMillis)))
        // (A repeat with a schedule answers the schedule's output: the last look is taken again.)
        yield* pending.pipe(Effect.repeat({ schedule: followSchedule(budget), while: (inFlight) => inFlight }))
        return !(yield* pending)
      })

    /**
     * Sends in the account's turn. A txBadSeq while an earlier transaction of the account is recorded but not final
     * here (its send failed during an outage and the reconciler sends it again; a batch run goes on to the next item
     * meanwhile) is not this transaction's fault: it waits for that one, then is sent again. That holds for an
     * unconfirmed txBadSeq too (after a transport failure): a transaction cannot have landed before the one ahead of
     * it; the send after the wait stays unconfirmed, since this one may then have landed in the meantime.
     */
    const sendInTurn = (row: Submission, tx: FeeBumpTransaction, deadline: Date, resend = false): Effect.Effect<SendOutcome, ServiceUnavailable> =>
      Effect.flatMap(network.send(tx, deadline, { resend }), (sent) =>
        (sent._tag === "Rejected" && sent.code === "txBadSeq") || (sent._tag === "Accepted" && sent.unconfirmed === "txBadSeq")
          ? Effect.flatMap(earlierSettled(row, tx.innerTransaction.sequence, deadline), (settled) =>
            settled ? sendInTurn(row, tx, deadline, resend || sent._tag === "Accepted") : Effect.succeed(sent))
          : Effect.succeed(sent))

    /**
     * Sends and follows the submission while holding its lease (taken when it was recorded); the final row when this
     * request settled it. A lease not released by a final state is handed back, so the reconciler takes over at once.
     */
    const drive = (row: Submission, tx: FeeBumpTransaction, deadline: Date) =>
      Effect.gen(function*() {
        const maxTime = row.maxTime.getTime() / 1000
        const sent = yield* sendInTurn(row, tx, deadline)
        if (sent._tag === "Accepted") {
          // `pending → submitted` is written while the ledger is polled: the final transition accepts either state.
          const submitted = yield* Effect.fork(settle.afterSend(row, sent))
          const outcome = yield* network.poll(row.outerHash, deadline, maxTime, slotOf(tx))
          yield* Fiber.join(submitted)
          return yield* settle.afterPoll(row, outcome)
        }
        const refused = yield* settle.afterSend(row, sent)
        if (Option.isSome(refused)) return refused
        switch (sent._tag) {
          case "Unreachable":
            return yield* new UpstreamUnavailable({ error: "Stellar RPC is unreachable; the transfer will be retried", hash: row.outerHash })
          case "Unreadable":
            return yield* new UpstreamUnavailable({
              error: "Stellar RPC's answer could not be read; the transfer will be followed and retried",
              hash: row.outerHash
            })
          default: {
            // Busy until the deadline: expired only once the ledger says so; otherwise the reconciler keeps following it.
            const outcome = yield* network.check(row.outerHash, maxTime, slotOf(tx)).pipe(Effect.orElseSucceed(() => PollOutcome.NotYet()))
            return yield* settle.afterPoll(row, outcome)
          }
        }
      }).pipe(
        Effect.raceFirst(heartbeat(row.innerHash)),
        Effect.onExit((exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? Effect.void : releaseLease(row.innerHash))
      )

    /** Another request or instance has this transaction: wait for its outcome instead of sending it again. */
    const follow = (innerHash: string, deadline: Date) =>
      Effect.gen(function*() {
        const budget = Duration.millis(Math.max(0, deadline.getTime() - (yield* Clock.currentTimeMillis)))
        return yield* repo.find(innerHash).pipe(
          Effect.flatMap((row) =>
            Option.isSome(row) && FINAL_STATES.includes(row.value.state) ? Effect.succeed(row.value) : Effect.fail(new NotFinal({ row }))
          ),
          Effect.retry({ schedule: followSchedule(budget), while: (e) => e._tag === "NotFinal" }),
          Effect.catchTag("NotFinal", ({ row }) => Option.isSome(row) ? Effect.succeed(row.value) : Effect.dieMessage("submission vanished"))
        )
      })

    /** The submission of this transaction, answered as it stands (once final, as it was first answered). */
    const answerExisting = (row: Submission, orgId: OrgId | null) =>
      row.orgId === orgId
        ? Effect.flatMap(follow(row.innerHash, new Date(row.maxTime.getTime() + Duration.toMillis(pollMargin))), answerFor)
        : Effect.fail(new Conflict({ error: "this transaction was submitted by another organization" }))

    /**
     * POST /transfer's checks in the interface's order: decode (400), source (403), signature (400), policy (422).
     * The submission is the source of truth: a transaction submitted before (a retry, a batch item run again after a
     * crash, the same envelope on another instance) is answered with its submission's state, never refused by a check
     * its own submission made false (its payout submitted or settled, its time bounds passed, its quota spent). The
     * existing submission is looked up only when a check refuses, so a first submission reads nothing more.
     */
    const submit = Spans.fn("Transfers.submit")(function*(submitter: Submitter, request: TransferRequest) {
      const tx = yield* decodeInner(request.signedXDR, networkPassphrase)
      yield* checkSources(tx, submitter.allowedSources)
      const at = yield* now
      const checked = yield* Effect.either(Effect.gen(function*() {
        if (!(yield* signedForThisNetwork(tx))) {
          return yield* new InvalidRequest({ error: "the transaction carries no valid signature of its source for this network" })
        }
        const call = yield* sponsor.check(tx, at)
        if (request.payoutId !== undefined) yield* hooks.checkPayout(submitter.orgId, request.payoutId, call.to)
        else if (submitter.linkedOnly) {
          return yield* new Forbidden({
            error: "the organization requires approved batches: the sponsor pays only transfers that name a payout (payoutId)"
          })
        }
        return call
      }))
      if (Either.isLeft(checked)) {
        const existing = yield* repo.find(txHashHex(tx))
        if (Option.isSome(existing)) return yield* answerExisting(existing.value, submitter.orgId)
        if (checked.left._tag === "SponsorRefused") yield* countSponsorRefusal(checked.left)
        return yield* Effect.fail(checked.left)
      }
      const call = checked.right
      const fee = sponsor.feeBump(tx)
      return yield* execute({
        inner: tx,
        fee,
        maxTime: call.maxTime,
        sessionSub: submitter.sub,
        orgId: submitter.orgId,
        payoutId: request.payoutId ?? null,
        quota: sponsor.reservation(at),
        link: request.payoutId === undefined
          ? Effect.void
          : hooks.submitted(request.payoutId, txHashHex(fee), at, submitter.actor)
      })
    })

    /**
     * A wallet's own call, sponsored like a transfer (the wallet may hold no XLM, and a browser cannot submit it):
     * decode (400), source (403), whether this caller may make this call (`allowed`, 403), signature (400), the
     * sponsor's policy for the call (`policy`, 422) and the quota (422). A member's call is recorded for their
     * organization with the audit row `policy` names written with it; a contractor's for none. As with a transfer, a
     * transaction recorded before is answered with its submission's state, whatever a check would say now.
     */
    const sponsorCall = (
      caller: { readonly sub: string; readonly member: { readonly orgId: OrgId; readonly actor: AuditActor } | undefined },
      signedXDR: string,
      rules: {
        readonly allowed: (tx: Transaction) => Effect.Effect<void, Forbidden>
        readonly policy: (tx: Transaction, at: Date) => Effect.Effect<{ readonly action: string; readonly maxTime: number }, SponsorRefused>
      }
    ) =>
      Effect.gen(function*() {
        const tx = yield* decodeInner(signedXDR, networkPassphrase)
        yield* checkSources(tx, new Set([caller.sub]))
        const at = yield* now
        const orgId = caller.member?.orgId ?? null
        const checked = yield* Effect.either(Effect.gen(function*() {
          yield* rules.allowed(tx)
          if (!(yield* signedForThisNetwork(tx))) {
            return yield* new InvalidRequest({ error: "the transaction carries no valid signature of its source for this network" })
          }
          return yield* rules.policy(tx, at)
        }))
        if (Either.isLeft(checked)) {
          const existing = yield* repo.find(txHashHex(tx))
          if (Option.isSome(existing)) return yield* answerExisting(existing.value, orgId)
          if (checked.left._tag === "SponsorRefused") yield* countSponsorRefusal(checked.left)
          return yield* Effect.fail(checked.left)
        }
        const { action, maxTime } = checked.right
        const fee = sponsor.feeBump(tx)
        const member = caller.member
        return yield* execute({
          inner: tx,
          fee,
          maxTime,
          sessionSub: caller.sub,
          orgId,
          payoutId: null,
          quota: sponsor.reservation(at),
          link: member === undefined ? Effect.void : audit.append({
            orgId: member.orgId,
            actor: member.actor,
            action,
            subject: { type: "transaction", id: txHashHex(fee) }
          })
        })
      })

    /**
     * POST /token/calls and POST /contractor/register: a wallet's call on its own confidential account (`register`,
     * `deposit`, `merge`, `withdraw`): 403 for a call the route offers that this caller may not make; a member's
     * `register` names the organization's escrow key's auditor id once it has one; recorded as `token.<call>`.
     */
    const sponsorOwn = Spans.fn("Transfers.sponsorOwn")(function*(caller: OwnCaller, signedXDR: string) {
      return yield* sponsorCall(caller, signedXDR, {
        allowed: (tx) => {
          const kind = tokenCallOf(tx)
          return kind !== undefined && caller.offered.has(kind) && !caller.permitted.has(kind)
            ? Effect.fail(new Forbidden({ error: `the sponsor pays a ${caller.as}'s own ${[...caller.permitted].join(", ")} calls, not ${kind}` }))
            : Effect.void
        },
        policy: (tx, at) =>
          Effect.gen(function*() {
            const expected = caller.member?.auditorId
            const named = registerAuditorId(tx)
            if (expected !== undefined && named !== undefined && named !== expected) {
              return yield* new SponsorRefused({
                rule: "arguments",
                error: `register names auditor ${named}; the organization's wallets register under its escrow key's auditor id, ${expected}`
              })
            }
            const call = yield* sponsor.checkOwnCall(tx, at, caller.offered)
            return { action: `token.${call.kind}`, maxTime: call.maxTime }
          })
      })
    })

    /**
     * POST /escrow/registry-calls: the auditor registry operator's `register_key` of the organization's current escrow
     * key (`key`: its auditor id and point) or `rotate_key` of its auditor id to a new point, on `registry`, the
     * signed-in wallet the operator; recorded for the organization as `escrow.register_key` or `escrow.rotate_key`.
     */
    const sponsorRegistryCall = Spans.fn("Transfers.sponsorRegistryCall")(function*(
      caller: { readonly sub: string; readonly member: { readonly orgId: OrgId; readonly actor: AuditActor } },
      signedXDR: string,
      registry: string,
      key: { readonly auditorId: number; readonly point: string } | undefined
    ) {
      return yield* sponsorCall(caller, signedXDR, {
        allowed: () => Effect.void,
        policy: (tx, at) =>
          Effect.gen(function*() {
            const call = yield* sponsor.checkRegistryCall(tx, at, registry)
            if (key === undefined) {
              return yield* new SponsorRefused({ rule: "arguments", error: "the organization has no escrow key: create it first (POST /org/escrow-keys)" })
            }
            // A rotation's new key is stored (POST /org/escrow-keys/{id}/rotate) with the ledger this call lands in.
            if (call.auditorId !== key.auditorId || (call.kind === "register_key" && call.point !== key.point)) {
              return yield* new SponsorRefused({
                rule: "arguments",
                error: call.kind === "register_key"
                  ? `register_key must name the organization's current escrow key: auditor id ${key.auditorId} and its point`
                  : `rotate_key must name the organization's escrow key's auditor id ${key.auditorId}`
              })
            }
            return { action: `escrow.${call.kind}`, maxTime: call.maxTime }
          })
      })
    })

    /**
     * Records a fee-bumped transaction (with its quota reservation and whatever `link` writes, in one
     * transaction), sends it, follows it to the ledger and answers; a transaction recorded before is followed.
     */
    const execute = <E>(
      job: {
        readonly inner: Transaction
        readonly fee: FeeBumpTransaction
        readonly maxTime: number
        readonly sessionSub: string
        readonly orgId: OrgId | null
        readonly payoutId: PayoutId | null
        readonly quota: QuotaReservation | undefined
        readonly link: Effect.Effect<void, E | SqlError>
      }
    ) =>
      Effect.gen(function*() {
        const at = yield* now
        const innerHash = txHashHex(job.inner)
        const outerHash = txHashHex(job.fee)
        const deadline = new Date(job.maxTime * 1000 + Duration.toMillis(pollMargin))
        yield* Effect.annotateLogsScoped({ hash: outerHash, source: job.inner.source })
        const row = {
          innerHash,
          outerHash,
          envelope: envelopeXdr(job.fee),
          source: job.inner.source,
          sessionSub: job.sessionSub,
          orgId: job.orgId,
          payoutId: job.payoutId,
          maxTime: new Date(job.maxTime * 1000),
          leaseUntil: new Date(at.getTime() + Duration.toMillis(leaseFor)),
          sequence: job.inner.sequence
        }
        const created = yield* repo.create(row, job.quota, job.link)
        if (created === "quota") {
          return yield* sponsor.quotaExhausted()
        }
        if (created === "created") {
          const settled = yield* drive({ ...row, state: "pending", resultCode: null, ledger: null, createdAt: at, updatedAt: at }, job.fee, deadline)
          if (Option.isSome(settled)) return yield* answerFor(settled.value)
        }
        const final = yield* follow(innerHash, deadline)
        if (final.orgId !== job.orgId) {
          return yield* new Conflict({ error: "this transaction was submitted by another organization" })
        }
        return yield* answerFor(final)
      }).pipe(
        Effect.tapError((error) => (error instanceof SponsorRefused ? countSponsorRefusal(error) : Effect.void)),
        Effect.scoped,
        Spans.withSpan("Transfers.execute")
      )

    /** Visible to whoever submitted it (the faucet's caller included) and to the submitting organization. */
    const status = Spans.fn("Transfers.status")(function*(session: Session, hash: string) {
      const row = yield* repo.find(hash.toLowerCase())
      if (Option.isNone(row)) return yield* notFound("transfer")
      const s = row.value
      const mine = s.sessionSub === session.sub ||
        (s.orgId !== null &&
          Option.contains(yield* orgs.employerOrg(session).pipe(Effect.asSome, Effect.catchTag("Forbidden", () => Effect.succeedNone)), s.orgId))
      if (!mine) return yield* notFound("transfer")
      return new TransferStatus({
        hash: s.outerHash,
        innerHash: s.innerHash,
        source: s.source,
        status: outcomeOf(s.state),
        ...(s.resultCode === null ? {} : { resultCode: s.resultCode }),
        ...(s.ledger === null ? {} : { ledger: s.ledger }),
        ...(s.payoutId === null ? {} : { payoutId: s.payoutId }),
        createdAt: DateTime.unsafeMake(s.createdAt),
        updatedAt: DateTime.unsafeMake(s.updatedAt)
      })
    })

    return { submit, sponsorOwn, sponsorRegistryCall, execute, status } as const
  }),
  dependencies: [
    Organizations.Default,
    Sponsor.Default,
    SubmissionRepo.Default,
    Network.Default,
    Settle.Default,
    RpcClient.Default,
    AuditTrail.Default
  ]
}) {}

