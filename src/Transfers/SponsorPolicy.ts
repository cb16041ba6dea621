import { Address, StrKey, type Transaction, type xdr } from "@stellar/stellar-sdk"
import { type Duration, Either } from "effect"
import { AccountId, ContractId, StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import { CONFIDENTIAL_REGISTER as REGISTER_FUNCTION, CONFIDENTIAL_TRANSFER as TRANSFER_FUNCTION } from "../Stellar/ConfidentialToken.ts"

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

/** A sponsored `register(account, auditor_id, data)`: a contractor's own registration with the token. */
export interface RegisterCall {
  readonly contract: ContractId
  readonly account: AccountId
  readonly maxTime: number
}

/** The function a sponsored call must be and how its arguments are checked against the source. */
interface SponsoredFunction<A> {
  readonly name: string
  readonly arguments: (args: ReadonlyArray<xdr.ScVal>, source: string) => Either.Either<A, SponsorRefused>
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
 * `register(account: Address, auditor_id: u32, data: Bytes)` (mod.rs at 8af46e2c), with `account` the transaction's
 * source: a contractor registers their own wallet, never another's.
 */
const checkRegisterArguments = (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const account = plainAddress(args[0])
  if (args.length !== 3 || account === undefined || args[1]?.type !== "scvU32" || args[2]?.type !== "scvBytes") {
    return refuse("arguments", `${REGISTER_FUNCTION} takes exactly (account: Address, auditor_id: u32, data: Bytes)`)
  }
  if (account !== source) return refuse("arguments", "account must be the transaction's source account")
  return Either.right({ account: AccountId.make(source) })
}

const TRANSFER: SponsoredFunction<{ from: AccountId; to: StellarAddress }> = { name: TRANSFER_FUNCTION, arguments: checkArguments }
const REGISTER: SponsoredFunction<{ account: AccountId }> = { name: REGISTER_FUNCTION, arguments: checkRegisterArguments }

/**
 * Authorization entries may only authorize the source's own call of this very function, with nothing beneath it:
 * the sponsor never pays for anyone else's authorization.
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
      return refuse("auth", `an authorization entry may only authorize this ${call.functionName.toString()} call`)
    }
    if (root.subInvocations.length > 0) return refuse("auth", "authorization entries may not carry sub-invocations")
  }
  return Either.right(undefined)
}

const policyOf = <A>(tx: Transaction, policy: SponsorPolicy, nowSeconds: number, fn: SponsoredFunction<A>) =>
  Either.gen(function*() {
    const op = tx.operations[0]
    if (op?.type !== "invokeHostFunction") return yield* refuse("operation", "only an invokeHostFunction operation is sponsored")
    if (op.func.type !== "hostFunctionTypeInvokeContract" || op.func.invokeContract.functionName.toString() !== fn.name) {
      return yield* refuse("function", `only ${fn.name} contract calls are sponsored`)
    }
    const call = op.func.invokeContract
    const address = Address.fromScAddress(call.contractAddress).toString()
    if (!StrKey.isValidContract(address) || !policy.allowedContracts.has(address)) {
      return yield* refuse("contract", "the contract is not on the sponsor's allow-list")
    }
    const contract = ContractId.make(address)
    const checked = yield* fn.arguments(call.args, tx.source)
    yield* checkAuth(op, call, AccountId.make(tx.source))
    if (Number(tx.fee) > policy.maxInnerFee) {
      return yield* refuse("fee", `the inner fee ${tx.fee} exceeds the sponsor's cap of ${policy.maxInnerFee} stroops`)
    }
    const maxTime = Number(tx.timeBounds?.maxTime ?? 0)
    if (maxTime === 0) return yield* refuse("timebounds", "the transaction needs time bounds with a maxTime")
    if (maxTime <= nowSeconds) return yield* refuse("timebounds", "the transaction's maxTime has passed")
    if (maxTime > nowSeconds + MAX_VALIDITY_SECONDS) {
      return yield* refuse("timebounds", `the transaction's maxTime may be at most ${MAX_VALIDITY_SECONDS / 60} minutes ahead`)
    }
    return { ...checked, contract, maxTime }
  })

/** The SDK could not read a part of the call (an address kind it does not know, nesting too deep to compare). */
const guarded = <A>(check: () => Either.Either<A, SponsorRefused>): Either.Either<A, SponsorRefused> => {
  try {
    return check()
  } catch {
    return refuse("operation", "the operation could not be read")
  }
}

/**
 * The sponsor's rules, each refusal naming its rule: what is called, with which arguments and authorizations, on
 * which contract, for what fee, until when.
 */
export const checkPolicy = (tx: Transaction, policy: SponsorPolicy, nowSeconds: number): Either.Either<TransferCall, SponsorRefused> =>
  guarded(() => policyOf(tx, policy, nowSeconds, TRANSFER))

/**
 * The same rules for a contractor's `register` (issue 30 §3: the contractor may hold no XLM for fees): the call is
 * `register(account = the source, auditor_id, data)` on an allowed contract, under the same fee cap, time bounds and
 * per-account quota as a transfer.
 */
export const checkRegisterPolicy = (tx: Transaction, policy: SponsorPolicy, nowSeconds: number): Either.Either<RegisterCall, SponsorRefused> =>
  guarded(() => policyOf(tx, policy, nowSeconds, REGISTER))
