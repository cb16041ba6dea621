// What went wrong while registering, in words for a person: each typed error of the confidential client (by its
// `_tag`, Errors.ts), the contract's refusals, the service's answers and the wallet's.
import { SimulationRefusedError } from "@confidential-payroll/client/confidential"
import { ApiError } from "../api/ApiError.ts"

interface Tagged {
  readonly _tag: string
  readonly message: string
  readonly reason?: string
  readonly subject?: string
}

const isTagged = (error: unknown): error is Tagged =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" && "message" in error

const KEYS: Readonly<Record<string, string>> = {
  SignerRefused: "Freighter did not sign the message your keys are derived from (it was refused or closed).",
  SignatureMalformed: "Freighter's answer to the key message is not a 64-byte ed25519 signature.",
  SignatureInvalid: "The key message was not signed by the account you signed in with: is Freighter on that account?",
  NoSignerKey: "Keys are derived from an ed25519 (G…) wallet account.",
  Exhausted: "Your keys could not be derived from this signature."
}

const tagged = (error: Tagged): string => {
  switch (error._tag) {
    case "KeyDerivationFailed":
      return KEYS[error.reason ?? ""] ?? `Your keys could not be derived: ${error.message}.`
    case "SignerNotDeterministic":
      return "Freighter gave two different signatures for the same message, so your keys would not come out the same next time: nothing was registered."
    case "VersionMismatch":
      return `The token's verifier expects another ${error.subject ?? "circuit"} than this console proves with (${error.message}): registering here would fail.`
    case "CrsMissing":
      return `The prover's parameters (the CRS) could not be loaded from this service: ${error.message}.`
    case "CrsRefused":
      return `The prover refused this service's parameters (the CRS): ${error.message}.`
    case "ProofFailed":
      return `The proof could not be made: ${error.message}.`
    case "ProverStopped":
      return `The prover stopped before it finished (the browser may have run out of memory): ${error.message}.`
    case "ChainUnavailable":
      return `The network could not be read through this service: ${error.message}.`
    case "StateMismatch":
      return `Your wallet's state on the token is not what this page expected: ${error.message}.`
    default:
      return error.message
  }
}

export const inWords = (error: unknown, account: string): string => {
  if (error instanceof ApiError) return error.message
  if (isTagged(error)) return tagged(error)
  if (error instanceof SimulationRefusedError) return `The token refused the registration when it was tried out: ${error.message}.`
  if (error instanceof Error && /not found/i.test(error.message) && error.message.includes(account)) {
    return `Your account ${account} does not exist on the network yet: it needs its minimum balance in XLM first (on testnet, friendbot gives it).`
  }
  return error instanceof Error ? error.message : "Something went wrong while registering."
}
