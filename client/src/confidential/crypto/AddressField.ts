// addr_f / acct_f: a Stellar address compressed into one Fr element, exactly as the contract computes it
// (storage.rs address_to_field at 8af46e2c): the 56 ASCII bytes of the strkey, lo = bytes 0..28 read little-endian,
// hi = bytes 28..56 read little-endian, then Poseidon2(ADDRESS, lo, hi). Each limb is below 2^224 < r.
import { bytesToNumberLE } from "@noble/curves/utils.js"
import { StrKey } from "@stellar/stellar-sdk"
import { InvalidEncoding } from "../Errors.ts"
import { poseidonWithDomain } from "./Poseidon2.ts"
import { Domain } from "./Primitives.ts"

const STRKEY_LEN = 56
const LIMB_LEN = 28

/** The contract copies `Address::to_string()` into a 56-byte buffer: only account (G…) and contract (C…) strkeys fit. */
export const addressToField = (strkey: string): bigint => {
  if (
    strkey.length !== STRKEY_LEN ||
    !(StrKey.isValidEd25519PublicKey(strkey) || StrKey.isValidContract(strkey))
  ) {
    throw new InvalidEncoding({ subject: "address", message: "address is not a G… or C… strkey" })
  }
  const ascii = new TextEncoder().encode(strkey)
  const lo = bytesToNumberLE(ascii.subarray(0, LIMB_LEN))
  const hi = bytesToNumberLE(ascii.subarray(LIMB_LEN))
  return poseidonWithDomain(Domain.ADDRESS, [lo, hi])
}
