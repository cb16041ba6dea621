import { Address, StrKey, type Transaction, type xdr } from "@stellar/stellar-sdk"
import { type Duration, Either } from "effect"
import { AccountId, ContractId, StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import { CONFIDENTIAL_TRANSFER as TRANSFER_FUNCTION } from "../Stellar/ConfidentialToken.ts"

export const MAX_VALIDITY_SECONDS = 600

/** What the sponsor pays for, and how often per source account. */
export interface SponsorPolicy {
  readonly allowedContracts: ReadonlySet<string>
  readonly maxInnerFee: number
  readonly quota: number
  readonly quotaWindow: Duration.Duration
}

/** The sponsored call, its addresses branded once checked: a swapped `from`/`to` does not compile downstream. */
export interface TransferCall {
  readonly contract: ContractId
  readonly from: AccountId
  readonly to: StellarAddress
  readonly maxTime: number
}


const refuse = (rule: string, error: string) => Either.left(new SponsorRefused({ rule, error }))

type HostOperation = Extract<Transaction["operations"][number], { type: "invokeHostFunction" }>

/** An account (G...) or contract (C...) address; the other address kinds cannot hold a confidential balance. */
const plainAddress = (value: xdr.ScVal | undefined): StellarAddress | undefined =>
  value?.type === "scvAddress" &&
    (value.address.type === "scAddressTypeAccount" || value.address.type === "scAddressTypeContract")
    ? StellarAddress.make(Address.fromScAddress(value.address).toString())
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
  return Either.right({ from: AccountId.make(source), to })
}

/**
 * Authorization entries may only authorize `from`'s own call of this very `confidential_transfer`, with nothing
 * beneath it: the sponsor never pays for anyone else's authorization.
 */
const checkAuth = (op: HostOperation, call: xdr.InvokeContractArgs, from: AccountId) => {
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

const policyOf = (tx: Transaction, policy: SponsorPolicy, nowSeconds: number): Either.Either<TransferCall, SponsorRefused> =>
  Either.gen(function*() {
    const op = tx.operations[0]
    if (op?.type !== "invokeHostFunction") return yield* refuse("operation", "only an invokeHostFunction operation is sponsored")
    if (op.func.type !== "hostFunctionTypeInvokeContract" || op.func.invokeContract.functionName.toString() !== TRANSFER_FUNCTION) {
      return yield* refuse("function", `only ${TRANSFER_FUNCTION} contract calls are sponsored`)
    }
    const call = op.func.invokeContract
    const address = Address.fromScAddress(call.contractAddress).toString()
    if (!StrKey.isValidContract(address) || !policy.allowedContracts.has(address)) {
      return yield* refuse("contract", "the contract is not on the sponsor's allow-list")
    }
    const contract = ContractId.make(address)
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

/**
 * The sponsor's rules, each refusal naming its rule: what is called, with which arguments and authorizations, on
 * which contract, for what fee, until when.
 */
export const checkPolicy = (tx: Transaction, policy: SponsorPolicy, nowSeconds: number): Either.Either<TransferCall, SponsorRefused> => {
  try {
    return policyOf(tx, policy, nowSeconds)
  } catch {
    // The SDK could not read a part of the call (an address kind it does not know, nesting too deep to compare).
    return refuse("operation", "the operation could not be read")
  }
}
