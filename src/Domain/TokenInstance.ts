// Where a confidential token's registries and asset are, read from the chain. At OpenZeppelin's 8af46e2c the token
// keeps its underlying asset, verifier registry and auditor registry in instance storage (storage.rs
// `ConfidentialTokenStorageKey`: `UnderlyingAsset`, `Verifier`, `Auditor`, each an `Address`), so any client reads them
// in the token's contract-instance ledger entry: ContractData {contract, key: LedgerKeyContractInstance, durability:
// persistent}, whose value is an ScContractInstance {executable, storage: ScMap}. A `#[contracttype]` enum's unit
// variant is stored as the one-element tuple of its name's Symbol, `scvVec([scvSymbol("UnderlyingAsset")])`
// (stellar/rs-soroban-sdk, soroban-sdk-macros/src/derive_enum.rs: a variant without fields converts as
// `(DISCRIMINANT_SYM,)`). The service (Crs/Deployment.ts) and the confidential client (chain/ReadDeployment.ts) both
// read it, so it lives in the contract. It imports the Stellar SDK's types only: the console's build stands a stub in
// for the SDK under src/ (console/vite.config.ts), so the caller hands in the SDK's own address encoding.
import type { xdr } from "@stellar/stellar-sdk"
import { Data, Either } from "effect"

/** What the token names in its instance storage. */
export interface TokenRegistries {
  /** `UnderlyingAsset`: the SEP-41 token (a Stellar Asset Contract, e.g. USDC's) a deposit moves. */
  readonly underlyingAsset: string
  /** `Verifier`: the verifier registry (`get_verification_key(circuit_type)`). */
  readonly verifierRegistry: string
  /** `Auditor`: the auditor key registry (`get_key(auditor_id)`). */
  readonly auditorRegistry: string
}

export type DeploymentProblem = "NoInstance" | "NotConfidentialToken" | "KeyMissing"

/**
 * The token's instance does not tell its deployment: nothing is deployed at the address (`NoInstance`), what is there
 * is not OpenZeppelin's confidential token (`NotConfidentialToken`), or the token was not initialized with one of its
 * registries or its asset (`KeyMissing`). `message` is one line saying what to check.
 */
export class TokenDeploymentInvalid extends Data.TaggedError("TokenDeploymentInvalid")<{
  readonly reason: DeploymentProblem
  readonly message: string
}> {}

const KEYS = { underlyingAsset: "UnderlyingAsset", verifierRegistry: "Verifier", auditorRegistry: "Auditor" } as const

/** A unit variant's name, when `key` is one: `[Symbol]`. */
const variantName = (key: xdr.ScVal): string | undefined => {
  if (key.type !== "scvVec") return undefined
  const [first, ...rest] = key.vec ?? []
  return first?.type === "scvSymbol" && rest.length === 0 ? first.sym.toString() : undefined
}

/**
 * The registries and the asset `contract`'s instance names: `entry` is what getLedgerEntries gave for the key
 * ContractData {contract, LedgerKeyContractInstance, persistent} (undefined: no entry on `networkPassphrase`);
 * `addressOf` is the SDK's `Address.fromScAddress(a).toString()`.
 */
export const decodeTokenInstance = (
  contract: string,
  networkPassphrase: string,
  entry: xdr.LedgerEntryData | undefined,
  addressOf: (address: xdr.ScAddress) => string
): Either.Either<TokenRegistries, TokenDeploymentInvalid> => {
  const invalid = (reason: DeploymentProblem, message: string) => Either.left(new TokenDeploymentInvalid({ reason, message }))
  if (entry === undefined) {
    return invalid("NoInstance", `no contract is deployed at ${contract} on the network "${networkPassphrase}": check the token's address and the network`)
  }
  const value = entry.type === "contractData" ? entry.contractData.val : undefined
  if (value?.type !== "scvContractInstance") {
    return invalid("NotConfidentialToken", `the ledger entry of ${contract}'s instance holds no contract instance: check the token's address`)
  }
  if (value.instance.executable.type === "contractExecutableStellarAsset") {
    return invalid("NotConfidentialToken", `${contract} is a Stellar Asset Contract, not a confidential token: check the token's address`)
  }
  const stored = new Map((value.instance.storage ?? []).flatMap((e) => {
    const name = variantName(e.key)
    return name === undefined ? [] : [[name, e.val] as const]
  }))
  if (!Object.values(KEYS).some((name) => stored.has(name))) {
    return invalid(
      "NotConfidentialToken",
      `${contract} is not OpenZeppelin's confidential token: its instance storage has no UnderlyingAsset, Verifier or Auditor; check the token's address`
    )
  }
  const found: Partial<Record<keyof TokenRegistries, string>> = {}
  for (const [field, name] of Object.entries(KEYS) as ReadonlyArray<[keyof TokenRegistries, string]>) {
    const kept = stored.get(name)
    if (kept === undefined) {
      return invalid(
        "KeyMissing",
        `the token ${contract} keeps no ${name} in its instance storage: it was not initialized (its constructor sets UnderlyingAsset, Verifier and Auditor)`
      )
    }
    if (kept.type !== "scvAddress") {
      return invalid("NotConfidentialToken", `the ${name} ${contract} keeps is not an address: it is not OpenZeppelin's confidential token`)
    }
    found[field] = addressOf(kept.address)
  }
  return Either.right(found as TokenRegistries)
}
