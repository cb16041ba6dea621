// Where a confidential token lives: the token and the two registries it calls. At OpenZeppelin's 8af46e2c the token
// has no getter for them (storage.rs `get_auditor`, `get_verifier` are not in the `ConfidentialToken` trait), but keeps
// them in instance storage, which any client reads: readDeployment (ReadDeployment.ts) does.
export interface TokenDeployment {
  /** The confidential token (C...). */
  readonly contract: string
  /** The auditor key registry (auditor/mod.rs `get_key(auditor_id)`). */
  readonly auditorRegistry: string
  /** The verifier registry (verifier/mod.rs `get_verification_key(circuit_type)`). */
  readonly verifierRegistry: string
  readonly networkPassphrase: string
}

/** verifier/mod.rs `CircuitType` (`#[repr(u32)]`). */
export const CIRCUIT_TYPE = { register: 0, withdraw: 1, transfer: 2, spender_transfer: 3, set_spender: 4, revoke_spender: 5 } as const
export type CircuitName = keyof typeof CIRCUIT_TYPE

const PUBLIC = "Public Global Stellar Network ; September 2015"
const TESTNET = "Test SDF Network ; September 2015"

/** A network whose passphrase is neither the public network's nor testnet's: a standalone (local) network. */
export const isStandalone = (networkPassphrase: string): boolean => networkPassphrase !== PUBLIC && networkPassphrase !== TESTNET
