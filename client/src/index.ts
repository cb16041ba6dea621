// The typed client as a package: the contract (`Api`), its client and `runPayroll`, with the schemas a caller builds
// payloads from and decodes answers with. Nothing here reaches the server's implementation.
export { FetchHttpClient } from "@effect/platform"
// The contract without the payroll runners (which need the Stellar SDK): a narrower entry for browser pages.
export * from "./Contract.ts"
export {
  type BatchOptions,
  type PayrollItem,
  type PayrollProgress,
  type PayrollResult,
  type PayrollSigner,
  type PayrollTransfer,
  planJobs,
  type PlannedJob,
  runPayroll,
  runSignedPayroll,
  type SignedResult,
  type SigningOptions,
  type SigningProgress
} from "./PayrollClient.ts"
// The organization's escrow key (issue 36 §2): derive, seal, register with the auditor registry's operator.
export * as escrow from "./escrow/index.ts"
