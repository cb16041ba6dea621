import { describe, expect, it } from "@effect/vitest"
import { movable } from "../../src/Batches/BatchRepo.ts"
import { allows, BatchMachine, PayoutMachine, type StateMachine, sourcesOf } from "../../src/Domain/StateMachines.ts"

/** shared/DESIGN.md §6 and issue 22 §3, move by move, written out here rather than read from the service's tables. */
const BATCH_MOVES = new Set([
  "draft→ready", // POST /batches/{id}/ready
  "ready→draft", // rejected
  "ready→started", // its first payout submitted
  "ready→paused",
  "started→paused",
  "paused→ready", // resumed, as it was paused
  "paused→started",
  "started→completed", // every payout final
  "paused→completed", // its last payout in flight became final while paused
  "completed→started", // a failed payout paid again
  "draft→canceled",
  "ready→canceled",
  "started→canceled",
  "paused→canceled"
])

const PAYOUT_MOVES = new Set([
  "draft→ready",
  "ready→draft",
  "ready→submitted",
  "failed→submitted",
  "submitted→settled",
  "submitted→failed",
  "draft→canceled",
  "ready→canceled",
  "failed→canceled"
])

const walk = <S extends string>(machine: StateMachine<S>, expected: ReadonlySet<string>) => {
  for (const from of machine.states) {
    for (const to of machine.states) {
      expect([`${from}→${to}`, allows(machine, from, to)]).toEqual([`${from}→${to}`, expected.has(`${from}→${to}`)])
    }
  }
}

describe("state machines", () => {
  it("the batch machine allows exactly the moves of the design, every pair of states walked", () => walk(BatchMachine, BATCH_MOVES))
  it("the payout machine allows exactly the moves of the design, every pair of states walked", () => walk(PayoutMachine, PAYOUT_MOVES))

  it("a final state is left by no move but a retry, and canceled by none", () => {
    expect(BatchMachine.moves.canceled).toEqual([])
    expect(PayoutMachine.moves.canceled).toEqual([])
    expect(PayoutMachine.moves.settled).toEqual([])
    expect(sourcesOf(PayoutMachine, "canceled")).toEqual(["draft", "ready", "failed"])
  })

  it("a guarded UPDATE cannot name a move the table refuses", () => {
    expect(movable(BatchMachine, ["ready", "started"], "paused")).toEqual(["ready", "started"])
    expect(() => movable(BatchMachine, ["completed"], "canceled")).toThrow("no move from completed to canceled")
    expect(() => movable(PayoutMachine, ["submitted"], "canceled")).toThrow("no move from submitted to canceled")
  })
})
