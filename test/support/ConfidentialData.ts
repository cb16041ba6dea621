// The `data: Bytes` argument of the confidential token's `confidential_transfer(from, to, data)`, built as the
// employer's client builds it: the XDR of a `TransferData { payload: TransferPayload, proof: Bytes }` contracttype.
// Mirrored from OpenZeppelin/stellar-contracts, packages/tokens/src/confidential/storage.rs (`TransferPayload`,
// `TransferData`, `decode_data`): a `#[contracttype]` struct is an ScMap keyed by its field names as symbols, in
// sorted order; `Point` is `BytesN<64>` (packages/contract-utils/src/crypto/grumpkin.rs). The proof is an UltraHonk
// proof, about 15 KB; random bytes stand in for it (the service never looks inside).
import { Address, xdr } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"

/** Bytes of the stand-in proof: a real UltraHonk proof is about 15 KB. */
export const PROOF_BYTES = 15_000

const POINTS = ["c_spend_new", "c_tx", "r_e_point"] as const
const FIELDS = ["b_tilde", "b_tilde_aud_s", "r_tilde_aud_r", "sigma", "v_tilde", "v_tilde_aud_r", "v_tilde_aud_s"] as const

/** An ScMap of a contracttype struct: symbol keys in sorted order, as soroban-sdk encodes it. */
export const structVal = (fields: Record<string, xdr.ScVal>): xdr.ScVal =>
  xdr.ScVal.scvMap(
    Object.keys(fields).sort().map((key) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(key), val: fields[key]! }))
  )

/**
 * A random field element below the BN254 scalar modulus (0x30644e72…), big-endian: a top byte under 0x30 keeps it
 * canonical, as the contract's `NonCanonicalEncoding` (#3514) check requires of points and fields.
 */
const fieldElement = () => {
  const bytes = randomBytes(32)
  bytes[0] = bytes[0]! % 0x30
  return bytes
}

export const transferPayload = (): xdr.ScVal =>
  structVal(Object.fromEntries([
    ...POINTS.map((name) => [name, xdr.ScVal.scvBytes(Buffer.concat([fieldElement(), fieldElement()]))] as const),
    ...FIELDS.map((name) => [name, xdr.ScVal.scvBytes(fieldElement())] as const)
  ]))

/** XDR of `TransferData { payload, proof }` with a proof of `proofBytes` bytes. */
export const transferData = (proofBytes = PROOF_BYTES): Uint8Array =>
  structVal({ payload: transferPayload(), proof: xdr.ScVal.scvBytes(randomBytes(proofBytes)) }).toXDR()

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
