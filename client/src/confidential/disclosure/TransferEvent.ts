// A transfer-family event as a disclosure reads it (SELECTIVE_DISCLOSURE.md §5.3 step 1): the addresses in its topics
// and, from its data map, R_e, σ_E (σ of a `transfer`, σ_a of a `spender_transfer`), ṽ and the two auditor channels'
// amount ciphertexts — soroban-sdk's `#[contractevent]` encoding of mod.rs's structs at 8af46e2c, the one
// state/ArchiveEvents.ts reads. The same decoder serves the verifier (events from getTransaction) and the holder
// (events from the service's archive).
import { scValToNative, xdr } from "@stellar/stellar-sdk"
import type { TransferCiphertext } from "../crypto/Decrypt.ts"
import { fieldFromBytes } from "../crypto/Field.ts"
import { pointFromBytes } from "../crypto/Grumpkin.ts"
import type { EventRef } from "./Exchange.ts"

export interface TransferEvent {
  readonly ref: EventRef
  readonly type: "transfer" | "spender_transfer"
  /** The originator: `from` of a transfer, `spender` of a spender_transfer (the account whose r_e made R_e). */
  readonly originator: string
  readonly from: string
  readonly to: string
  readonly ciphertext: TransferCiphertext
  /** ṽ_aud,r and ṽ_aud,s. */
  readonly auditorRecipient: bigint
  readonly auditorSender: bigint
  readonly ledger: number
  /** When its ledger closed (ms since the epoch). */
  readonly closedAt: number
}

export type EventProblem = { readonly problem: "NotTransfer"; readonly name: string } | { readonly problem: "Malformed"; readonly reason: string }

/** The event's transfer fields, or why it has none (another event type, or fields that do not decode). */
export const decodeTransferEvent = (
  topics: ReadonlyArray<xdr.ScVal>,
  data: xdr.ScVal,
  at: { readonly ref: EventRef; readonly ledger: number; readonly closedAt: number }
): TransferEvent | EventProblem => {
  try {
    const [name, ...addresses] = topics.map((t) => scValToNative(t) as unknown)
    if (name !== "transfer" && name !== "spender_transfer") return { problem: "NotTransfer", name: typeof name === "string" ? name : "?" }
    const fields = new Map(Object.entries((scValToNative(data) ?? {}) as Record<string, unknown>))
    const bytes = (field: string, length: number) => {
      const b = fields.get(field)
      if (!(b instanceof Uint8Array) || b.length !== length) throw new Error(`${field} is not ${length} bytes`)
      return new Uint8Array(b)
    }
    const address = (i: number) => {
      const a = addresses[i]
      if (typeof a !== "string") throw new Error(`topic ${i + 1} is not an address`)
      return a
    }
    const spender = name === "spender_transfer"
    const ciphertext: TransferCiphertext = {
      ephemeralKey: pointFromBytes(bytes("r_e_point", 64), "R_e"),
      vTilde: fieldFromBytes(bytes("v_tilde", 32)),
      sigma: fieldFromBytes(bytes(spender ? "sigma_a" : "sigma", 32))
    }
    return {
      ...at,
      type: name,
      originator: address(0),
      from: spender ? address(1) : address(0),
      to: spender ? address(2) : address(1),
      ciphertext,
      auditorRecipient: fieldFromBytes(bytes("v_tilde_aud_r", 32)),
      auditorSender: fieldFromBytes(bytes("v_tilde_aud_s", 32))
    }
  } catch (error) {
    return { problem: "Malformed", reason: error instanceof Error ? error.message : "its fields do not decode" }
  }
}

export const isTransferEvent = (e: TransferEvent | EventProblem): e is TransferEvent => !("problem" in e)

/** The ScVals of an archived event (base64 XDR, as the service's archive keeps them). */
export const fromArchived = (topics: ReadonlyArray<string>, value: string) => ({
  topics: topics.map((t) => xdr.ScVal.fromXDR(t, "base64")),
  data: xdr.ScVal.fromXDR(value, "base64")
})
