// The selective-disclosure circuits (circuits/disclosure at the repository root, this project's Noir), compiled by
// scripts/compile-disclosure.ts into client/circuits/disclosure/: bytecode and ABI beside a manifest that pins each
// ACIR by sha256, and each verification key over Aztec Ignition's CRS in OZ's fields form (vks/<name>.vk.json).
// Browser-safe: no node:* imports.
import type { Abi } from "../proving/Artifacts.ts"

/** Single-event circuits (§6-§8), and the aggregates (§10) at the two sizes §15.1 leaves to the implementer. */
export const DISCLOSURE_CIRCUITS = [
  "disclose_recipient",
  "disclose_recipient_8",
  "disclose_recipient_24",
  "disclose_sender",
  "disclose_sender_8",
  "disclose_sender_24",
  "disclose_auditor"
] as const
export type DisclosureCircuitName = (typeof DISCLOSURE_CIRCUITS)[number]

/**
 * Event slots of an aggregate. 8 is what fits bb's 2^14 circuit size, the single-event circuits' own (so it proves as
 * fast as one disclosure); 24 is what fits 2^15, the largest the project's CRS (Ignition's first 32,769 points) can
 * prove: a year of monthly or twice-monthly payouts in one proof.
 */
export const AGGREGATE_SIZES = [8, 24] as const
export type AggregateSize = (typeof AGGREGATE_SIZES)[number]

export interface DisclosureManifestCircuit {
  readonly acirSha256: string
  readonly bytecodeSha256: string
  readonly noirHash: string
  /** Field elements the verifier supplies, in the circuit's order (bb appends its 16 pairing-point fields). */
  readonly publicInputs: number
  readonly parameters: ReadonlyArray<string>
  readonly publicParameters: ReadonlyArray<string>
  /**
   * bb's finalized size (`acirGetCircuitSizes`' first value: gates with the lookup tables, whose ECC tables set a floor
   * near 14,400) and the dyadic size the CRS must cover (+1 point).
   */
  readonly gates: number
  readonly circuitSize: number
  /** sha256 of vks/<name>.vk.json. */
  readonly vkSha256: string
}

export interface DisclosureManifest {
  readonly sources: string
  readonly spec: string
  readonly compiler: string
  readonly executor: string
  readonly prover: string
  readonly crs: string
  readonly domainTags: Readonly<Record<string, number>>
  readonly circuits: Readonly<Record<DisclosureCircuitName, DisclosureManifestCircuit>>
}

export interface DisclosureArtifact {
  readonly noir_version: string
  readonly hash: string
  readonly abi: Abi
  readonly bytecode: string
}
