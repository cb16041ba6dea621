/**
 * The steps of registering a wallet with the confidential token in the browser, in order, and what the page says for
 * each. Loaded with the page: nothing here brings the wallet's code.
 */
export const STAGES = [
  "loading",
  "checking",
  "keys",
  "prover",
  "key-check",
  "witness",
  "proving",
  "preparing",
  "signing",
  "sending"
] as const
export type Stage = (typeof STAGES)[number]

export const STAGE_LABELS: Readonly<Record<Stage, string>> = {
  loading: "Loading the wallet's code",
  checking: "Looking for your wallet on the token",
  keys: "Deriving your keys: sign the message in Freighter (twice)",
  prover: "Starting the prover (circuit, proving parameters)",
  "key-check": "Checking the token's verifier expects this circuit",
  witness: "Running the register circuit on your keys",
  proving: "Proving (in a background thread of this page)",
  preparing: "Preparing the registration transaction",
  signing: "Sign the registration in Freighter",
  sending: "Sending it: the service pays the network fee"
}

/** What registering came to. */
export type RegistrationOutcome =
  | { readonly kind: "registered"; readonly hash: string }
  | { readonly kind: "already-registered" }
