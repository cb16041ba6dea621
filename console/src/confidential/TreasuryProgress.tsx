import { Button, Notification } from "@stellar/design-system"
import { seconds, useTicking } from "../components/Ticking.ts"

export { seconds }
import { formatAmount } from "../lib/Amount.ts"
import { JOB_TITLES, stageWords, type TreasuryJob } from "./TreasuryStages.ts"
import type { Job } from "./useTreasury.ts"
import { TxLink } from "../components/TxLink.tsx"



/** Whether stopping it now leaves nothing half done: nothing was signed yet (a signed call is followed to the ledger). */
const stoppable = (job: Extract<Job, { phase: "running" }>) =>
  job.job === "register" ? job.stage !== "sending" : job.job === "open" || job.job === "rebuild" ? true : job.stage === "preparing"

/** What a finished job came to, in one line: a call's transaction on the ledger, a rebuild's time. */
const Done = ({ job }: { readonly job: Extract<Job, { phase: "done" }> }) => {
  const took = seconds(job.endedAt - job.startedAt)
  const landed = job.hash === undefined ? null : <>: the transaction <TxLink hash={job.hash} /> is on the ledger</>
  switch (job.job) {
    case "deposit": return <p className="small" role="status">Deposited {formatAmount(job.amount ?? 0n)} USDC in {took}{landed}. Merge it to pay from it.</p>
    case "merge": return <p className="small" role="status">Merged in {took}{landed}.</p>
    case "rebuild": return <p className="small" role="status">Rebuilt from the chain's events in {took}.</p>
    default: return null
  }
}

/**
 * One job's steps, each with its time: the running one marked, those to come greyed; a failure in the person's words
 * with the step it stopped at. Shown for the jobs `of` the section it sits in.
 */
export const TreasuryProgress = ({ job, of, onCancel }: {
  readonly job: Job | undefined
  readonly of: ReadonlyArray<TreasuryJob>
  readonly onCancel: () => void
}) => {
  useTicking(job?.phase === "running", 200)
  if (job === undefined || !of.includes(job.job)) return null
  if (job.phase === "cancelled") return <p className="small" role="status">{JOB_TITLES[job.job]}: stopped. Nothing more was asked of Freighter or sent.</p>
  if (job.phase === "done") return <Done job={job} />
  const current = job.stage
  const failed = job.phase === "failed"
  return (
    <div className="treasury__progress">
      <p className="visually-hidden" role="status">{job.phase === "running" ? stageWords(job.job, job.stage) : ""}</p>
      <ol className="steps" aria-label={`${JOB_TITLES[job.job]}: steps`}>
        {job.stages.map((stage) => {
          const time = job.times[stage]
          const now = stage === current && !failed
          const when = time === undefined
            ? ""
            : time.end !== undefined
            ? stage === current && failed ? `stopped after ${seconds(time.end - time.start)}` : `done in ${seconds(time.end - time.start)}`
            : `${seconds(performance.now() - time.start)} so far`
          const note = time?.note === undefined ? "" : ` · ${time.note}`
          return (
            <li key={stage} className={time === undefined ? "steps__waiting" : undefined} {...(now ? { "aria-current": "step" as const } : {})}>
              <span>{stageWords(job.job, stage)}</span>
              <span className="steps__when">{when}{note}</span>
            </li>
          )
        })}
      </ol>
      {job.phase === "running" && stoppable(job) ? <Button variant="secondary" size="md" onClick={onCancel}>Cancel</Button> : null}
      {failed ? <Notification variant="error" title={`${JOB_TITLES[job.job]} failed`}>{job.error}</Notification> : null}
    </div>
  )
}
