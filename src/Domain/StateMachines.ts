import type { BatchStatus, PayoutStatus } from "./Batch.ts"

/**
 * A state machine as a table of allowed moves, in the manner of the Stellar Disbursement Platform's
 * `internal/data/payments_state_machine.go`: services ask it (`allows`), and every SQL update that changes a status
 * names the states it may leave (`sourcesOf`) in its WHERE clause, so a move the table does not allow changes no
 * row. test/unit/state-machines.test.ts walks every pair of states.
 */
export interface StateMachine<S extends string> {
  readonly states: ReadonlyArray<S>
  readonly moves: Readonly<Record<S, ReadonlyArray<S>>>
}

export const allows = <S extends string>(machine: StateMachine<S>, from: S, to: S): boolean => machine.moves[from].includes(to)

/** The states `to` may be reached from, for `WHERE status IN (…)`. */
export const sourcesOf = <S extends string>(machine: StateMachine<S>, to: S): ReadonlyArray<S> =>
  machine.states.filter((from) => allows(machine, from, to))

/**
 * draft → ready (readied, with a payout) → started (first payout submitted) → completed (every payout final);
 * ready → draft (rejected); ready/started ⇄ paused; completed → started (a failed payout paid again); paused →
 * completed (its last payout in flight became final while paused); draft/ready/started/paused → canceled.
 */
export const BatchMachine: StateMachine<BatchStatus> = {
  states: ["draft", "ready", "started", "paused", "completed", "canceled"],
  moves: {
    draft: ["ready", "canceled"],
    ready: ["draft", "started", "paused", "canceled"],
    started: ["paused", "completed", "canceled"],
    paused: ["ready", "started", "completed", "canceled"],
    completed: ["started"],
    canceled: []
  }
}

/**
 * draft → ready (its batch readied) → submitted → settled | failed; failed → submitted (paid again); ready → draft
 * (its batch rejected); draft/ready/failed → canceled (never sponsored afterwards).
 */
export const PayoutMachine: StateMachine<PayoutStatus> = {
  states: ["draft", "ready", "submitted", "settled", "failed", "canceled"],
  moves: {
    draft: ["ready", "canceled"],
    ready: ["draft", "submitted", "canceled"],
    submitted: ["settled", "failed"],
    settled: [],
    failed: ["submitted", "canceled"],
    canceled: []
  }
}
