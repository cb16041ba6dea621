import { useCallback, useEffect, useRef, useState } from "react"
import { type RegistrationOutcome, type Stage, STAGES } from "./Stages.ts"

/**
 * When a step began and, once the next one began, when it ended (performance.now() milliseconds); what it said of
 * itself (the prover: on how many threads).
 */
export interface StepTime {
  readonly start: number
  readonly end?: number
  readonly note?: string
}

export type Registration =
  | { readonly phase: "idle" }
  | { readonly phase: "running"; readonly stage: Stage; readonly times: Partial<Record<Stage, StepTime>>; readonly startedAt: number }
  | {
    readonly phase: "done"
    readonly outcome: RegistrationOutcome
    readonly times: Partial<Record<Stage, StepTime>>
    readonly startedAt: number
    readonly endedAt: number
  }
  | { readonly phase: "failed"; readonly error: string; readonly times: Partial<Record<Stage, StepTime>>; readonly stage: Stage }
  | { readonly phase: "cancelled" }

const ended = (times: Partial<Record<Stage, StepTime>>, stage: Stage, at: number) => {
  const current = times[stage]
  return current === undefined || current.end !== undefined ? times : { ...times, [stage]: { ...current, end: at } }
}

/**
 * The next step, when it is later than the current one (the worker's progress never moves a registration back), or
 * a note on a step already begun.
 */
const advance = (state: Registration, stage: Stage, note: string | undefined): Registration => {
  if (state.phase !== "running") return state
  const begun = state.times[stage]
  if (note !== undefined && begun !== undefined) return { ...state, times: { ...state.times, [stage]: { ...begun, note } } }
  if (STAGES.indexOf(stage) <= STAGES.indexOf(state.stage)) return state
  const now = performance.now()
  return { ...state, stage, times: { ...ended(state.times, state.stage, now), [stage]: { start: now } } }
}

/**
 * Registering the signed-in wallet with the confidential token, in this browser: the wallet's code (the SDK, the
 * confidential client, the prover's page side) is loaded with import() when `start` is called, never before.
 */
export const useRegistration = (account: string, session: string) => {
  const [state, setState] = useState<Registration>({ phase: "idle" })
  const running = useRef<AbortController | undefined>(undefined)

  useEffect(() => () => running.current?.abort(), [])

  const start = useCallback(() => {
    running.current?.abort()
    const controller = new AbortController()
    running.current = controller
    const startedAt = performance.now()
    setState({ phase: "running", stage: "loading", times: { loading: { start: startedAt } }, startedAt })
    const update = (next: (state: Registration) => Registration) => {
      if (running.current === controller) setState(next)
    }
    import("./Registration.ts")
      .then(({ registerWithToken }) =>
        registerWithToken({ account, session, signal: controller.signal, onStage: (stage, note) => update((s) => advance(s, stage, note)) })
      )
      .then(
        (outcome) =>
          update((s) => {
            const endedAt = performance.now()
            return s.phase === "running" ? { phase: "done", outcome, times: ended(s.times, s.stage, endedAt), startedAt: s.startedAt, endedAt } : s
          }),
        (error: unknown) =>
          update((s) =>
            controller.signal.aborted
              ? { phase: "cancelled" }
              : {
                phase: "failed",
                error: error instanceof Error ? error.message : String(error),
                times: s.phase === "running" ? ended(s.times, s.stage, performance.now()) : {},
                stage: s.phase === "running" ? s.stage : "loading"
              })
      )
  }, [account, session])

  const cancel = useCallback(() => {
    const controller = running.current
    if (controller === undefined) return
    controller.abort()
    setState({ phase: "cancelled" })
  }, [])

  return { state, start, cancel }
}
