import type { Transaction } from "@stellar/stellar-sdk"
import { Data, Effect, Either } from "effect"
import { Forbidden, NotImplemented } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"
import type { Actor, AuditActor } from "../Domain/Actor.ts"
import type { TokenCallKind } from "./SponsorPolicy.ts"

/**
 * Who may submit a sponsored transfer, in one place: a wallet session (`requireWallet`), sourcing only accounts the
 * submitter may source (`checkSources`). A submitter is the account recorded as the transfer's submitter, the
 * organization it is made for, and the accounts that may source it: `POST /transfer` allows only the signed-in
 * wallet; a batch run, every wallet of the organization.
 */
export class Submitter extends Data.Class<{
  readonly sub: string
  readonly orgId: OrgId
  readonly allowedSources: ReadonlySet<string>
  /** Who the audit trail says submitted it. */
  readonly actor: AuditActor
  /** The organization requires approved batches: the sponsor pays only transfers that name a payout. */
  readonly linkedOnly: boolean
}> {}

/**
 * Who asks the sponsor to pay for a call on their own confidential account (POST /token/calls, POST
 * /contractor/register): the signed-in wallet, the only source and account the call may name; the calls the route
 * sponsors at all (`offered`: 422 for another) and those this caller may make (`permitted`: 403 for another); and, for
 * a member, the organization the submission is recorded for and who the audit trail names. A contractor's calls are
 * no organization's: recorded for none, as the faucet's grants are.
 */
export class OwnCaller extends Data.Class<{
  readonly sub: string
  /** How the caller is allowed, as a refusal names it. */
  readonly as: "member" | "contractor"
  readonly offered: ReadonlySet<TokenCallKind>
  readonly permitted: ReadonlySet<TokenCallKind>
  /** `auditorId`: the organization's escrow key's (issue 36 §2), the only one its wallets' `register` may name. */
  readonly member: { readonly orgId: OrgId; readonly actor: AuditActor; readonly auditorId: number | undefined } | undefined
}> {}

/** Sponsored transfers are signed by a wallet: an email (Privy) session cannot submit one. */
export const requireWallet = (session: Session) =>
  session.method === "sep10"
    ? Effect.void
    : Effect.fail(new NotImplemented({ error: "sponsored transfers need a wallet (SEP-10) session" }))

/** The signed-in employer's wallet, alone. */
export const submitterOf = (session: Session, actor: Actor) =>
  new Submitter({
    sub: session.sub,
    orgId: actor.orgId,
    allowedSources: new Set([session.sub]),
    actor: actor.audit,
    linkedOnly: actor.approvalsRequired > 0
  })

/**
 * The transaction and every operation must be sourced by the signed-in account (for a batch run: by one of the
 * organization's wallet members).
 */
export const checkSources = (tx: Transaction, allowed: ReadonlySet<string>): Either.Either<void, Forbidden> => {
  const who = allowed.size === 1 ? "the signed-in account" : "an account of the organization"
  if (!allowed.has(tx.source)) {
    return Either.left(new Forbidden({ error: `the transaction's source account must be ${who}` }))
  }
  if (tx.operations.some((op) => op.source !== undefined && op.source !== tx.source)) {
    return Either.left(new Forbidden({ error: `every operation's source account must be ${who}` }))
  }
  return Either.right(undefined)
}
