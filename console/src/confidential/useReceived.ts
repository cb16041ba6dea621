import { useCallback, useEffect, useRef, useState } from "react"
import type { OpenStage } from "./BrowserWallet.ts"
import type { Unlocked } from "./Received.ts"
import type { Withdrawn } from "./Withdraw.ts"

export type ReadStage = OpenStage | "decrypting"

export type ReceivedState =
  | { readonly phase: "idle" }
  | { readonly phase: "running"; readonly stage: ReadStage; readonly note?: string }
  | { readonly phase: "shown"; readonly unlocked: Unlocked }
  | { readonly phase: "failed"; readonly error: string }

/**
 * "Show amounts": the signed-in contractor's received amounts, decrypted in this browser when they ask (the wallet's
 * code comes with import() then, never before). The keys stay in this tab's memory while the amounts are shown, for
 * a withdrawal; "Hide amounts", leaving the page or signing out forgets them.
 */
export const useReceived = (account: string, session: string) => {
  const [state, setState] = useState<ReceivedState>({ phase: "idle" })
  const running = useRef<AbortController | undefined>(undefined)
  const shown = useRef<Unlocked | undefined>(undefined)

  useEffect(() => () => {
    running.current?.abort()
    shown.current?.opened.close()
  }, [])

  const show = useCallback(() => {
    running.current?.abort()
    const controller = new AbortController()
    running.current = controller
    setState({ phase: "running", stage: "loading" })
    const update = (next: ReceivedState) => {
      if (running.current === controller) setState(next)
    }
    import("./Received.ts")
      .then(({ unlockReceived }) =>
        unlockReceived({
          account,
          session,
          signal: controller.signal,
          onStage: (stage, note) => update({ phase: "running", stage, ...(note === undefined ? {} : { note }) })
        })
      )
      .then(
        (unlocked) => {
          if (running.current !== controller) return unlocked.opened.close()
          shown.current = unlocked
          update({ phase: "shown", unlocked })
        },
        (error: unknown) => {
          if (!controller.signal.aborted) update({ phase: "failed", error: error instanceof Error ? error.message : String(error) })
        }
      )
  }, [account, session])

  const cancel = useCallback(() => {
    running.current?.abort()
    running.current = undefined
    setState({ phase: "idle" })
  }, [])

  const hide = useCallback(() => {
    shown.current?.opened.close()
    shown.current = undefined
    setState({ phase: "idle" })
  }, [])

  /** After a withdrawal: the balances it left, and its wallet (the openings it moved) to read from next. */
  const withdrawn = useCallback((outcome: Withdrawn) => {
    const current = shown.current
    if (current === undefined) return
    const next: Unlocked = { ...current, balances: outcome.balances, opened: { ...current.opened, wallet: outcome.wallet } }
    shown.current = next
    setState({ phase: "shown", unlocked: next })
  }, [])

  return { state, show, cancel, hide, withdrawn }
}
