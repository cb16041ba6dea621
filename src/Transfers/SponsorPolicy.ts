import { Address, StrKey, type Transaction, type xdr } from "@stellar/stellar-sdk"
import { type Duration, Either } from "effect"
import { AccountId, ContractId, StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import {
  CONFIDENTIAL_DEPOSIT as DEPOSIT_FUNCTION,
  CONFIDENTIAL_MERGE as MERGE_FUNCTION,
  CONFIDENTIAL_REGISTER as REGISTER_FUNCTION,
  CONFIDENTIAL_TRANSFER as TRANSFER_FUNCTION,
  CONFIDENTIAL_WITHDRAW as WITHDRAW_FUNCTION
} from "../Stellar/ConfidentialToken.ts"

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

/** The calls a wallet makes on its own confidential account, besides paying: what POST /token/calls sponsors. */
export const TOKEN_CALLS = [REGISTER_FUNCTION, DEPOSIT_FUNCTION, MERGE_FUNCTION, WITHDRAW_FUNCTION] as const
export type TokenCallKind = typeof TOKEN_CALLS[number]

/** A sponsored call of a wallet on its own confidential account: every account argument is the source. */
export interface OwnCall {
  readonly kind: TokenCallKind
  readonly contract: ContractId
  readonly account: AccountId
  readonly maxTime: number
}

/** The function a sponsored call must be and how its arguments are checked against the source. */
interface SponsoredFunction<A> {
  readonly name: string
  readonly arguments: (args: ReadonlyArray<xdr.ScVal>, source: string) => Either.Either<A, SponsorRefused>
  /**
   * The invocations the function itself makes with the source's authorization (its `require_auth` reaching into the
   * contracts it calls), which the source's authorization entry lists beneath the call; none unless told.
   */
  readonly beneath?: (subs: ReadonlyArray<xdr.SorobanAuthorizedInvocation>, call: xdr.InvokeContractArgs, source: string) => boolean
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

/** An `i128` amount, not negative (the token refuses a negative one with `NegativeAmount`, after the fee is spent). */
const amountOf = (value: xdr.ScVal | undefined) => value?.type === "scvI128" && value.i128.hi >= 0n ? value : undefined

/** Every account argument must be the source: the sponsor pays for a wallet's moves within its own account only. */
const ownAccounts = (kind: TokenCallKind, accounts: ReadonlyArray<StellarAddress>, source: string) =>
  accounts.every((a) => a === source)
    ? Either.right({ kind, account: AccountId.make(source) })
    : refuse("arguments", `every account argument of ${kind} must be the transaction's source account`)

/**
 * `register(account: Address, auditor_id: u32, data: Bytes)` (mod.rs at 8af46e2c), with `account` the transaction's
 * source: a wallet registers itself, never another.
 */
const checkRegisterArguments = (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const account = plainAddress(args[0])
  if (args.length !== 3 || account === undefined || args[1]?.type !== "scvU32" || args[2]?.type !== "scvBytes") {
    return refuse("arguments", `${REGISTER_FUNCTION} takes exactly (account: Address, auditor_id: u32, data: Bytes)`)
  }
  return ownAccounts(REGISTER_FUNCTION, [account], source)
}

/**
 * `deposit(from: Address, to: Address, amount: i128)` (mod.rs at 8af46e2c), from the source's public balance to its
 * own confidential one: a deposit into another account would be a payment (its amount public), which the sponsor
 * does not pay for.
 */
const checkDepositArguments = (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const [from, to] = [plainAddress(args[0]), plainAddress(args[1])]
  if (args.length !== 3 || from === undefined || to === undefined || amountOf(args[2]) === undefined) {
    return refuse("arguments", `${DEPOSIT_FUNCTION} takes exactly (from: Address, to: Address, amount: i128), amount not negative`)
  }
  return ownAccounts(DEPOSIT_FUNCTION, [from, to], source)
}

/** `merge(account: Address)` (mod.rs at 8af46e2c): the source's own receiving balance into its spendable one. */
const checkMergeArguments = (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const account = plainAddress(args[0])
  if (args.length !== 1 || account === undefined) return refuse("arguments", `${MERGE_FUNCTION} takes exactly (account: Address)`)
  return ownAccounts(MERGE_FUNCTION, [account], source)
}

/**
 * `withdraw(from: Address, to: Address, amount: i128, data: Bytes)` (mod.rs at 8af46e2c), from the source's
 * confidential balance to its own public one: a withdrawal to someone else would be a payment the sponsor does not
 * pay for (the wallet may send on what it withdrew, at its own cost).
 */
const checkWithdrawArguments = (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const [from, to] = [plainAddress(args[0]), plainAddress(args[1])]
  if (args.length !== 4 || from === undefined || to === undefined || amountOf(args[2]) === undefined || args[3]?.type !== "scvBytes") {
    return refuse("arguments", `${WITHDRAW_FUNCTION} takes exactly (from: Address, to: Address, amount: i128, data: Bytes), amount not negative`)
  }
  return ownAccounts(WITHDRAW_FUNCTION, [from, to], source)
}

/**
 * What a deposit's `from.require_auth()` reaches beneath it: storage.rs `deposit` calls the underlying token's
 * `transfer(from, <the confidential token>, amount)`, so a real simulation lists exactly that call (and nothing under
 * it) in the source's authorization entry. The underlying token is the confidential token's own choice (the
 * authorization cannot make it call another), so its contract is not checked; the arguments are.
 */
const depositBeneath = (subs: ReadonlyArray<xdr.SorobanAuthorizedInvocation>, call: xdr.InvokeContractArgs, source: string) => {
  if (subs.length === 0) return true
  const sub = subs[0]
  if (subs.length !== 1 || sub === undefined || sub.subInvocations.length > 0) return false
  if (sub.function.type !== "sorobanAuthorizedFunctionTypeContractFn") return false
  const fn = sub.function.contractFn
  const [from, to, amount] = fn.args
  return fn.functionName.toString() === "transfer" && fn.args.length === 3 && plainAddress(from) === source &&
    plainAddress(to) === Address.fromScAddress(call.contractAddress).toString() && amount !== undefined &&
    call.args[2] !== undefined && amount.equals(call.args[2])
}

const TRANSFER: SponsoredFunction<{ from: AccountId; to: StellarAddress }> = { name: TRANSFER_FUNCTION, arguments: checkArguments }

type OwnArguments = { readonly kind: TokenCallKind; readonly account: AccountId }

const OWN_CALLS: Readonly<Record<TokenCallKind, SponsoredFunction<OwnArguments>>> = {
  register: { name: REGISTER_FUNCTION, arguments: checkRegisterArguments },
  deposit: { name: DEPOSIT_FUNCTION, arguments: checkDepositArguments, beneath: depositBeneath },
  merge: { name: MERGE_FUNCTION, arguments: checkMergeArguments },
  withdraw: { name: WITHDRAW_FUNCTION, arguments: checkWithdrawArguments }
}

/**
 * Authorization entries may only authorize the source's own call of this very function, with nothing beneath it:
 * the sponsor never pays for anyone else's authorization.
 */
const checkAuth = <A>(op: HostOperation, call: xdr.InvokeContractArgs, from: AccountId, fn: SponsoredFunction<A>) => {
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
    if (fn.beneath === undefined && root.subInvocations.length > 0) {
      return refuse("auth", "authorization entries may not carry sub-invocations")
    }
    if (fn.beneath !== undefined && !fn.beneath(root.subInvocations, call, from)) {
      return refuse("auth", `an authorization entry may carry only what ${fn.name} itself calls with it beneath it`)
    }
  }
  return Either.right(undefined)
}

/** The functions' names as a refusal lists them: `a`, `a or b`, `a, b or c`. */
const namesOf = (fns: ReadonlyArray<{ readonly name: string }>) =>
  fns.length <= 1 ? fns.map((f) => f.name).join("") : `${fns.slice(0, -1).map((f) => f.name).join(", ")} or ${fns.at(-1)!.name}`

const policyOf = <A>(tx: Transaction, policy: SponsorPolicy, nowSeconds: number, fns: ReadonlyArray<SponsoredFunction<A>>) =>
  Either.gen(function*() {
    const op = tx.operations[0]
    if (op?.type !== "invokeHostFunction") return yield* refuse("operation", "only an invokeHostFunction operation is sponsored")
    const name = op.func.type === "hostFunctionTypeInvokeContract" ? op.func.invokeContract.functionName.toString() : undefined
    const fn = fns.find((f) => f.name === name)
    if (op.func.type !== "hostFunctionTypeInvokeContract" || fn === undefined) {
      return yield* refuse("function", `only ${namesOf(fns)} contract calls are sponsored`)
    }
    const call = op.func.invokeContract
    const address = Address.fromScAddress(call.contractAddress).toString()
    if (!StrKey.isValidContract(address) || !policy.allowedContracts.has(address)) {
      return yield* refuse("contract", "the contract is not on the sponsor's allow-list")
    }
    const contract = ContractId.make(address)
    const checked = yield* fn.arguments(call.args, tx.source)
    yield* checkAuth(op, call, AccountId.make(tx.source), fn)
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
  guarded(() => policyOf(tx, policy, nowSeconds, [TRANSFER]))

/**
 * The same rules for a wallet's call on its own confidential account (issue 30 §3: a contractor may hold no XLM for
 * fees; the console's wallet cannot submit a transaction itself): one of `offered` — `register(account, auditor_id,
 * data)`, `deposit(from, to, amount)`, `merge(account)`, `withdraw(from, to, amount, data)` — with every account
 * argument the source, on an allowed contract, under the same fee cap, time bounds and per-account quota as a transfer.
 */
export const checkOwnCallPolicy = (
  tx: Transaction,
  policy: SponsorPolicy,
  nowSeconds: number,
  offered: ReadonlySet<TokenCallKind>
): Either.Either<OwnCall, SponsorRefused> =>
  guarded(() => policyOf(tx, policy, nowSeconds, TOKEN_CALLS.filter((kind) => offered.has(kind)).map((kind) => OWN_CALLS[kind])))

/** The auditor registry's operator calls (auditor/mod.rs at 8af46e2c) POST /escrow/registry-calls sponsors. */
export const REGISTRY_CALLS = ["register_key", "rotate_key"] as const
export type RegistryCallKind = typeof REGISTRY_CALLS[number]

/** A sponsored operator call on the auditor registry: the key it registers, the operator the source. */
export interface RegistryCall {
  readonly kind: RegistryCallKind
  readonly contract: ContractId
  readonly auditorId: number
  /** The (new) point, 128 lowercase hex characters. */
  readonly point: string
  readonly maxTime: number
}

/**
 * `register_key(auditor_id: u32, point: BytesN<64>, operator: Address)` and `rotate_key(auditor_id, new_point,
 * operator)`, with `operator` the transaction's source: the signed-in wallet calls as the operator, never for another.
 */
const registryArguments = (kind: RegistryCallKind) => (args: ReadonlyArray<xdr.ScVal>, source: string) => {
  const [id, point, operator] = args
  const bytes = point?.type === "scvBytes" ? point.bytes.toBytes() : undefined
  if (args.length !== 3 || id?.type !== "scvU32" || bytes?.length !== 64 || plainAddress(operator) === undefined) {
    return refuse("arguments", `${kind} takes exactly (auditor_id: u32, point: BytesN<64>, operator: Address)`)
  }
  if (plainAddress(operator) !== source) return refuse("arguments", `the operator of ${kind} must be the transaction's source account`)
  return Either.right({ kind, auditorId: id.u32, point: Buffer.from(bytes).toString("hex") })
}

const REGISTRY_FUNCTIONS = REGISTRY_CALLS.map((kind) => ({ name: kind, arguments: registryArguments(kind) }))

/**
 * The sponsor's rules for the auditor registry's operator (issue 36 §2): `register_key` or `rotate_key` on `registry`
 * alone (not the sponsor's allow-list of tokens), the operator the source, its authorization the source's own of this
 * call, under the same fee cap, time bounds and per-account quota as a transfer.
 */
export const checkRegistryCallPolicy = (
  tx: Transaction,
  policy: SponsorPolicy,
  nowSeconds: number,
  registry: string
): Either.Either<RegistryCall, SponsorRefused> =>
  guarded(() => policyOf(tx, { ...policy, allowedContracts: new Set([registry]) }, nowSeconds, REGISTRY_FUNCTIONS))

/** The `auditor_id` a `register(account, auditor_id, data)` names; undefined for any other call. */
export const registerAuditorId = (tx: Transaction): number | undefined => {
  if (tokenCallOf(tx) !== REGISTER_FUNCTION) return undefined
  const op = tx.operations[0] as HostOperation
  if (op.func.type !== "hostFunctionTypeInvokeContract") return undefined
  const arg = op.func.invokeContract.args[1]
  return arg?.type === "scvU32" ? arg.u32 : undefined
}

/**
 * The token call the transaction's one operation makes, by its function's name alone (nothing else checked yet):
 * who may make which is decided before the sponsor's rules are.
 */
export const tokenCallOf = (tx: Transaction): TokenCallKind | undefined => {
  try {
    const op = tx.operations[0]
    if (op?.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") return undefined
    const name = op.func.invokeContract.functionName.toString()
    return TOKEN_CALLS.find((kind) => kind === name)
  } catch {
    return undefined
  }
}
