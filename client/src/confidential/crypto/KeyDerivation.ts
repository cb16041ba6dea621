// sk from a root (OZ SDK.md §5, OpenZeppelin/stellar-contracts docs/sdk/key-derivation.md; 8af46e2c fixes only what lies below sk):
//   sk = RS(HKDF-SHA-512(IKM = root, salt = "openzeppelin/confidential-token/v1/sk",
//                        info = be32(addr_f) ‖ be32(acct_f) ‖ le4(j)))
// RS clears the top 2 bits of the 32-byte output (big-endian, as DESIGN.md §2.2 samples), accepts [1, r) with
// vk != 0, and otherwise retries with j + 1. The root is a SEP-53 signature (§5.2) or a raw 32-byte value (§5.3).
import { equalBytes, numberToBytesBE, numberToBytesLE } from "@noble/curves/utils.js"
import { hkdf } from "@noble/hashes/hkdf.js"
import { sha512 } from "@noble/hashes/sha2.js"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { KeyDerivationFailed, SignerNotDeterministic } from "../Errors.ts"
import { addressToField } from "./AddressField.ts"
import { pointToBytes } from "./Grumpkin.ts"
import { ConfidentialKeys } from "./Keys.ts"
import { vkFromSk } from "./Primitives.ts"
import { candidateScalar } from "./Scalar.ts"

export const KEY_LABEL = "openzeppelin/confidential-token/v1/sk"

// Each retry has probability about 1/4; this many in a row cannot happen for an honest HKDF.
const MAX_COUNTER = 256

/** The SEP-53 message a signer root signs: label ‖ 0x0a ‖ contract strkey ‖ 0x0a ‖ account strkey (151 bytes). */
export const rootMessage = (contract: string, account: string): string => `${KEY_LABEL}\n${contract}\n${account}`

/** §5.1: the first HKDF candidate in [1, r) whose vk is nonzero. */
export const deriveSk = (root: Uint8Array, addrF: bigint, acctF: bigint): bigint => {
  const salt = new TextEncoder().encode(KEY_LABEL)
  const fields = new Uint8Array([...numberToBytesBE(addrF, 32), ...numberToBytesBE(acctF, 32)])
  for (let j = 0; j < MAX_COUNTER; j++) {
    const info = new Uint8Array([...fields, ...numberToBytesLE(j, 4)])
    const okm = hkdf(sha512, root, salt, info, 32)
    const sk = candidateScalar(okm, true)
    okm.fill(0)
    if (sk !== undefined && vkFromSk(sk, addrF) !== 0n) return sk
  }
  throw new KeyDerivationFailed({ reason: "Exhausted", message: "no sk candidate was accepted" })
}

export interface Deployment {
  /** The confidential token contract (C…). */
  readonly contract: string
  /** The account the keys are for (G… or C…). */
  readonly account: string
}

/** §5.3: a raw 32-byte root, for addresses without an ed25519 signer of their own. */
export const keysFromRawRoot = (root: Uint8Array, { account, contract }: Deployment): ConfidentialKeys => {
  if (root.length !== 32) throw new KeyDerivationFailed({ reason: "RootMalformed", message: "a raw root is 32 bytes" })
  const addrF = addressToField(contract)
  const acctF = addressToField(account)
  return new ConfidentialKeys(deriveSk(root, addrF, acctF), addrF, acctF)
}

/** §5.3 "imported keys": an sk with no root behind it. */
export const keysFromSk = (sk: bigint, { account, contract }: Deployment): ConfidentialKeys =>
  new ConfidentialKeys(sk, addressToField(contract), addressToField(account))

/**
 * What a Freighter-style wallet answers to signMessage (@stellar/freighter-api 6 signMessage.d.ts): the signature as
 * base64 (v4) or bytes (v3's Buffer), or null with an error.
 */
export interface SignedMessage {
  readonly signedMessage: string | Uint8Array | null
  readonly signerAddress: string
  readonly error?: { readonly message: string } | undefined
}

export interface MessageSigner {
  signMessage(message: string, opts: { address: string; networkPassphrase?: string }): Promise<SignedMessage>
}

export interface SignerRootOptions extends Deployment {
  readonly signer: MessageSigner
  /** The ed25519 key (G…) expected to sign; defaults to the account, which must then be a G… address (§5.2). */
  readonly signerKey?: string
  readonly networkPassphrase?: string
  /**
   * The public keys the account registered with (`confidential_balance`'s, x‖y 64 bytes each), when it has: keys that
   * come out equal to them prove the signer deterministic with one signature instead of two (withSignerRoot).
   */
  readonly registered?: { readonly spendingPublicKey: Uint8Array; readonly viewingPublicKey: Uint8Array }
}

const refused = () => new KeyDerivationFailed({ reason: "SignerRefused", message: "the signer gave no signature" })
const malformed = () => new KeyDerivationFailed({ reason: "SignatureMalformed", message: "the signature is not 64 bytes" })

const signatureBytes = (signed: string | Uint8Array): Uint8Array => {
  if (typeof signed !== "string") {
    if (signed.length !== 64) throw malformed()
    return Uint8Array.from(signed)
  }
  if (!/^[A-Za-z0-9+/]{86}==$/.test(signed)) throw malformed()
  return Uint8Array.from(atob(signed), (c) => c.charCodeAt(0))
}

/**
 * A signer's deterministic signature of `message`, as a root (SDK.md §5.2): asked twice (independent calls must agree,
 * or the root would not reproduce), verified against the expected ed25519 key before use, handed to `use` and zeroed
 * afterwards. `what` names the purpose in the refusal of a non-ed25519 signer. The sealing key (client/src/sealing/)
 * derives from a signature the same way.
 *
 * `reproduces`, when the caller holds what an earlier signature derived (the keys registered on chain, a published
 * sealing key), saves the second request: a first signature whose result `reproduces` accepts has come out the same
 * as before, which is what asking twice checks. Any other result asks again and compares, as without it.
 */
export const withSignerRoot = async <A>(
  options: {
    readonly signer: MessageSigner
    readonly signerKey: string
    readonly networkPassphrase?: string | undefined
    readonly what: string
    readonly reproduces?: ((derived: A) => boolean) | undefined
  },
  message: string,
  use: (root: Uint8Array) => A | Promise<A>
): Promise<A> => {
  const { signer, signerKey, networkPassphrase } = options
  if (!StrKey.isValidEd25519PublicKey(signerKey)) {
    throw new KeyDerivationFailed({ reason: "NoSignerKey", message: `${options.what} needs an ed25519 (G…) signer` })
  }
  const opts = networkPassphrase === undefined ? { address: signerKey } : { address: signerKey, networkPassphrase }
  const ask = async (): Promise<Uint8Array> => {
    let answer: SignedMessage
    try {
      answer = await signer.signMessage(message, opts)
    } catch {
      throw refused()
    }
    if (answer.error !== undefined || answer.signedMessage === null) throw refused()
    return signatureBytes(answer.signedMessage)
  }
  const first = await ask()
  let second: Uint8Array | undefined
  const verifies = (signature: Uint8Array) => Keypair.fromPublicKey(signerKey).verifyMessage(message, signature)
  try {
    if (options.reproduces !== undefined && verifies(first)) {
      const derived = await use(first)
      if (options.reproduces(derived)) return derived
    }
    second = await ask()
    if (!equalBytes(first, second)) {
      throw new SignerNotDeterministic({ message: "the signer gave two different signatures for the same message" })
    }
    if (!verifies(first)) {
      throw new KeyDerivationFailed({ reason: "SignatureInvalid", message: "the signature is not by the expected key" })
    }
    return await use(first)
  } finally {
    first.fill(0)
    second?.fill(0)
  }
}

/** §5.2: the keys from the signer's root over the §5.2 message, the signature forgotten once derived. */
export const keysFromSigner = async (options: SignerRootOptions): Promise<ConfidentialKeys> => {
  const { account, contract, registered } = options
  return await withSignerRoot(
    {
      signer: options.signer,
      signerKey: options.signerKey ?? account,
      networkPassphrase: options.networkPassphrase,
      what: "a signer root",
      reproduces: registered === undefined
        ? undefined
        : (keys) => equalBytes(pointToBytes(keys.spendingPublicKey), registered.spendingPublicKey) && equalBytes(pointToBytes(keys.viewingPublicKey), registered.viewingPublicKey)
    },
    rootMessage(contract, account),
    (root) => {
      const addrF = addressToField(contract)
      const acctF = addressToField(account)
      return new ConfidentialKeys(deriveSk(root, addrF, acctF), addrF, acctF)
    }
  )
}
