// What went wrong on the Treasury page, in words for a person: the token's and the underlying asset's refusals when a
// call is tried out, the openings kept here, and everything Words.ts already says (keys, prover, chain, service).
import { SimulationRefusedError } from "@confidential-payroll/client/confidential"
import { inWords } from "./Words.ts"

export type TreasuryAction = "register" | "deposit" | "merge" | "open" | "rebuild"

const WHAT: Readonly<Record<TreasuryAction, string>> = {
  register: "registration",
  deposit: "deposit",
  merge: "merge",
  open: "opening of the balance",
  rebuild: "rebuild"
}

/** The contract errors a treasury call meets: mod.rs `ConfidentialTokenError` and the underlying SAC's `ContractError`. */
const REFUSALS: ReadonlyArray<readonly [RegExp, (action: TreasuryAction) => string]> = [
  [/Error\(Contract, #10\)\D/, () => "Your wallet holds less USDC than that: the deposit would fail. Its public balance is shown beside the confidential ones."],
  [/Error\(Contract, #13\)\D/, () => "Your wallet has no USDC trustline, so it holds no USDC to deposit: add USDC in Freighter first."],
  [/Error\(Contract, #3500\)\D/, () => "The wallet is already registered with the token."],
  [/Error\(Contract, #3501\)\D/, () => "The wallet is not registered with the token yet: register it first."],
  [/Error\(Contract, #3502\)\D/, () => "An amount cannot be negative."]
]

export const treasuryWords = (error: unknown, account: string, action: TreasuryAction): string => {
  if (error instanceof SimulationRefusedError) {
    const known = REFUSALS.find(([pattern]) => pattern.test(`${error.error} `))
    return known === undefined ? `The token refused the ${WHAT[action]} when it was tried out: ${error.message}.` : known[1](action)
  }
  if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "SealedStateInvalid") {
    return "The openings kept in this browser do not open with your keys (altered, or kept by another version of the console): rebuild them from the chain."
  }
  return inWords(error, account)
}
