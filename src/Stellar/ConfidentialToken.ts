import { Address, xdr } from "@stellar/stellar-sdk"
import { Data, Effect, Option } from "effect"
import { StellarConfig } from "../Config.ts"
import { RpcClient, RpcError } from "./RpcClient.ts"
import * as Spans from "../Observability/Spans.ts"

/**
 * The confidential token's interface as this service uses it, mirrored from OpenZeppelin/stellar-contracts,
 * packages/tokens/src/confidential/mod.rs (the `ConfidentialToken` trait and `ConfidentialTokenError`) and
 * storage.rs (`ConfidentialAccount`, `get_account`), alike at 8af46e2c and 0fd261c2: what changed between them
 * (`TransferPayload`, the events) is inside `data` or in the event archive, never read here.
 */
export const CONFIDENTIAL_TRANSFER = "confidential_transfer"
/** `register(account, auditor_id, data)`: an account's one registration, with its proof (the sponsor pays a contractor's). */
export const CONFIDENTIAL_REGISTER = "register"
/** `deposit(from, to, amount)`: the underlying moves from `from` (which authorizes its `transfer`) to `to`'s receiving balance. */
export const CONFIDENTIAL_DEPOSIT = "deposit"
/** `merge(account)`: the receiving balance folds into the spendable one. */
export const CONFIDENTIAL_MERGE = "merge"
/** `withdraw(from, to, amount, data)`: `amount` of `from`'s spendable balance leaves to `to`'s public balance, with its proof. */
export const CONFIDENTIAL_WITHDRAW = "withdraw"
export const CONFIDENTIAL_BALANCE = "confidential_balance"
/**
 * `ConfidentialTokenError::AccountNotRegistered`: `confidential_balance` of an address that never registered. Every
 * error code of the token and of the contracts it calls is named in ConfidentialErrors.ts.
 */
export const ACCOUNT_NOT_REGISTERED = 3501
/** `Point = BytesN<64>` (packages/contract-utils/src/crypto/grumpkin.rs): an affine Grumpkin point. */
const POINT_BYTES = 64

/** The public part of a registration: the viewing key (hex of the 64-byte point) and the auditor it committed to. */
export class Registration extends Data.Class<{ readonly viewingKey: string; readonly auditorId: number }> {}

/** The contract error code a failed simulation carries (`Error(Contract, #N)`), if any. */
export const contractErrorCode = (message: string): Option.Option<number> => {
  const match = /Error\(Contract, #(\d+)\)/.exec(message)
  return match === null ? Option.none() : Option.some(Number(match[1]))
}

const field = (entries: ReadonlyArray<xdr.ScMapEntry>, name: string) =>
  Option.fromNullable(entries.find((e) => e.key.type === "scvSymbol" && e.key.sym.toString() === name)?.val)

/** Decodes the `ConfidentialAccount` struct (an ScMap keyed by its field names) into what the service keeps. */
export const decodeAccount = (value: xdr.ScVal): Option.Option<Registration> => {
  if (value.type !== "scvMap") return Option.none()
  const entries = value.map ?? []
  const viewing = field(entries, "viewing_public_key").pipe(
    Option.flatMap((v) => v.type === "scvBytes" ? Option.some(v.bytes.toBytes()) : Option.none()),
    Option.filter((bytes) => bytes.length === POINT_BYTES),
    Option.map((bytes) => Buffer.from(bytes).toString("hex"))
  )
  const auditor = field(entries, "auditor_id").pipe(
    Option.flatMap((v) => v.type === "scvU32" ? Option.some(v.u32) : Option.none())
  )
  return Option.zipWith(viewing, auditor, (viewingKey, auditorId) => new Registration({ viewingKey, auditorId }))
}

/** Reads registrations from the confidential token contract through `confidential_balance(account)`. */
export class ConfidentialToken extends Effect.Service<ConfidentialToken>()("Stellar/ConfidentialToken", {
  effect: Effect.gen(function*() {
    const { confidentialTokenContract } = yield* StellarConfig
    const rpc = yield* RpcClient

    /**
     * The registration of `address`: none when the contract answers `AccountNotRegistered` (or no contract is
     * configured); any other contract error, an unreadable answer or a transport failure is an RpcError.
     */
    const registration = (address: string) =>
      Option.match(confidentialTokenContract, {
        onNone: () => Effect.succeed(Option.none<Registration>()),
        onSome: (contract) =>
          rpc.simulateRead(contract, CONFIDENTIAL_BALANCE, [Address.fromString(address).toScVal()]).pipe(
            Effect.flatMap((value) =>
              Option.match(decodeAccount(value), {
                onNone: () =>
                  new RpcError({ method: "simulateTransaction", message: `${CONFIDENTIAL_BALANCE} returned no ConfidentialAccount` }),
                onSome: (registered) => Effect.succeed(Option.some(registered))
              })
            ),
            Effect.catchTag("SimulationFailed", (e) =>
              Option.contains(contractErrorCode(e.message), ACCOUNT_NOT_REGISTERED)
                ? Effect.succeed(Option.none<Registration>())
                : new RpcError({ method: "simulateTransaction", message: e.message }))
          )
      }).pipe(Spans.withSpan("ConfidentialToken.registration"))

    return { registration, configured: Option.isSome(confidentialTokenContract) } as const
  }),
  dependencies: [RpcClient.Default]
}) {}
