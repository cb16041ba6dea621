/** Which step a wallet sign-in is at, for the sign-in page to say. */
export type SignInStep = "wallet" | "challenge" | "signing" | "verifying"
