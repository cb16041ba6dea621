// The organization's escrow key (issue 36 §2): an auditor key pair in OpenZeppelin's form (DESIGN_cont.md §8 at
// 8af46e2c: Grumpkin, K_aud = k·H), derived from the wallet of a member with `org:manage`, so that it can be derived
// again. The member signs, with SEP-53, the message
//   "confidential-payroll/escrow-key/v1" ‖ "\n" ‖ organization id ‖ "\n" ‖ account (G…) ‖ "\n" ‖ "v" ‖ version
// (asked twice and compared, as every signer root: KeyDerivation.ts withSignerRoot); then
//   k = RS(HKDF-SHA-512(IKM = signature, salt = label, info = "grumpkin auditor scalar" ‖ be32(version) ‖ le4(j)))
// with RS the rejection sampling of DESIGN.md §2.2 (Scalar.ts candidateScalar, nonzero), j the first counter accepted.
// A rotation signs the next version.
import { numberToBytesBE, numberToBytesLE } from "@noble/curves/utils.js"
import { hkdf } from "@noble/hashes/hkdf.js"
import { sha512 } from "@noble/hashes/sha2.js"
import { KeyDerivationFailed } from "../confidential/Errors.ts"
import { type GrumpkinPoint, H, pointToBytes, scalarMul } from "../confidential/crypto/Grumpkin.ts"
import { type MessageSigner, withSignerRoot } from "../confidential/crypto/KeyDerivation.ts"
import { candidateScalar } from "../confidential/crypto/Scalar.ts"

export const ESCROW_KEY_LABEL = "confidential-payroll/escrow-key/v1"
const INFO = "grumpkin auditor scalar"
const MAX_COUNTER = 256

const utf8 = (text: string) => new TextEncoder().encode(text)

/** The SEP-53 message the member signs for version `version` of their organization's escrow key. */
export const escrowKeyMessage = (organizationId: string, account: string, version: number): string => {
  if (organizationId.length === 0 || /[\n\r]/.test(organizationId)) {
    throw new KeyDerivationFailed({ reason: "RootMalformed", message: "the organization id is empty or spans lines" })
  }
  if (!Number.isInteger(version) || version < 1) throw new KeyDerivationFailed({ reason: "RootMalformed", message: "a version is a whole number from 1" })
  return `${ESCROW_KEY_LABEL}\n${organizationId}\n${account}\nv${version}`
}

/** The 128 lowercase hex characters of a point as the registry stores it (x ‖ y, big-endian) and the service keeps it. */
export const pointHex = (point: GrumpkinPoint): string => Array.from(pointToBytes(point), (b) => b.toString(16).padStart(2, "0")).join("")

/** An escrow key pair: k and K = k·H. */
export class EscrowKeyPair {
  readonly secret: bigint
  readonly point: GrumpkinPoint
  readonly version: number
  constructor(secret: bigint, version: number) {
    this.secret = secret
    this.point = scalarMul(secret, H)
    this.version = version
  }
  get pointHex(): string {
    return pointHex(this.point)
  }
  /** The registry's `BytesN<64>`. */
  get pointBytes(): Uint8Array {
    return pointToBytes(this.point)
  }
}

/** k from a signature (the root): the first HKDF candidate in [1, r). */
export const escrowSecretFromRoot = (root: Uint8Array, version: number): bigint => {
  for (let j = 0; j < MAX_COUNTER; j++) {
    const info = new Uint8Array([...utf8(INFO), ...numberToBytesBE(version, 4), ...numberToBytesLE(j, 4)])
    const okm = hkdf(sha512, root, utf8(ESCROW_KEY_LABEL), info, 32)
    const k = candidateScalar(okm, true)
    okm.fill(0)
    if (k !== undefined) return k
  }
  throw new KeyDerivationFailed({ reason: "Exhausted", message: "no escrow secret candidate was accepted" })
}

export interface EscrowKeyOptions {
  readonly signer: MessageSigner
  /** The member's account (G…), which signs. */
  readonly account: string
  readonly organizationId: string
  readonly version: number
  readonly networkPassphrase?: string
  /** The point on file (hex), when re-deriving: one signature instead of two when it comes out the same. */
  readonly published?: string
}

/** Signs the escrow-key message (twice, compared and verified) and derives the pair; the signature is forgotten. */
export const deriveEscrowKey = async (options: EscrowKeyOptions): Promise<EscrowKeyPair> =>
  await withSignerRoot(
    {
      signer: options.signer,
      signerKey: options.account,
      networkPassphrase: options.networkPassphrase,
      what: "an escrow key",
      reproduces: options.published === undefined ? undefined : (pair) => pair.pointHex === options.published
    },
    escrowKeyMessage(options.organizationId, options.account, options.version),
    (root) => new EscrowKeyPair(escrowSecretFromRoot(root, options.version), options.version)
  )
