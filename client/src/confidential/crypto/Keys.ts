// An account's confidential key set (DESIGN.md §4): sk, vk = Poseidon2(VIEWING_KEY, sk, addr_f), Y = sk·H,
// PVK = vk·H, with the two address fields they are bound to. sk and vk never print: JSON and util.inspect redact them.
import { bytesToHex } from "@noble/curves/utils.js"
import { KeyDerivationFailed } from "../Errors.ts"
import { R, fieldToHex } from "./Field.ts"
import { H, pointToBytes, scalarMul, type GrumpkinPoint } from "./Grumpkin.ts"
import { pvkFromVk, vkFromSk } from "./Primitives.ts"

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`

export class ConfidentialKeys {
  readonly sk: bigint
  readonly vk: bigint
  /** Y = sk·H, the account's spending public key. */
  readonly spendingPublicKey: GrumpkinPoint
  /** PVK = vk·H, the key senders run ECDH against. */
  readonly viewingPublicKey: GrumpkinPoint
  /** address_to_field of the confidential token contract. */
  readonly addrF: bigint
  /** address_to_field of the account the keys belong to. */
  readonly acctF: bigint

  constructor(sk: bigint, addrF: bigint, acctF: bigint) {
    if (sk <= 0n || sk >= R) {
      throw new KeyDerivationFailed({ reason: "SecretOutOfRange", message: "sk is not in [1, r)" })
    }
    const vk = vkFromSk(sk, addrF)
    // The register circuit's R5 (vk != 0): such an sk could never register.
    if (vk === 0n) throw new KeyDerivationFailed({ reason: "SecretOutOfRange", message: "sk gives a zero viewing key" })
    this.sk = sk
    this.vk = vk
    this.spendingPublicKey = scalarMul(sk, H)
    this.viewingPublicKey = pvkFromVk(vk)
    this.addrF = addrF
    this.acctF = acctF
  }

  /** The public part, for logs and bug reports. */
  toJSON() {
    return {
      sk: "<redacted>",
      vk: "<redacted>",
      spendingPublicKey: hex(pointToBytes(this.spendingPublicKey)),
      viewingPublicKey: hex(pointToBytes(this.viewingPublicKey)),
      addrF: fieldToHex(this.addrF),
      acctF: fieldToHex(this.acctF)
    }
  }

  toString() {
    return `ConfidentialKeys ${JSON.stringify(this.toJSON())}`
  }

  // node:util's inspect hook, named through the symbol registry so nothing here imports node:.
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return this.toString()
  }
}
