import { Button, Input } from "@stellar/design-system"
import { type FormEvent, useEffect, useRef, useState } from "react"
import { formatAmount, parseAmount } from "../lib/Amount.ts"
import type { Unlocked } from "./Received.ts"
import type { WithdrawStage, Withdrawn } from "./Withdraw.ts"

const STAGE_WORDS: Readonly<Record<WithdrawStage, string>> = {
  prover: "Starting the prover",
  "merge-signing": "Sign the merge in Freighter: it moves what you received into your spendable balance",
  "merge-sending": "Merging: the service pays the network fee",
  "merge-waiting": "Waiting for the service's archive to show the merge",
  proving: "Proving the withdrawal in a background thread of this page",
  signing: "Sign the withdrawal in Freighter",
  sending: "Sending it: the service pays the network fee"
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const short = (hash: string) => `${hash.slice(0, 6)}…${hash.slice(-6)}`

type Run =
  | { readonly phase: "running"; readonly amount: bigint; readonly stage: WithdrawStage; readonly note?: string }
  | { readonly phase: "done"; readonly amount: bigint; readonly outcome: Withdrawn }
  | { readonly phase: "failed"; readonly error: string }

/**
 * "Withdraw": a chosen amount from the confidential balance to the account's public USDC balance, proven here (a
 * `withdraw` proof), signed in Freighter and sent through the service, which pays the fee. Merges first when the
 * spendable balance alone is short (Withdraw.ts says why).
 */
export const WithdrawForm = ({ unlocked, session, onWithdrawn }: {
  readonly unlocked: Unlocked
  readonly session: string
  readonly onWithdrawn: (outcome: Withdrawn) => void
}) => {
  const [text, setText] = useState("")
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [run, setRun] = useState<Run | undefined>(undefined)
  const abort = useRef<AbortController | undefined>(undefined)
  useEffect(() => () => abort.current?.abort(), [])
  const { spendable, receiving } = unlocked.balances
  const available = spendable + receiving
  const parsed = parseAmount(text)
  const running = run?.phase === "running"

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if ("problem" in parsed) return setProblem(parsed.problem)
    if (parsed.amount > available) return setProblem(`You can withdraw at most ${formatAmount(available)} USDC.`)
    setProblem(undefined)
    const amount = parsed.amount
    const controller = new AbortController()
    abort.current = controller
    setRun({ phase: "running", amount, stage: "prover" })
    try {
      const { withdraw } = await import("./Withdraw.ts")
      const outcome = await withdraw({
        opened: unlocked.opened,
        session,
        amount,
        signal: controller.signal,
        onStage: (stage, note) => {
          if (!controller.signal.aborted) setRun({ phase: "running", amount, stage, ...(note === undefined ? {} : { note }) })
        }
      })
      setRun({ phase: "done", amount, outcome })
      setText("")
      onWithdrawn(outcome)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      setRun({ phase: "failed", error: message === "cancelled" ? "Stopped: what was sent stays sent; nothing more was." : message })
    } finally {
      abort.current = undefined
    }
  }

  return (
    <div className="stack withdraw">
      <h3 className="withdraw__title">Withdraw to your USDC balance</h3>
      <p className="muted small">
        Moves an amount from your confidential balance to your account's public USDC balance, where anyone can see it.
        The proof is made in this browser and Freighter signs the transaction; the service pays the network fee.
        {receiving > 0n ? " What you received waits in a receiving balance: when your spendable balance is short, Withdraw first merges it (one more signature)." : ""}
      </p>
      <p className="small" id="withdraw-limit">You can withdraw up to {formatAmount(available)} USDC.</p>
      <form className="form form--inline" onSubmit={(e) => void submit(e)} noValidate>
        <Input
          id="withdraw-amount"
          fieldSize="md"
          label="Amount (USDC)"
          aria-describedby="withdraw-limit"
          inputMode="decimal"
          autoComplete="off"
          value={text}
          onChange={(e) => setText(e.target.value)}
          disabled={running}
          error={problem}
        />
        <Button variant="primary" size="md" type="submit" isLoading={running} disabled={running || available === 0n}>
          {running ? "Withdrawing" : "Withdraw"}
        </Button>
        {running ? <Button variant="tertiary" size="md" type="button" onClick={() => abort.current?.abort()}>Stop</Button> : null}
      </form>
      <div aria-live="polite">
        {run?.phase === "running"
          ? <p className="small">Withdrawing {formatAmount(run.amount)} USDC: {STAGE_WORDS[run.stage]}{run.note === undefined ? "" : ` (${run.note})`}…</p>
          : null}
        {run?.phase === "done"
          ? (
            <p className="small" role="status">
              Withdrew {formatAmount(run.amount)} USDC to your public balance in transaction{" "}
              <code title={run.outcome.hash}>{short(run.outcome.hash)}</code>
              {run.outcome.merged === undefined ? "" : ", after merging what you had received"}. The proof took{" "}
              {seconds(run.outcome.proveMs)}.
            </p>
          )
          : null}
      </div>
      {run?.phase === "failed" ? <p className="action__error" role="alert">{run.error}</p> : null}
    </div>
  )
}
