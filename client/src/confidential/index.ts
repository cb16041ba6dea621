// The confidential-token client as a package entry (`@confidential-payroll/client/confidential`): what a company or a
// contractor needs to hold confidential keys, prove and pay, in Node and in a browser. Browser-safe: nothing this
// file imports, directly or not, imports node:* (proving/CrsFiles.ts and state/FileStore.ts are Node's, in node.ts).
// docs/confidential-client.md describes the pieces; the low-level crypto and the witness builders stay internal.

// The wallet: one account's keys, openings and proofs.
export { type Balances, type ConfidentialWallet, openWallet, type WalletOptions } from "./ConfidentialWallet.ts"

// Keys (OZ SDK.md §5): from a wallet's signature (SEP-53 signMessage), a raw 32-byte root, or an imported sk.
export {
  KEY_LABEL,
  keysFromRawRoot,
  keysFromSigner,
  keysFromSk,
  type MessageSigner,
  rootMessage,
  type SignedMessage,
  type SignerRootOptions
} from "./crypto/KeyDerivation.ts"
export { ConfidentialKeys } from "./crypto/Keys.ts"

// The chain: where the token lives, reads by simulation, and the calls a wallet signs.
export { CIRCUIT_TYPE, isStandalone, type TokenDeployment } from "./chain/Deployment.ts"
export { ChainReader, type OnChainAccount, SimulationRefusedError } from "./chain/ChainReader.ts"
export { callArguments, encodeData, prepareCall, type TokenCall } from "./chain/Calls.ts"
// The Stellar SDK the calls above take and give (an rpc.Server, a Transaction a Keypair signs), re-exported so a
// caller uses the very copy the client does.
export { Keypair, rpc, type Transaction } from "@stellar/stellar-sdk"

// Proving: the pinned circuits, the prover (bb.js), the CRS and its checks, the deployment's verification keys.
export { makeKeyCheck, type OperationCircuit, type ProvingSetup } from "./Circuits.ts"
export {
  CIRCUITS,
  type CircuitArtifact,
  type CircuitName,
  type LoadedCircuit,
  loadCircuit,
  type Manifest,
  type ManifestCircuit
} from "./proving/Artifacts.ts"
export { type BbModule, makeProver, PROOF_BYTES, type Proof, type Prover, type ProverOptions } from "./proving/Prover.ts"
export {
  type CheckedCrs,
  checkCrs,
  CRS_DIR_VARIABLE,
  type CrsBytes,
  fetchCrs,
  IGNITION_G1_SHA256,
  IGNITION_G2_SHA256,
  IGNITION_POINTS
} from "./proving/Crs.ts"
export {
  decodeBinaryVk,
  decodeFieldsVk,
  toBinaryVk,
  toFieldsVk,
  type VerificationKey,
  vkDifference,
  VK_BINARY_BYTES
} from "./proving/VerificationKey.ts"

// Wallet state: the openings (redacted when printed), sealed at rest in a store the caller chooses.
export { type Cursor, Opening, type Pending, type WalletState } from "./state/Opening.ts"
export { MemoryStore, type WalletStore, walletStateKey } from "./state/Store.ts"
export { globalIndexedDb, type IdbFactory, IndexedDbStore } from "./state/IndexedDbStore.ts"
export { makeSealer, type Sealer, WALLET_STATE_DOMAIN } from "./state/SealedState.ts"

// The service's archive, replayed: an account's events (all, or since a recovery checkpoint) for `wallet.sync`.
export {
  type ArchivedEvent,
  type ArchivedHistory,
  decodeArchiveEvent,
  fetchAccountEvents,
  fetchRecoveryWindow
} from "./state/ArchiveEvents.ts"
export { orderEvents, type ReplayEvent, type TransferCiphertext } from "./state/Replay.ts"

// Every typed failure, each a `Data.TaggedError` (an Error with a `_tag`).
export {
  CrsMissing,
  DecryptionFailed,
  InvalidEncoding,
  InvalidWitness,
  KeyDerivationFailed,
  type KeyDerivationProblem,
  ProofFailed,
  SignerNotDeterministic,
  StateMismatch,
  VersionMismatch,
  type WitnessProblem
} from "./Errors.ts"
export { ChainUnavailable } from "./chain/ChainErrors.ts"
export { CrsRefused } from "./proving/ProvingErrors.ts"
export {
  ArchiveEventInvalid,
  type Balance,
  SealedStateInvalid,
  type SealedStateProblem,
  UnspendableBlinding
} from "./state/StateErrors.ts"

// The prover in a Web Worker, for pages (the worker's bundle: npm run build:prover; nothing here loads bb.js).
export {
  type ProgressEvent,
  type ProverClient,
  type ProverClientOptions,
  type ProverError,
  ProverStopped,
  startProver,
  type WorkerLike
} from "./browser/ProverClient.ts"
export type { ProverSetup, Source } from "./browser/ProverProtocol.ts"

// Paying what the wallet proved: the service's just-in-time runner (prepare, sign, submit, follow to the ledger, never
// twice), browser-safe, so that a page pays its proven transfers the way the Node client does.
export {
  type PayrollSigner,
  type PayrollTransfer,
  runSignedPayroll,
  type SignedResult,
  type SigningOptions
} from "../PayrollJustInTime.ts"

// A sender's receipt of a transfer (proveTransferWithReceipt), checked against the ciphertext the chain recorded.
export { checkReceipt, type OnChainCiphertext, type ReceiptCheck, type TransferReceipt } from "./crypto/Receipt.ts"

// The deployment the token names in its instance storage (its asset and registries), and the public balance a deposit draws on.
export { type ChainDeployment, readDeployment } from "./chain/ReadDeployment.ts"
export { type DeploymentProblem, TokenDeploymentInvalid } from "../../../src/Domain/TokenInstance.ts"
export { type PublicBalance, readPublicBalance } from "./chain/PublicBalance.ts"
// The auditor's report (issue 36 §3): the escrow key's view of the paying wallets' operations.
export { auditReport, type AuditInput, type AuditPayout } from "./audit/AuditReport.ts"
export { type AuditEvent, decodeAuditEvent, fromRpcEvent, type ProvenEvent, type RawTokenEvent } from "./audit/AuditEvent.ts"
export { decryptSenderAuditor, type SenderAuditorOpening } from "./audit/SenderAuditor.ts"
export { type OpenedReceipt } from "./audit/ReceiptCompare.ts"
export type { AuditReport, AuditRow, Continuity, ContractorTotal, MonthTotal, OperationKind, PayoutMatch, ReceiptComparison, Sum as AuditSum, WalletSummary } from "./audit/ReportModel.ts"
export { CONTRACTOR_COLUMNS, formatUnits, MONTH_COLUMNS, OPERATION_COLUMNS, type ReportCsv, reportCsv } from "./audit/ReportCsv.ts"
export { type AuditReportJson, reportJson } from "./audit/ReportJson.ts"
// Selective disclosure (OZ's SELECTIVE_DISCLOSURE.md): the circuits' witnesses, the seal to the recipient, the wallet's r_e.
export { discloseReceivedTotalWitness, discloseSentTotalWitness } from "./disclosure/Aggregate.ts"
export { discloseAuditorWitness } from "./disclosure/Auditor.ts"
export { AGGREGATE_SIZES, DISCLOSURE_CIRCUITS, type DisclosureCircuitName, type DisclosureManifest } from "./disclosure/DisclosureCircuits.ts"
export { DISCLOSURE, DISCLOSURE_BIND } from "./disclosure/Domain.ts"
export { discloseRecipientWitness } from "./disclosure/Recipient.ts"
export { type DisclosureRequest, openSeal, seal, type Sealed } from "./disclosure/Seal.ts"
export { discloseSenderWitness } from "./disclosure/Sender.ts"
export { deriveEphemeralScalar, EPHEMERAL_KEY } from "./crypto/EphemeralScalar.ts"
// One payout's verdict against the chain (reconciliation, in the console and the CLI).
export { payoutVerdict, type Verdict, type VerdictInput } from "./state/ReconcileVerdict.ts"
// Selective disclosure: the exchange (requests, bundles, recipient keys), the holder's proofs and the verifier of §5.3.
export * from "./disclosure/index.ts"
