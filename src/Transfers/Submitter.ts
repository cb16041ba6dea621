import { Data, Effect } from "effect"
import { NotImplemented } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"

/**
 * Who submits a transfer: the account recorded as its submitter, the organization it is made for, and the accounts
 * that may source it. `POST /transfer` allows only the signed-in wallet; a batch run, every wallet of the organization.
 */
export class Submitter extends Data.Class<{
  readonly sub: string
  readonly orgId: OrgId
  readonly allowedSources: ReadonlySet<string>
}> {}

/** Sponsored transfers are signed by a wallet: an email (Privy) session cannot submit one. */
export const requireWallet = (session: Session) =>
  session.method === "sep10"
    ? Effect.void
    : Effect.fail(new NotImplemented({ error: "sponsored transfers need a wallet (SEP-10) session" }))

/** The signed-in employer's wallet, alone. */
export const submitterOf = (session: Session, orgId: OrgId) =>
  new Submitter({ sub: session.sub, orgId, allowedSources: new Set([session.sub]) })
