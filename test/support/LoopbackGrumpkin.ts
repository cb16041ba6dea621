// The Grumpkin arithmetic and address fields the loopback token needs, through the client's own crypto (itself
// pinned to OZ's lib/testdata vectors): storage.rs adds commitments with `Grumpkin::add`, credits deposits as
// `Grumpkin::mul(generator, amount)` and binds proofs to `address_to_field` of the contract and the account.
import { createHash } from "node:crypto"
import { addressToField } from "../../client/src/confidential/crypto/AddressField.ts"
import { fieldToBytes, R } from "../../client/src/confidential/crypto/Field.ts"
import { G, H, pointFromBytes, pointToBytes, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"

/** `Grumpkin::add` of two stored points (x‖y, the identity as 64 zero bytes). */
export const addPoints = (a: Uint8Array, b: Uint8Array): Uint8Array =>
  pointToBytes(pointFromBytes(a).add(pointFromBytes(b)))

/** storage.rs `deposit`: `Grumpkin::mul(&Grumpkin::generator(e), amount as u128)`. */
export const depositCommitment = (amount: bigint): Uint8Array => pointToBytes(scalarMul(amount, G))

/** storage.rs `get_address_as_field_element`: the contract's own `address_to_field`, 32 bytes. */
export const contractField = (contractId: string): Uint8Array => fieldToBytes(addressToField(contractId))

/** storage.rs `address_to_field(account)`. */
export const accountField = (account: string): Uint8Array => fieldToBytes(addressToField(account))

/**
 * The loopback auditor registry's key for an id: K = k·H for a secret k derived from the contract and the id, so a
 * test can also act as that auditor (`auditorSecret`). A real registry holds whatever key the auditor registered.
 */
export const auditorSecret = (contractId: string, auditorId: number): bigint =>
  (BigInt(`0x${createHash("sha256").update(`loopback auditor ${auditorId} of ${contractId}`).digest("hex")}`) % (R - 1n)) + 1n

export const auditorPublicKey = (contractId: string, auditorId: number): Uint8Array =>
  pointToBytes(scalarMul(auditorSecret(contractId, auditorId), H))
