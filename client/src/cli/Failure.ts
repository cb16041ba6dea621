import { ValidationError } from "@effect/cli"
import { Data } from "effect"
import { SimulationRefusedError } from "../confidential/chain/ChainReader.ts"

/** The exit codes a script branches on (docs/cli.md). */
export const EXIT = { ok: 0, usage: 1, refused: 2, unavailable: 3, chain: 4, partial: 5 } as const
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** A failure the CLI words itself: one line naming what to do, and its exit code. */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly code: ExitCode; readonly message: string }> {}

export const usage = (message: string) => new CliFailure({ code: EXIT.usage, message })

/** The service answered 4xx: the request was understood and refused. */
const REFUSED = new Set([
  "InvalidRequest", "Unauthorized", "Forbidden", "NotFound", "Conflict", "PayloadTooLarge", "UnsupportedMediaType",
  "IdempotencyKeyReused", "SponsorRefused", "SimulationRefused", "TransferRejected", "RateLimited", "RecipientRefused",
  "NotImplemented", "HttpApiDecodeError", "ChallengeRefused", "WithdrawTooLarge"
])
/** The service or the network did not answer usefully: trying again later may work. */
const UNAVAILABLE = new Set([
  "ServiceUnavailable", "UpstreamUnavailable", "InternalError", "RequestTimeout", "TransferTimeout", "RequestError",
  "ResponseError", "ChainUnavailable", "TimeoutException"
])
/** The chain or the proofs: a proof failed, the openings disagree with the chain, the token refused a call. */
const CHAIN = new Set([
  "ProofFailed", "StateMismatch", "VersionMismatch", "CrsMissing", "CrsRefused", "InvalidWitness", "KeyDerivationFailed",
  "SignerNotDeterministic", "DecryptionFailed", "SimulationRefusedError", "UnspendableBlinding", "SealedStateInvalid",
  "ArchiveEventInvalid", "SealedOpenFailed"
])

const tagOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return ""
  if ("_tag" in error && typeof error._tag === "string") return error._tag
  return error instanceof Error ? error.name : ""
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const e = error as { error?: unknown; message?: unknown; reason?: unknown; hostError?: unknown }
    if (typeof e.error === "string" && e.error !== "") return typeof e.hostError === "string" ? `${e.error}: ${e.hostError}` : e.error
    if (typeof e.message === "string" && e.message !== "") return e.message
  }
  return String(error)
}

const advice: Record<string, string> = {
  Unauthorized: "sign in again: payroll login --secret-file <file>",
  Forbidden: "your role does not allow it: ask an owner",
  RequestError: "check --service / PAYROLL_SERVICE_URL and that the service is running",
  StateMismatch: "run payroll treasury rebuild, then try again",
  ServiceUnavailable: "try again in a moment",
  UpstreamUnavailable: "Stellar RPC did not answer: try again in a moment"
}

/** Any failure as its exit code and one line. */
export const classify = (error: unknown): { readonly code: ExitCode; readonly message: string } => {
  if (error instanceof CliFailure) return { code: error.code, message: oneLine(error.message) }
  if (ValidationError.isValidationError(error)) return { code: EXIT.usage, message: "" }
  const tag = error instanceof SimulationRefusedError ? "SimulationRefusedError" : tagOf(error)
  const code = REFUSED.has(tag) ? EXIT.refused : UNAVAILABLE.has(tag) ? EXIT.unavailable : CHAIN.has(tag) ? EXIT.chain : EXIT.usage
  const hint = advice[tag]
  return { code, message: oneLine(`${tag === "" ? "" : `${tag}: `}${messageOf(error)}${hint === undefined ? "" : ` — ${hint}`}`) }
}
