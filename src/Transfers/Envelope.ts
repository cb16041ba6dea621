import { Address, Keypair, StrKey, Transaction, xdr } from "@stellar/stellar-sdk"
import { Either } from "effect"
import { createPublicKey, verify as cryptoVerify } from "node:crypto"
import { Forbidden, InvalidRequest } from "../Domain/Errors.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import { CONFIDENTIAL_TRANSFER as TRANSFER_FUNCTION } from "../Stellar/ConfidentialToken.ts"

export const MAX_VALIDITY_SECONDS = 600

const invalid = (error: string) => Either.left(new InvalidRequest({ error }))
const refuse = (rule: string, error: string) => Either.left(new SponsorRefused({ rule, error }))

/**
 * A base64 v1 transaction envelope for this network, with at most (and at least) one operation. Every SDK call
 * that reads it runs here, under one catch: the SDK throws on envelopes the XDR allows but it cannot represent
 * (a `revokeSponsorship` of a contract-data, contract-code, TTL or config-setting key; an asset code of NULs;
 * nesting too deep to recurse into), and such an envelope is a bad request, never a defect.
 */
export const decodeInner = (signedXDR: string, networkPassphrase: string): Either.Either<Transaction, InvalidRequest> => {
  let envelope: xdr.TransactionEnvelope
  try {
    envelope = xdr.TransactionEnvelope.fromXdr(signedXDR, "base64")
  } catch {
    return invalid("signedXDR is not a base64 transaction envelope")
  }
  if (envelope.type === "envelopeTypeTxFeeBump") return invalid("fee-bump envelopes are not accepted: send the inner transaction")
  if (envelope.type !== "envelopeTypeTx") return invalid("signedXDR must be a v1 transaction envelope")
  let tx: Transaction
  try {
    tx = new Transaction(envelope, networkPassphrase)
    tx.hash()
  } catch {
    return invalid("signedXDR holds a transaction the service cannot read")
  }
  if (tx.operations.length !== 1) return invalid("the transaction must have exactly one operation")
  return Either.right(tx)
}

/** Ed25519 through node:crypto: an order of magnitude faster than the SDK's JavaScript implementation. */
const verifyEd25519 = (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => {
  try {
    return cryptoVerify(
      null,
      data,
      createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" }),
      signature
    )
  } catch {
    return false
  }
}

/** Keys whose valid signature over this network's hash the envelope carries. */
export const validSigners = (tx: Transaction, candidates: ReadonlyArray<string>): ReadonlyArray<string> => {
  const hash = tx.hash()
  return candidates.filter(StrKey.isValidEd25519PublicKey).filter((key) => {
    const raw = StrKey.decodeEd25519PublicKey(key)
    const hint = Buffer.from(Keypair.fromPublicKey(key).signatureHint())
    return tx.signatures.some((sig) =>
      Buffer.from(sig.hint.toBytes()).equals(hint) && verifyEd25519(raw, hash, sig.signature.toBytes())
    )
  })
}

/**
 * The transaction and every operation must be sourced by the signed-in account (for a batch run: by one of the
 * organization's wallet members).
 */
export const checkSources = (tx: Transaction, allowed: ReadonlySet<string>): Either.Either<void, Forbidden> => {
  const who = allowed.size === 1 ? "the signed-in account" : "an account of the organization"
  if (!allowed.has(tx.source)) {
    return Either.left(new Forbidden({ error: `the transaction's source account must be ${who}` }))
  }
  if (tx.operations.some((op) => op.source !== undefined && op.source !== tx.source)) {
    return Either.left(new Forbidden({ error: `every operation's source account must be ${who}` }))
  }
  return Either.right(undefined)
}

export interface Policy {
  readonly allowedContracts: ReadonlySet<string>
  readonly maxInnerFee: number
}

export interface TransferCall {
  readonly contract: string
  readonly from: string
  readonly to: string
  readonly maxTime: number
}

type HostOperation = Extract<Transaction["operations"][number], { type: "invokeHostFunction" }>

/** An account (G...) or contract (C...) address; the other address kinds cannot hold a confidential balance. */
const plainAddress = (value: xdr.ScVal | undefined): string | undefined =>
  value?.type === "scvAddress" &&
    (value.address.type === "scAddressTypeAccount" || value.address.type === "scAddressTypeContract")
    ? Address.fromScAddress(value.address).toString()
    : undefined

/**
 * `confidential_transfer(from: Address, to: Address, data: Bytes)` as the OpenZeppelin confidential token declares it
 * (packages/tokens/src/confidential/mod.rs), with `from` the transaction's source: the employer pays from its own
 * confidential balance, never anyone else's.
 */
const checkArguments = (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const [from, to, data] = [plainAddress(args[0]), plainAddress(args[1]), args[2]]
  if (args.length !== 3 || from === undefined || to === undefined || data?.type !== "scvBytes") {
    return refuse("arguments", `${TRANSFER_FUNCTION} takes exactly (from: Address, to: Address, data: Bytes)`)
  }
  if (from !== source) return refuse("arguments", "from must be the transaction's source account")
  return Either.right({ from, to })
}

/**
 * Authorization entries may only authorize `from`'s own call of this very `confidential_transfer`, with nothing
 * beneath it: the sponsor never pays for anyone else's authorization.
 */
const checkAuth = (op: HostOperation, call: xdr.InvokeContractArgs, from: string) => {
  for (const entry of op.auth ?? []) {
    const credentials = entry.credentials
    const who = credentials.type === "sorobanCredentialsSourceAccount"
      ? from
      : credentials.type === "sorobanCredentialsAddress"
      ? Address.fromScAddress(credentials.address.address).toString()
      : undefined
    if (who !== from) return refuse("auth", "authorization entries may only be the sender's own")
    const root = entry.rootInvocation
    if (root.function.type !== "sorobanAuthorizedFunctionTypeContractFn" || !root.function.contractFn.equals(call)) {
      return refuse("auth", `an authorization entry may only authorize this ${TRANSFER_FUNCTION} call`)
    }
    if (root.subInvocations.length > 0) return refuse("auth", "authorization entries may not carry sub-invocations")
  }
  return Either.right(undefined)
}

/**
 * The sponsor's rules, each refusal naming its rule: what is called, with which arguments and authorizations, on
 * which contract, for what fee, until when.
 */
export const checkPolicy = (tx: Transaction, policy: Policy, nowSeconds: number): Either.Either<TransferCall, SponsorRefused> => {
  try {
    return policyOf(tx, policy, nowSeconds)
  } catch {
    // The SDK could not read a part of the call (an address kind it does not know, nesting too deep to compare).
    return refuse("operation", "the operation could not be read")
  }
}

const policyOf = (tx: Transaction, policy: Policy, nowSeconds: number): Either.Either<TransferCall, SponsorRefused> =>
  Either.gen(function*() {
    const op = tx.operations[0]!
    if (op.type !== "invokeHostFunction") return yield* refuse("operation", "only an invokeHostFunction operation is sponsored")
    if (op.func.type !== "hostFunctionTypeInvokeContract" || op.func.invokeContract.functionName.toString() !== TRANSFER_FUNCTION) {
      return yield* refuse("function", `only ${TRANSFER_FUNCTION} contract calls are sponsored`)
    }
    const call = op.func.invokeContract
    const contract = Address.fromScAddress(call.contractAddress).toString()
    if (!StrKey.isValidContract(contract) || !policy.allowedContracts.has(contract)) {
      return yield* refuse("contract", "the contract is not on the sponsor's allow-list")
    }
    const { from, to } = yield* checkArguments(call.args, tx.source)
    yield* checkAuth(op, call, from)
    if (Number(tx.fee) > policy.maxInnerFee) {
      return yield* refuse("fee", `the inner fee ${tx.fee} exceeds the sponsor's cap of ${policy.maxInnerFee} stroops`)
    }
    const maxTime = Number(tx.timeBounds?.maxTime ?? 0)
    if (maxTime === 0) return yield* refuse("timebounds", "the transaction needs time bounds with a maxTime")
    if (maxTime <= nowSeconds) return yield* refuse("timebounds", "the transaction's maxTime has passed")
    if (maxTime > nowSeconds + MAX_VALIDITY_SECONDS) {
      return yield* refuse("timebounds", `the transaction's maxTime may be at most ${MAX_VALIDITY_SECONDS / 60} minutes ahead`)
    }
    return { contract, from, to, maxTime }
  })
