import { HttpApiSchema } from "@effect/platform"
import { DateTime, Schema } from "effect"
import { documented } from "./Documented.ts"
import { OrgId, PayoutId } from "./Ids.ts"
import { StellarAddress } from "./Stellar.ts"

/**
 * The network's largest transaction: `tx_max_size_bytes` of Soroban's bandwidth settings (132,096 bytes on
 * pubnet and testnet), i.e. 176,128 characters of base64. A real confidential transfer carries its UltraHonk proof
 * inside `data`, repeated in the source account's authorization entry: with the 14,592-byte proof the token's
 * circuits produce today (456 fields, no zero knowledge) it is about 31.3 KB (41.8 K characters of base64); with a
 * 16,224-byte zero-knowledge proof (507 fields), about 34.6 KB.
 */
export const MAX_TRANSACTION_BYTES = 132_096
export const MAX_SIGNED_XDR_CHARS = Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4

/** Base64 text (what a batch run stores until its worker decodes it): never NULs or lone surrogates. */
export const SignedXdr = Schema.String.pipe(
  Schema.minLength(1, { message: () => "signedXDR must not be empty" }),
  Schema.maxLength(MAX_SIGNED_XDR_CHARS, {
    message: () => `signedXDR is larger than the network's largest transaction (${MAX_TRANSACTION_BYTES} bytes)`
  }),
  Schema.pattern(/^[A-Za-z0-9+/]+={0,2}$/, { message: () => "signedXDR is not a base64 transaction envelope" })
)

/** A real envelope is about 32 KB (its proof inside); this one, with 16 bytes of `data`, shows the form. */
export const EXAMPLE_XDR = "AAAAAgAAAACabIHQINflivLkSxkp/P4wlUcVKFKHYxPFlcPw8p0jGgAPQkAAAAAAB1vNFgAAAAEAAAAAAAAAAAAAAABrBTvTAAAAAAAAAAEAAA" +
  "AAAAAAGAAAAAAAAAAB8HPCaB1H1ANH5QuY6P0kZrETMu5LWTwY06occUbu29oAAAAVY29uZmlkZW50aWFsX3RyYW5zZmVyAAAAAAAAAwAAABIAAAAAAAAA" +
  "AJpsgdAg1+WK8uRLGSn8/jCVRxUoUodjE8WVw/DynSMaAAAAEgAAAAAAAAAAondcM2VnNrAQ2zB6hBGlpvBlI01qVdqV6Om83u9N4iAAAAANAAAAEJ1L" +
  "ajO5PbRXvzsQ0yVZlHsAAAAAAAAAAAAAAAHynSMaAAAAQO69sOmPoVKU3tgsS40SKJgJwnxhgVWKiTz3wEzutKORVpql8BzQ4fun2nbhGPXKl+0P6LLT" +
  "Abb3YORaykzDggc="

/** What a transfer's answers show: the fee-bump's hash (the one on the ledger) and the inner transaction's. */
const EXAMPLE_HASH = "4142bd200f05c01eab15b78a49f33d71aeb7d2166fedc23c2a903fbb5628ed93"
const EXAMPLE_INNER_HASH = "c3dec3d2e0ae2b00ddf5d79d9f1531225b78a8c62aeaed88f46a1244e68239f9"

const TransferRequestFields = {
  signedXDR: Schema.propertySignature(SignedXdr).annotations({
    description: "The fully signed inner transaction, base64 XDR of a v1 TransactionEnvelope (not a fee-bump): one " +
      "invokeHostFunction operation calling `confidential_transfer(from, to, data)` on an allowed contract, `from` being " +
      "the signed-in wallet, with time bounds ending at most 10 minutes ahead"
  }),
  payoutId: Schema.optional(PayoutId).annotations({
    description: "The payout this transfer pays: the organization's, `ready` in a `ready` or `started` batch (or " +
      "`failed`, to retry, also once its batch is `completed`), with the call's `to` its contractor's address"
  })
}

export class TransferRequest extends Schema.Class<TransferRequest>("TransferRequest")(
  TransferRequestFields,
  documented(TransferRequestFields, {
    description: "A signed confidential transfer for the service to sponsor and submit",
    examples: [{ signedXDR: EXAMPLE_XDR, payoutId: PayoutId.make("5b0e7a43-3f2c-4d8e-9a61-2c7d9e4f1b38") }]
  })
) {}

const RegistrationRequestFields = {
  signedXDR: Schema.propertySignature(SignedXdr).annotations({
    description: "The fully signed inner transaction, base64 XDR of a v1 TransactionEnvelope (not a fee-bump): one " +
      "invokeHostFunction operation calling `register(account, auditor_id, data)` on an allowed contract, `account` " +
      "being the signed-in wallet, with time bounds ending at most 10 minutes ahead"
  })
}

export class RegistrationRequest extends Schema.Class<RegistrationRequest>("RegistrationRequest")(
  RegistrationRequestFields,
  documented(RegistrationRequestFields, {
    description: "A contractor's signed registration with the confidential token, for the service to sponsor and submit",
    examples: [{ signedXDR: EXAMPLE_XDR }]
  })
) {}

/** A signed `merge(account)` of the confidential token: what POST /token/calls takes, without a proof to make it long. */
const EXAMPLE_MERGE_XDR = "AAAAAgAAAABwTVLNnXvg+YMyA+QCIeP+yfGor4rFvSS+wXaNTKwAWAAAvFMAB1k3pNSAAgAAAAEAAAAAAAAAAAAAAABrBTvTAAAAAAAAAAEAAA" +
  "AAAAAAGAAAAAAAAAAB8HPCaB1H1ANH5QuY6P0kZrETMu5LWTwY06occUbu29oAAAAFbWVyZ2UAAAAAAAABAAAAEgAAAAAAAAAAcE1SzZ174PmDMgPkAiHj" +
  "/snxqK+Kxb0kvsF2jUysAFgAAAABAAAAAAAAAAAAAAAB8HPCaB1H1ANH5QuY6P0kZrETMu5LWTwY06occUbu29oAAAAFbWVyZ2UAAAAAAAABAAAAEgAA" +
  "AAAAAAAAcE1SzZ174PmDMgPkAiHj/snxqK+Kxb0kvsF2jUysAFgAAAAAAAAAAAAAAAFMrABYAAAAQMhSPcMsUi3MOfif1qY6cSJrinG8xvQsjie9hfgx" +
  "J3N13dp4jAFnfpsCAwwSGG3QZcSzFUyzuKo7XEAQAhusigw="

const TokenCallRequestFields = {
  signedXDR: Schema.propertySignature(SignedXdr).annotations({
    description: "The fully signed inner transaction, base64 XDR of a v1 TransactionEnvelope (not a fee-bump): one " +
      "invokeHostFunction operation calling, on an allowed contract, `register(account, auditor_id, data)`, " +
      "`deposit(from, to, amount)`, `merge(account)` or `withdraw(from, to, amount, data)`, every account argument " +
      "being the signed-in wallet (its source), with time bounds ending at most 10 minutes ahead"
  })
}

export class TokenCallRequest extends Schema.Class<TokenCallRequest>("TokenCallRequest")(
  TokenCallRequestFields,
  documented(TokenCallRequestFields, {
    description: "A wallet's signed call on its own confidential account, for the service to sponsor and submit",
    examples: [{ signedXDR: EXAMPLE_MERGE_XDR }]
  })
) {}

const TransferResultFields = {
  hash: Schema.propertySignature(Schema.String).annotations({
    description: "The hash of the fee-bump transaction, the one on the ledger (hex)"
  }),
  status: Schema.propertySignature(Schema.Literal("SUCCESS")).annotations({
    description: "Always `SUCCESS`: the transaction is on the ledger"
  })
}

export class TransferResult extends Schema.Class<TransferResult>("TransferResult")(
  TransferResultFields,
  documented(TransferResultFields, {
    description: "The transaction is on the ledger",
    examples: [{ hash: EXAMPLE_HASH, status: "SUCCESS" }]
  })
) {}

/**
 * The longest `data` a prepared transfer carries: a real `TransferData` (about 15.4 KB with a 14,592-byte proof,
 * 17.1 KB with a 16,224-byte zero-knowledge one) fits several times over.
 */
export const MAX_TRANSFER_DATA_BYTES = 64 * 1024
/** The longest validity a prepared transfer may ask for: the sponsor accepts a `maxTime` at most 10 minutes ahead. */
export const MAX_PREPARED_VALIDITY_SECONDS = 600

const EXAMPLE_DATA = "nUtqM7k9tFe/OxDTJVmUew=="

const PrepareTransferFields = {
  to: Schema.propertySignature(StellarAddress).annotations({
    description: "The recipient: a contractor's account (G...) or contract (C...), registered with the confidential token"
  }),
  data: Schema.propertySignature(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "data must not be empty" }),
      Schema.maxLength(Math.ceil(MAX_TRANSFER_DATA_BYTES / 3) * 4, {
        message: () => `data is longer than ${MAX_TRANSFER_DATA_BYTES} bytes`
      }),
      Schema.pattern(/^[A-Za-z0-9+/]+={0,2}$/, { message: () => "data must be base64" }),
      Schema.filter((text) => text.length % 4 === 0, { message: () => "data must be base64 (padded)" })
    )
  ).annotations({
    description: "The call's `data: Bytes`, base64: the `TransferData` the employer's client built (the encrypted " +
      "amounts and the UltraHonk proof, as the OpenZeppelin confidential token's version on the ledger decodes it). " +
      "The service never reads it: any version's layout is passed on as it is, and a layout the token does not take " +
      "is its refusal (3507 `InvalidData`)"
  }),
  payoutId: Schema.optional(PayoutId).annotations({
    description: "The payout the transfer will pay, as POST /transfer will take it: checked now (404 unknown; 409 " +
      "while its batch is paused, canceled or short of approvals), so that nothing is built for a payout that cannot be paid"
  }),
  validFor: Schema.optional(Schema.Int.pipe(Schema.between(30, MAX_PREPARED_VALIDITY_SECONDS))).annotations({
    description: "How long the prepared transaction stays valid, in seconds (30 to 600; default 300): its `maxTime`. " +
      "Sign and submit it within that time"
  })
}

export class PrepareTransferRequest extends Schema.Class<PrepareTransferRequest>("PrepareTransferRequest")(
  PrepareTransferFields,
  documented(PrepareTransferFields, {
    description: "A confidential transfer for the service to build, simulate and hand back for signing",
    examples: [{ to: StellarAddress.make("GB73L2G3T4NQGJ4LFJ7BATS6UYK23V4LH2BK7TB7OSJR3SWDDAIGYUOM"), data: EXAMPLE_DATA, validFor: 300 }]
  })
) {}

const PreparedTransferFields = {
  xdr: Schema.propertySignature(Schema.String).annotations({
    description: "The unsigned inner transaction, base64 XDR of a v1 TransactionEnvelope: `confidential_transfer(from " +
      "= the caller's wallet, to, data)` with its footprint, resource fee and the source's authorization entry from " +
      "simulation, the next sequence number and time bounds the sponsor accepts. Sign it (e.g. `TransactionBuilder." +
      "fromXDR(xdr, networkPassphrase)`, `.sign(keypair)`, `.toXDR()`) and post it to POST /transfer as `signedXDR`"
  }),
  hash: Schema.propertySignature(Schema.String).annotations({
    description: "The inner transaction's hash (hex): what the wallet signs, and the inner hash GET /transfers/{hash} knows it by"
  }),
  networkPassphrase: Schema.propertySignature(Schema.String).annotations({ description: "The network the transaction is for" }),
  source: Schema.propertySignature(Schema.String).annotations({ description: "The source account that must sign it (G...): the caller's wallet" }),
  sequence: Schema.propertySignature(Schema.String).annotations({
    description: "Its sequence number (decimal): the account's current one plus one. Another transaction of the account " +
      "landing first makes it fail `txBadSeq`: prepare again"
  }),
  fee: Schema.propertySignature(Schema.String).annotations({
    description: "Its inner fee in stroops (inclusion plus resource fee), within the sponsor's cap; the sponsor pays the fee-bump"
  }),
  validUntil: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "Its `maxTime`: submit it before then" })
}

export class PreparedTransfer extends Schema.Class<PreparedTransfer>("PreparedTransfer")(
  PreparedTransferFields,
  documented(PreparedTransferFields, {
    description: "An unsigned confidential transfer, ready to sign and submit",
    examples: [{
      xdr: EXAMPLE_XDR,
      hash: EXAMPLE_INNER_HASH,
      networkPassphrase: "Test SDF Network ; September 2015",
      source: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM",
      sequence: "2068420360437761",
      fee: "48211",
      validUntil: DateTime.unsafeMake("2026-11-24T09:35:00Z")
    }]
  })
) {}

/** The host refused the simulated call: it would fail on the ledger too. */
export class SimulationRefused extends Schema.TaggedError<SimulationRefused>()(
  "SimulationRefused",
  {
    error: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" }),
    hostError: Schema.propertySignature(Schema.String).annotations({
      description: "The host's reason as Stellar RPC's simulation gave it (e.g. `HostError: Error(Contract, #3501)`)"
    }),
    contractError: Schema.optional(Schema.Int).annotations({
      description: "The contract's error code when a contract refused, e.g. 3501 (`AccountNotRegistered`); any code, " +
        "named or not"
    }),
    contractErrorName: Schema.optional(Schema.String).annotations({
      description: "The code's name when it is one of the OpenZeppelin confidential token's: `AuditorError` " +
        "3300–3303 (its auditor registry), `VerifierError` 3400–3403 (its proof verifier), `ConfidentialTokenError` " +
        "3500–3514, `ComplianceError` 3600–3606 (its compliance extension), e.g. `AccountNotRegistered` (3501) or " +
        "`AccountFrozen` (3601). Absent for any other code"
    })
  },
  HttpApiSchema.annotations({
    status: 422,
    description: "Not prepared: the host refused the simulated call (`SimulationRefused`: the recipient or the " +
      "sender not registered or frozen, invalid data, a failed proof), or the sponsor will not pay for it " +
      "(`SponsorRefused`, `rule: fee` when its fee is over the cap)"
  })
) {}

export const SubmissionState = Schema.Literal("pending", "submitted", "success", "failed", "rejected", "expired")
export type SubmissionState = typeof SubmissionState.Type

/**
 * A transfer's outcome in Stellar RPC's words (`PENDING`, `SUCCESS`, `FAILED`), plus the service's own: `REJECTED`
 * (the network refused it at submission) and `EXPIRED` (the ledger closed past its maxTime without it).
 */
export const TransferOutcome = Schema.Literal("PENDING", "SUCCESS", "FAILED", "REJECTED", "EXPIRED")
export type TransferOutcome = typeof TransferOutcome.Type

export const outcomeOf = (state: SubmissionState): TransferOutcome => {
  switch (state) {
    case "pending":
    case "submitted":
      return "PENDING"
    case "success":
      return "SUCCESS"
    case "failed":
      return "FAILED"
    case "rejected":
      return "REJECTED"
    case "expired":
      return "EXPIRED"
  }
}

const TransferStatusFields = {
  hash: Schema.propertySignature(Schema.String).annotations({ description: "The fee-bump transaction's hash (hex)" }),
  innerHash: Schema.propertySignature(Schema.String).annotations({ description: "The signed inner transaction's hash (hex)" }),
  source: Schema.propertySignature(Schema.String).annotations({ description: "The inner transaction's source account (G...)" }),
  status: Schema.propertySignature(TransferOutcome).annotations({
    description: "`PENDING` until final; then `SUCCESS` or `FAILED` (as Stellar RPC says them), `REJECTED` (refused " +
      "by the network at submission) or `EXPIRED` (a ledger closed past the transaction's maxTime without it)"
  }),
  resultCode: Schema.optional(Schema.String).annotations({
    description: "Stellar's result code of a rejected or failed transaction (such as `txBadSeq`)"
  }),
  ledger: Schema.optional(Schema.Int).annotations({ description: "The ledger the transaction landed in" }),
  payoutId: Schema.optional(Schema.String).annotations({ description: "The payout the transfer pays, when it was sent for one" }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When the service recorded the submission" }),
  updatedAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When its state last changed" })
}

export class TransferStatus extends Schema.Class<TransferStatus>("TransferStatus")(
  TransferStatusFields,
  documented(TransferStatusFields, {
    description: "A submitted transfer and where it stands",
    examples: [{
      hash: EXAMPLE_HASH,
      innerHash: EXAMPLE_INNER_HASH,
      source: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM",
      status: "SUCCESS",
      ledger: 1254872,
      payoutId: "5b0e7a43-3f2c-4d8e-9a61-2c7d9e4f1b38",
      createdAt: DateTime.unsafeMake("2026-11-24T09:30:02Z"),
      updatedAt: DateTime.unsafeMake("2026-11-24T09:30:08Z")
    }]
  })
) {}

/** The sponsor's policy refused the transaction; `rule` names which. */
export class SponsorRefused extends Schema.TaggedError<SponsorRefused>()(
  "SponsorRefused",
  {
    error: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" }),
    rule: Schema.propertySignature(Schema.String).annotations({
      description: "The rule that refused it: `operation`, `function`, `contract`, `arguments`, `auth`, `fee`, " +
        "`timebounds`, `quota`, or `payout` (the payout named does not fit the transfer)"
    })
  },
  HttpApiSchema.annotations({
    status: 422,
    description: "Refused or failed: the sponsor will not pay for the transaction (`SponsorRefused`, `rule` says why), or the " +
      "network rejected it or applied it as FAILED (`TransferRejected`)"
  })
) {}

/** The network rejected the transaction, or applied it as FAILED. */
export class TransferRejected extends Schema.TaggedError<TransferRejected>()(
  "TransferRejected",
  {
    error: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" }),
    hash: Schema.propertySignature(Schema.String).annotations({ description: "The fee-bump transaction's hash (hex)" }),
    resultCode: Schema.propertySignature(Schema.String).annotations({
      description: "Stellar's result code (such as `txBadSeq`), or `unknown` when it could not be decoded"
    })
  },
  HttpApiSchema.annotations({
    status: 422,
    description: "Refused or failed: the sponsor will not pay for the transaction (`SponsorRefused`, `rule` says why), or the " +
      "network rejected it or applied it as FAILED (`TransferRejected`)"
  })
) {}

/** Not final before the transaction's deadline; the reconciler keeps following it. */
export class TransferTimeout extends Schema.TaggedError<TransferTimeout>()(
  "TransferTimeout",
  {
    error: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" }),
    hash: Schema.propertySignature(Schema.String).annotations({
      description: "The fee-bump transaction's hash (hex): GET /transfers/{hash} tells the outcome"
    })
  },
  HttpApiSchema.annotations({
    status: 504,
    description: "Not final by the transaction's deadline (its maxTime plus a margin): it may still land, and the " +
      "service keeps following it; or it expired (a ledger closed past its maxTime without it)"
  })
) {}

/** A durable submission (`submissions` row) as the transfer services read it. */
export const Submission = Schema.Struct({
  innerHash: Schema.String,
  outerHash: Schema.String,
  envelope: Schema.String,
  source: Schema.String,
  sessionSub: Schema.String,
  orgId: Schema.NullOr(OrgId),
  payoutId: Schema.NullOr(PayoutId),
  state: SubmissionState,
  resultCode: Schema.NullOr(Schema.String),
  ledger: Schema.NullOr(Schema.Int),
  maxTime: Schema.ValidDateFromSelf,
  leaseUntil: Schema.ValidDateFromSelf,
  createdAt: Schema.ValidDateFromSelf,
  updatedAt: Schema.ValidDateFromSelf
})

/** What a submission's outcome is told from (`answerFor`): a batch run's poll reads only these, never the envelope. */
export const SubmissionOutcome = Submission.pipe(Schema.pick("innerHash", "outerHash", "state", "resultCode"))
export type SubmissionOutcome = typeof SubmissionOutcome.Type
export type Submission = typeof Submission.Type
