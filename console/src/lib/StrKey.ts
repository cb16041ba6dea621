/**
 * The two checks of `@stellar/stellar-sdk`'s `StrKey` the contract's schemas make (src/Domain/Stellar.ts), for the
 * browser: the console's build resolves `@stellar/stellar-sdk` here (vite.config.ts), so that the contract's address
 * schemas do not bring the whole SDK (and Node's Buffer) into the page. test/unit/console-strkey.test.ts holds both
 * to the SDK's answers.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** SEP-23 version bytes: `G…` accounts and `C…` contracts. */
const ED25519_PUBLIC_KEY = 6 << 3
const CONTRACT = 2 << 3

/** A 56-character key is 35 bytes exactly: a version byte, 32 bytes of key, a 2-byte checksum. */
const decode = (encoded: string): Uint8Array | undefined => {
  if (encoded.length !== 56) return undefined
  const bytes = new Uint8Array(35)
  let buffer = 0
  let bits = 0
  let at = 0
  for (const char of encoded) {
    const value = ALPHABET.indexOf(char)
    if (value === -1) return undefined
    buffer = (buffer << 5) | value
    bits += 5
    if (bits >= 8) {
      bits -= 8
      bytes[at++] = (buffer >> bits) & 0xff
    }
  }
  return bytes
}

/** CRC16-XModem, as stellar-base's `util/checksum` computes it. */
const crc16 = (bytes: Uint8Array) => {
  let crc = 0
  for (const byte of bytes) {
    let code = (crc >>> 8) & 0xff
    code ^= byte
    code ^= code >>> 4
    crc = (crc << 8) & 0xffff
    crc ^= code
    code = (code << 5) & 0xffff
    crc ^= code
    code = (code << 7) & 0xffff
    crc ^= code
  }
  return crc
}

const isValid = (version: number, encoded: unknown) => {
  if (typeof encoded !== "string") return false
  const bytes = decode(encoded)
  if (bytes === undefined || bytes[0] !== version) return false
  const crc = crc16(bytes.subarray(0, 33))
  return bytes[33] === (crc & 0xff) && bytes[34] === crc >>> 8
}

export const StrKey = {
  isValidEd25519PublicKey: (encoded: unknown) => isValid(ED25519_PUBLIC_KEY, encoded),
  isValidContract: (encoded: unknown) => isValid(CONTRACT, encoded)
}
