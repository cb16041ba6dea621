// The payroll's flows for a process that holds the account's key (`@confidential-payroll/client/payroll`), as the
// console runs them in a browser with Freighter: sign-in, the chain through the service's gateway, the confidential
// wallet caught up from the archive, sealing keys, paying a batch, reconciling it, withdrawing. The `payroll`
// command-line client (client/src/cli/) is built on these.
export { keypairSigner } from "./KeypairSigner.ts"
export { ChallengeRefused, signInWithKeypair } from "./SignIn.ts"
export { type ServiceChain, serviceChain } from "./ServiceChain.ts"
export { type OwnCall, sendTokenCall } from "./TokenCall.ts"
export { noProver, openServiceWallet, type ServiceWallet, type ServiceWalletOptions } from "./ServiceWallet.ts"
export { sealingReaders } from "./Readers.ts"
export { allMembers, envelopePayload, type SealingMember, unlockSealing } from "./SealingMember.ts"
export { payablePayouts, payBatch, type PayBatchOptions, type PayItem, type PayoutStep } from "./PayBatch.ts"
export { reconcileBatch, type ReconcileItem, type Verdict } from "./Reconcile.ts"
export { withdrawToPublic, WithdrawTooLarge } from "./Withdraw.ts"
export { receivedByHash } from "./Received.ts"
