import { Button, Notification } from "@stellar/design-system"
import { seconds, useTicking } from "../components/Ticking.ts"
import { type Stage, STAGE_LABELS, STAGES } from "./Stages.ts"
import { type Registration, type StepTime, useRegistration } from "./useRegistration.ts"
import { TxLink } from "../components/TxLink.tsx"



const Steps = ({ times, current, failed }: { readonly times: Partial<Record<Stage, StepTime>>; readonly current?: Stage; readonly failed?: boolean }) => (
  <ol className="steps">
    {STAGES.filter((stage) => stage !== "loading" || times.loading !== undefined).map((stage) => {
      const time = times[stage]
      const now = stage === current && failed !== true
      const when = time === undefined
        ? ""
        : time.end !== undefined
        ? stage === current && failed === true ? `stopped after ${seconds(time.end - time.start)}` : `done in ${seconds(time.end - time.start)}`
        : `${seconds(performance.now() - time.start)} so far`
      const note = time?.note === undefined ? "" : ` · ${time.note}`
      return (
        <li key={stage} className={time === undefined ? "steps__waiting" : undefined} {...(now ? { "aria-current": "step" as const } : {})}>
          <span>{STAGE_LABELS[stage]}</span>
          <span className="steps__when">{when}{note}</span>
        </li>
      )
    })}
  </ol>
)

const Outcome = ({ state }: { readonly state: Extract<Registration, { phase: "done" }> }) =>
  state.outcome.kind === "already-registered"
    ? <p>Your wallet is already registered with the confidential token: this page shows you ready once the payroll has seen it.</p>
    : (
      <p>
        Registered in {seconds(state.endedAt - state.startedAt)}: the transaction <TxLink hash={state.outcome.hash} /> is on the
        ledger. This page shows you ready once the payroll has seen it (a few seconds).
      </p>
    )

/**
 * "Register with the token": the signed-in wallet's registration with the confidential token, made here — keys from
 * a message Freighter signs, the proof in a background thread of this page, the transaction signed by Freighter and
 * sent through the payroll, which pays its fee.
 */
export const RegisterStep = ({ account, session }: { readonly account: string; readonly session: string }) => {
  const { state, start, cancel } = useRegistration(account, session)
  useTicking(state.phase === "running", 200)
  return (
    <section className="section" aria-labelledby="register-title">
      <h2 className="section__title" id="register-title">Register with the token</h2>
      <p className="muted">
        Your keys for the confidential token are derived from a message your wallet signs, and the proof that they are yours
        is made in this browser: neither leaves it. Freighter then signs the registration, and the payroll pays its network fee.
      </p>
      <p className="visually-hidden" role="status">
        {state.phase === "running" ? STAGE_LABELS[state.stage] : state.phase === "done" ? "Registered." : ""}
      </p>
      {state.phase === "idle" || state.phase === "cancelled"
        ? (
          <>
            {state.phase === "cancelled" ? <p>Cancelled: nothing was sent.</p> : null}
            <Button variant="primary" size="md" onClick={start}>Register with the token</Button>
          </>
        )
        : null}
      {state.phase === "running"
        ? (
          <>
            <Steps times={state.times} current={state.stage} />
            <Button variant="secondary" size="md" onClick={cancel}>Cancel</Button>
          </>
        )
        : null}
      {state.phase === "done"
        ? (
          <>
            <Outcome state={state} />
            <Steps times={state.times} />
          </>
        )
        : null}
      {state.phase === "failed"
        ? (
          <>
            <Steps times={state.times} current={state.stage} failed />
            <Notification variant="error" title="Could not register">{state.error}</Notification>
            <Button variant="primary" size="md" onClick={start}>Try again</Button>
          </>
        )
        : null}
    </section>
  )
}
