/**
 * The steps of each thing the Treasury page does with the paying wallet, in order, and what the page says for each.
 * Loaded with the page: nothing here brings the wallet's code.
 */
import { STAGE_LABELS, STAGES, type Stage } from "./Stages.ts"

export type TreasuryJob = "register" | "open" | "rebuild" | "deposit" | "merge"
export type TreasuryStage = Stage | "syncing" | "rebuilding"

/** The steps a job goes through; "rebuild" of a wallet not opened yet opens it with no openings, replaying every event. */
export const stagesOf = (job: TreasuryJob, opened: boolean): ReadonlyArray<TreasuryStage> => {
  switch (job) {
    case "register": return STAGES
    case "open": return ["loading", "keys", "syncing"]
    case "rebuild": return opened ? ["rebuilding"] : ["loading", "keys", "syncing"]
    case "deposit":
    case "merge": return ["preparing", "signing", "sending", "syncing"]
  }
}

export const stageWords = (job: TreasuryJob, stage: TreasuryStage): string => {
  if (job === "register" && stage !== "syncing" && stage !== "rebuilding") return STAGE_LABELS[stage]
  switch (stage) {
    case "loading": return "Loading the wallet's code"
    case "keys": return "Deriving your keys: sign the message in Freighter"
    case "syncing":
      return job === "deposit" || job === "merge"
        ? "Waiting for the archive to record it, then checking the openings against the chain"
        : job === "rebuild"
        ? "Replaying every event of the wallet since its registration, from the service's archive"
        : "Catching up the openings from the archive of the token's events"
    case "rebuilding": return "Rebuilding the openings from every event of the wallet since its registration"
    case "preparing": return `Preparing the ${job} (tried out against the token first)`
    case "signing": return `Sign the ${job} in Freighter`
    case "sending": return "Sending it: the service pays the network fee"
    default: return STAGE_LABELS[stage]
  }
}

export const JOB_TITLES: Readonly<Record<TreasuryJob, string>> = {
  register: "Registering",
  open: "Opening the balance",
  rebuild: "Rebuilding from chain",
  deposit: "Depositing",
  merge: "Merging"
}
