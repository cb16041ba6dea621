// Wallet state at rest, sealed: AES-256-GCM through WebCrypto (Node and browsers alike), under a key derived from the
// signer's confidential spending key sk. This project's own construction (OZ's docs leave storage to the wallet):
//
//   key   = HKDF-SHA-256(ikm = sk as 32 bytes big-endian, salt = "confidential-payroll/wallet-state/v1",
//                        info = account ‖ 0x00 ‖ contract, 32 bytes)
//   bytes = 0x01 ‖ nonce (12 random bytes) ‖ AES-256-GCM(key, nonce, aad = 0x01 ‖ account ‖ 0x00 ‖ contract, plaintext)
//
// The key is per account and contract, and both are also bound as associated data: state of another account, another
// token, a wrong key or any altered byte fails to open, as SealedStateInvalid. The plaintext is JSON (values and
// blindings in decimal); only the sealer reads the openings' fields (Opening.ts redacts them everywhere else).
import { numberToBytesBE } from "@noble/curves/utils.js"
import { hkdf } from "@noble/hashes/hkdf.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { Either, Schema } from "effect"
import { Opening, type WalletState } from "./Opening.ts"
import { SealedStateInvalid } from "./StateErrors.ts"

/** The HKDF salt of the wallet-state key: this project's domain string, versioned. */
export const WALLET_STATE_DOMAIN = "confidential-payroll/wallet-state/v1"

const FORMAT = 1
const NONCE_BYTES = 12

const OpeningJson = Schema.Struct({ value: Schema.BigInt, blinding: Schema.BigInt })
const StateJson = Schema.Struct({
  spendable: OpeningJson,
  receiving: OpeningJson,
  cursor: Schema.NullOr(Schema.Struct({ ledger: Schema.Int, id: Schema.String })),
  pending: Schema.Array(Schema.Struct({
    commitment: Schema.Uint8ArrayFromHex,
    opening: OpeningJson,
    basedOn: Schema.Uint8ArrayFromHex,
    txHash: Schema.String,
    validUntilLedger: Schema.Int
  }))
})
const encodeJson = Schema.encodeSync(Schema.parseJson(StateJson))
const decodeJson = Schema.decodeUnknownEither(Schema.parseJson(StateJson))

const separated = (account: string, contract: string) => concatBytes(utf8ToBytes(account), Uint8Array.of(0), utf8ToBytes(contract))

/** The 32-byte wallet-state key of `account` on `contract`, from the spending key `sk` (a scalar or its 32 bytes). */
export const deriveStateKey = (sk: bigint | Uint8Array, account: string, contract: string): Uint8Array => {
  const ikm = typeof sk === "bigint" ? numberToBytesBE(sk, 32) : sk
  if (ikm.length !== 32) throw new RangeError("the spending key must be 32 bytes")
  return hkdf(sha256, ikm, utf8ToBytes(WALLET_STATE_DOMAIN), separated(account, contract), 32)
}

/** Seals and opens one account's wallet state on one token. */
export interface Sealer {
  readonly account: string
  readonly contract: string
  seal(state: WalletState): Promise<Uint8Array>
  /** Rejects with SealedStateInvalid when the bytes do not open to a wallet state. */
  unseal(bytes: Uint8Array): Promise<WalletState>
}

const plain = (o: Opening) => ({ value: o.value, blinding: o.blinding })

/** A sealer whose AES key is imported non-extractable; the derived key bytes are zeroed once imported. */
export const makeSealer = async (sk: bigint | Uint8Array, account: string, contract: string): Promise<Sealer> => {
  const raw = deriveStateKey(sk, account, contract)
  // (The DOM's typing asks for a view over an ArrayBuffer, never a SharedArrayBuffer; deriveStateKey makes a fresh one.)
  const key = await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "AES-GCM" }, false, ["encrypt", "decrypt"])
  raw.fill(0)
  const aad = concatBytes(Uint8Array.of(FORMAT), separated(account, contract))
  const invalid = (problem: SealedStateInvalid["problem"]) => new SealedStateInvalid({ problem })

  return {
    account,
    contract,
    seal: async (state) => {
      if (state.account !== account || state.contract !== contract) {
        throw new RangeError("this sealer is for another account or contract")
      }
      const text = encodeJson({
        spendable: plain(state.spendable),
        receiving: plain(state.receiving),
        cursor: state.cursor ?? null,
        pending: state.pending.map((p) => ({ ...p, opening: plain(p.opening) }))
      })
      const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES))
      const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: aad }, key, utf8ToBytes(text))
      return concatBytes(Uint8Array.of(FORMAT), nonce, new Uint8Array(sealed))
    },
    unseal: async (bytes) => {
      if (bytes.length < 1 + NONCE_BYTES + 16) throw invalid("wrong-key-or-altered")
      if (bytes[0] !== FORMAT) throw invalid("unknown-format")
      const nonce = bytes.slice(1, 1 + NONCE_BYTES)
      let opened: ArrayBuffer
      try {
        opened = await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce, additionalData: aad }, key, bytes.slice(1 + NONCE_BYTES))
      } catch {
        throw invalid("wrong-key-or-altered")
      }
      const decoded = decodeJson(new TextDecoder("utf-8", { fatal: true }).decode(opened))
      if (Either.isLeft(decoded)) throw invalid("malformed")
      const s = decoded.right
      const opening = (o: typeof OpeningJson.Type) => new Opening(o.value, o.blinding)
      return {
        account,
        contract,
        spendable: opening(s.spendable),
        receiving: opening(s.receiving),
        cursor: s.cursor ?? undefined,
        pending: s.pending.map((p) => ({ ...p, opening: opening(p.opening) }))
      }
    }
  }
}
