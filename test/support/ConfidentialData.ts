// The `data: Bytes` argument of the confidential token's `confidential_transfer(from, to, data)`, built as the
// employer's client builds it: the XDR of a `TransferData { payload: TransferPayload, proof: Bytes }` contracttype,
// of either version the loopback emulates (ConfidentialTokenVersion.ts: OpenZeppelin/stellar-contracts,
// packages/tokens/src/confidential/storage.rs at 8af46e2c and at 0fd261c2). A `#[contracttype]` struct is an ScMap
// keyed by its field names as symbols, sorted; `Point` is `BytesN<64>`.
//
// The proof is an UltraHonk proof of Noir circuits as the token's verifier takes them
// (NethermindEth/rs-soroban-ultrahonk at 16c304a0, crates/ultrahonk-soroban-verifier/README.md; bb 0.87.0): 456
// 32-byte fields (14,592 bytes) with the non-zero-knowledge Keccak transcript, which the token's circuits use today
// (stellar-contracts circuits/vks/README.md at 7621e093: `bb prove -s ultra_honk --oracle_hash keccak`, "Do not pass
// --zk"), or 507 fields (16,224 bytes) with zero knowledge. Random bytes stand in for it: the service never looks inside.
import { Address, xdr } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { DEFAULT_TOKEN_VERSION, TRANSFER_PAYLOAD, type TokenVersion } from "./ConfidentialTokenVersion.ts"

/** An UltraHonk proof without zero knowledge (`UltraKeccakFlavor`): 456 fields of 32 bytes. */
export const PROOF_BYTES = 456 * 32
/** An UltraHonk proof with zero knowledge (`UltraKeccakZKFlavor`, Libra and the hiding polynomial): 507 fields. */
export const ZK_PROOF_BYTES = 507 * 32

/** An ScMap of a contracttype struct: symbol keys in sorted order, as soroban-sdk encodes it. */
export const structVal = (fields: Record<string, xdr.ScVal>): xdr.ScVal =>
  xdr.ScVal.scvMap(
    Object.keys(fields).sort().map((key) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(key), val: fields[key]! }))
  )

/**
 * A random field element below the BN254 scalar modulus (0x30644e72…), big-endian: a top byte under 0x30 keeps it
 * canonical, as the contract's `NonCanonicalEncoding` (#3514) check requires of points and fields.
 */
export const fieldElement = (): Buffer => {
  const bytes = randomBytes(32)
  bytes[0] = bytes[0]! % 0x30
  return bytes
}

/** `length` random canonical bytes: a field element (32) or a point's two coordinates (64). */
export const canonicalBytes = (length: number): Buffer =>
  length === 64 ? Buffer.concat([fieldElement(), fieldElement()]) : fieldElement()

/** A well-formed `TransferPayload` of `version` (default 8af46e2c), random canonical values. */
export const transferPayload = (version: TokenVersion = DEFAULT_TOKEN_VERSION): xdr.ScVal =>
  structVal(Object.fromEntries(TRANSFER_PAYLOAD[version].map(([name, bytes]) => [name, xdr.ScVal.scvBytes(canonicalBytes(bytes))])))

export interface TransferDataOptions {
  /** The token version whose `TransferData` to build (default 8af46e2c). */
  readonly version?: TokenVersion
  /**
   * Bytes of the stand-in proof (default PROOF_BYTES, 14,592): for suites about the service rather than the proof,
   * whose loopback token is not in proving mode (test/support/ConfidentialProving.ts has the real prover).
   */
  readonly proofBytes?: number
}

/** XDR of `TransferData { payload, proof }`; a number is the proof's size, of the default version. */
export const transferData = (options: number | TransferDataOptions = {}): Uint8Array => {
  const { version = DEFAULT_TOKEN_VERSION, proofBytes = PROOF_BYTES } = typeof options === "number" ? { proofBytes: options } : options
  return structVal({ payload: transferPayload(version), proof: xdr.ScVal.scvBytes(randomBytes(proofBytes)) }).toXDR()
}

/** XDR of 8af46e2c's `RegisterData { payload: RegisterPayload { pvk, y }, proof }` with random canonical keys. */
export const registerData = (proofBytes = PROOF_BYTES): Uint8Array =>
  structVal({
    payload: structVal({ pvk: xdr.ScVal.scvBytes(canonicalBytes(64)), y: xdr.ScVal.scvBytes(canonicalBytes(64)) }),
    proof: xdr.ScVal.scvBytes(randomBytes(proofBytes))
  }).toXDR()

/** A source-account authorization entry for `contract.fn(args)`, with no sub-invocations. */
export const sourceAuthorization = (contract: string, fn: string, args: ReadonlyArray<xdr.ScVal>) =>
  new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: Address.fromString(contract).toScAddress(), functionName: fn, args: [...args] })
      ),
      subInvocations: []
    })
  })
