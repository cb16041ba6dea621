import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"
import type { AuditActor } from "../Domain/Actor.ts"
import type { Conflict, NotFound, ServiceUnavailable } from "../Domain/Errors.ts"
import type { OrgId, PayoutId } from "../Domain/Ids.ts"
import type { StellarAddress } from "../Domain/Stellar.ts"
import type { SponsorRefused } from "../Domain/Transfer.ts"

/** How a submission ended, for what follows from it elsewhere. */
export interface Outcome {
  readonly settled: boolean
  /** Why it failed: the result code, or `expired` / `rejected`. */
  readonly error?: string
}

/**
 * What other features do as a transfer is recorded and settles. Transfers owns the submission lifecycle and declares
 * this; Batches implements the payout side, Funding the faucet's, and the composition root (App.ts) wires them, so
 * that Transfers imports neither. `submitted`, `settled` and `released` run inside the database transaction of the
 * state change they follow: a SqlError they raise rolls that change back.
 */
export class SettlementHooks extends Context.Tag("Transfers/SettlementHooks")<SettlementHooks, {
  /**
   * Before a transfer that names a payout is recorded: 404 for an unknown payout, 409 when the payroll controls hold
   * it (canceled, paused, approvals short), 422 when it cannot take `to`.
   */
  readonly checkPayout: (
    orgId: OrgId,
    payoutId: PayoutId,
    to: StellarAddress
  ) => Effect.Effect<void, NotFound | Conflict | SponsorRefused | ServiceUnavailable>
  /** The transfer paying `payoutId` was recorded with fee-bump hash `hash`, by `actor`. */
  readonly submitted: (
    payoutId: PayoutId,
    hash: string,
    now: Date,
    actor: AuditActor
  ) => Effect.Effect<void, SponsorRefused | SqlError | ServiceUnavailable>
  /** The transfer paying `payoutId` is final. */
  readonly settled: (payoutId: PayoutId, outcome: Outcome, now: Date) => Effect.Effect<void, SqlError | ServiceUnavailable>
  /** A transfer that never reached the ledger gives back what it reserved elsewhere (a faucet grant). */
  readonly released: (innerHash: string) => Effect.Effect<void, SqlError>
}>() {}
