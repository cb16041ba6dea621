import type { Keypair, Transaction } from "@stellar/stellar-sdk"
import { Duration, Effect, Layer, Option } from "effect"
import { OperationalKeys } from "../Auth/Keys.ts"
import { SponsorConfig, StellarConfig } from "../Config.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import { feeBumpWith } from "./FeeBump.ts"
import { checkOwnCallPolicy, checkPolicy, checkRegistryCallPolicy, type SponsorPolicy, type TokenCallKind } from "./SponsorPolicy.ts"

/** One unit of a source's quota, as SubmissionRepo.create counts and records it atomically. */
export interface QuotaReservation {
  readonly limit: number
  readonly since: Date
  readonly now: Date
}

/** The whole sponsor decision from a policy and the sponsor's key. */
export const makeSponsor = (policy: SponsorPolicy, key: Keypair, networkPassphrase: string) => {
  /** The policy at `now`; the quota is decided when the submission is recorded (`reservation`). */
  const check = (tx: Transaction, now: Date) => checkPolicy(tx, policy, Math.floor(now.getTime() / 1000))
  /** The same policy for a wallet's call on its own confidential account, one of `offered`. */
  const checkOwnCall = (tx: Transaction, now: Date, offered: ReadonlySet<TokenCallKind>) =>
    checkOwnCallPolicy(tx, policy, Math.floor(now.getTime() / 1000), offered)
  /** The same policy for the auditor registry operator's `register_key` or `rotate_key` on `registry`. */
  const checkRegistryCall = (tx: Transaction, now: Date, registry: string) =>
    checkRegistryCallPolicy(tx, policy, Math.floor(now.getTime() / 1000), registry)

  /** The window the source's sponsored transfers are counted in, ending at `now`. */
  const reservation = (now: Date): QuotaReservation => ({
    limit: policy.quota,
    since: new Date(now.getTime() - Duration.toMillis(policy.quotaWindow)),
    now
  })

  const quotaExhausted = () =>
    new SponsorRefused({
      rule: "quota",
      error: `the source account has used its ${policy.quota} sponsored transfers for this window`
    })

  return { policy, check, checkOwnCall, checkRegistryCall, reservation, quotaExhausted, feeBump: feeBumpWith(key, networkPassphrase), account: key.publicKey() } as const
}

/**
 * The fee sponsor: the policy of what it pays for (operation, function, contract, arguments, auth, fee, time bounds),
 * the per-source quota it applies (counted by SubmissionRepo), and its fee-bump.
 */
export class Sponsor extends Effect.Service<Sponsor>()("Transfers/Sponsor", {
  effect: Effect.gen(function*() {
    const config = yield* SponsorConfig
    const { networkPassphrase, confidentialTokenContract } = yield* StellarConfig
    const keys = yield* OperationalKeys
    const policy: SponsorPolicy = {
      allowedContracts: new Set(Option.getOrElse(config.allowedContracts, () => Option.toArray(confidentialTokenContract))),
      maxInnerFee: config.maxInnerFee,
      quota: config.quota,
      quotaWindow: config.quotaWindow
    }
    return makeSponsor(policy, keys.sponsor, networkPassphrase)
  }),
  dependencies: [OperationalKeys.Default]
}) {
  /** A sponsor with the given policy and key, for tests. */
  static layerTest = (policy: SponsorPolicy, key: Keypair, networkPassphrase: string) =>
    Layer.succeed(Sponsor, Sponsor.make(makeSponsor(policy, key, networkPassphrase)))
}
