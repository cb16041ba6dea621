import { useQuery } from "@tanstack/react-query"
import { useCallback, useEffect, useRef, useState } from "react"
import type { StepOptions, Treasury, TreasuryView } from "./Treasury.ts"
import { stagesOf, type TreasuryJob, type TreasuryStage } from "./TreasuryStages.ts"
import type { StepTime } from "./useRegistration.ts"

type Times = Partial<Record<TreasuryStage, StepTime>>

/** What the page is doing with the wallet, or did last. */
export type Job =
  | { readonly phase: "running"; readonly job: TreasuryJob; readonly stages: ReadonlyArray<TreasuryStage>; readonly stage: TreasuryStage; readonly times: Times; readonly startedAt: number }
  | {
    readonly phase: "done"
    readonly job: TreasuryJob
    readonly stages: ReadonlyArray<TreasuryStage>
    readonly times: Times
    readonly startedAt: number
    readonly endedAt: number
    /** The transaction on the ledger, for a call; what it moved, for a deposit. */
    readonly hash?: string
    readonly amount?: bigint
  }
  | { readonly phase: "failed"; readonly job: TreasuryJob; readonly stages: ReadonlyArray<TreasuryStage>; readonly stage: TreasuryStage; readonly times: Times; readonly error: string }
  | { readonly phase: "cancelled"; readonly job: TreasuryJob }

const ended = (times: Times, stage: TreasuryStage, at: number): Times => {
  const current = times[stage]
  return current === undefined || current.end !== undefined ? times : { ...times, [stage]: { ...current, end: at } }
}

/** The next step when it is later than the current one (progress never moves a job back), or a note on a begun one. */
const advance = (job: Job, stage: TreasuryStage, note: string | undefined): Job => {
  if (job.phase !== "running") return job
  const begun = job.times[stage]
  if (note !== undefined && begun !== undefined) return { ...job, times: { ...job.times, [stage]: { ...begun, note } } }
  if (job.stages.indexOf(stage) <= job.stages.indexOf(job.stage)) return job
  const now = performance.now()
  return { ...job, stage, times: { ...ended(job.times, job.stage, now), [stage]: { start: now } } }
}

type Module = typeof import("./Treasury.ts")
type Outcome = { readonly hash?: string; readonly amount?: bigint } | undefined

/**
 * The signed-in wallet's treasury on this page: whether it is registered and its openings kept here (read on open,
 * without keys), then — once Freighter has signed for its keys — its balances and what to do with them. The wallet's
 * code is loaded with import() by the first read, never by the console before this page.
 */
export const useTreasury = (account: string, session: string) => {
  const status = useQuery({
    queryKey: ["treasury-status", account],
    queryFn: async () => (await import("./Treasury.ts")).readTreasury(account, session),
    retry: false,
    // Read again after a registration or a rebuild, not each time Freighter's window gives the focus back.
    refetchOnWindowFocus: false
  })
  /** The wallet's public balance of the asset the token wraps (no keys needed): read with the status, again after a deposit. */
  const publicBalance = useQuery({
    queryKey: ["treasury-public-balance", account],
    queryFn: async () => (await import("./Treasury.ts")).readTreasuryPublicBalance(account, session),
    retry: false,
    refetchOnWindowFocus: false
  })
  const refetchPublic = publicBalance.refetch
  const treasury = useRef<Treasury | undefined>(undefined)
  const running = useRef<AbortController | undefined>(undefined)
  const [view, setView] = useState<TreasuryView | undefined>(undefined)
  const [job, setJob] = useState<Job | undefined>(undefined)
  /** This page's registration: its transaction (none: someone registered the wallet in the meantime) and its time. */
  const [registration, setRegistration] = useState<{ readonly hash: string | undefined; readonly ms: number } | undefined>(undefined)

  useEffect(() => () => {
    running.current?.abort()
    treasury.current?.close()
  }, [])

  const start = useCallback((name: TreasuryJob, work: (module: Module, options: StepOptions) => Promise<Outcome>) => {
    running.current?.abort()
    const controller = new AbortController()
    running.current = controller
    const stages = stagesOf(name, treasury.current !== undefined)
    const startedAt = performance.now()
    const first = stages[0]!
    setJob({ phase: "running", job: name, stages, stage: first, times: { [first]: { start: startedAt } }, startedAt })
    const update = (next: (job: Job | undefined) => Job | undefined) => {
      if (running.current === controller) setJob(next)
    }
    const onStage = (stage: TreasuryStage, note?: string) => update((j) => (j === undefined ? j : advance(j, stage, note)))
    return import("./Treasury.ts")
      .then((module) => work(module, { onStage, signal: controller.signal }))
      .then(
        (outcome) => {
          update((j) => {
            if (j?.phase !== "running") return j
            const endedAt = performance.now()
            return { phase: "done", job: name, stages, times: ended(j.times, j.stage, endedAt), startedAt, endedAt, ...outcome }
          })
          return running.current === controller
        },
        (error: unknown) => {
          update((j) =>
            controller.signal.aborted || (error instanceof Error && error.message === "cancelled")
              ? { phase: "cancelled", job: name }
              : {
                phase: "failed",
                job: name,
                stages,
                error: error instanceof Error ? error.message : String(error),
                times: j?.phase === "running" ? ended(j.times, j.stage, performance.now()) : {},
                stage: j?.phase === "running" ? j.stage : first
              })
          return false
        }
      )
      .finally(() => {
        if (running.current === controller) running.current = undefined
      })
  }, [])

  const adopt = (opened: { readonly treasury: Treasury; readonly view: TreasuryView }, signal: AbortSignal) => {
    if (signal.aborted) {
      opened.treasury.close()
      throw new Error("cancelled")
    }
    treasury.current?.close()
    treasury.current = opened.treasury
    setView(opened.view)
  }

  const open = useCallback(() =>
    void start("open", async (module, options) => {
      adopt(await module.openTreasury(account, session, options), options.signal)
      return undefined
    }), [account, session, start])

  /** Registers, then opens the balance (keys from one more signature: they reproduce the registered ones). */
  const register = useCallback(() => {
    const began = performance.now()
    void start("register", async (module, options) => {
      const hash = await module.registerTreasury(account, session, options)
      setRegistration({ hash, ms: performance.now() - began })
      return hash === undefined ? undefined : { hash }
    }).then(async (registered) => {
      await status.refetch()
      if (registered) open()
    })
  }, [account, session, start, status, open])

  const rebuild = useCallback(() =>
    void start("rebuild", async (module, options) => {
      const current = treasury.current
      if (current !== undefined) {
        options.onStage("rebuilding")
        setView(await current.rebuild())
        return undefined
      }
      adopt(await module.openTreasury(account, session, { ...options, reset: true }), options.signal)
      return undefined
    }).then(() => status.refetch()), [account, session, start, status])

  /** Whether the call landed (its balance checked after it): a deposit's amount field is then cleared. */
  const call = useCallback((name: "deposit" | "merge", amount?: bigint): Promise<boolean> =>
    start(name, async (_module, options) => {
      const current = treasury.current
      if (current === undefined) throw new Error("Show the balance first: it is checked after each call.")
      const { hash, view: next } = amount === undefined ? await current.merge(options) : await current.deposit(amount, options)
      setView(next)
      return amount === undefined ? { hash } : { hash, amount }
    }).then((landed) => {
      if (amount !== undefined) void refetchPublic()
      return landed
    }), [start, refetchPublic])

  const cancel = useCallback(() => {
    const controller = running.current
    if (controller === undefined) return
    controller.abort()
    running.current = undefined
    setJob((j) => (j === undefined ? j : { phase: "cancelled", job: j.job }))
  }, [])

  return {
    status,
    publicBalance,
    view,
    job,
    registration,
    opened: view !== undefined,
    busy: job?.phase === "running",
    open,
    register,
    rebuild,
    deposit: (amount: bigint) => call("deposit", amount),
    merge: () => void call("merge"),
    cancel
  }
}
