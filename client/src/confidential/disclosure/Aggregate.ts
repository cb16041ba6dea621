// The aggregate disclosures (SELECTIVE_DISCLOSURE.md §10) at one of AGGREGATE_SIZES: the total the listed events paid
// the holder (disclose_recipient_<n>) or paid one recipient from the holder (disclose_sender_<n>), at least a
// threshold the recipient names (0 for none), sealed under δ_disc_bind. Unused slots are all zero; each event appears
// once (the circuits refuse a repeated R_e, which would count one payment twice).
import { InvalidWitness } from "../Errors.ts"
import { decryptTransfer, type TransferCiphertext } from "../crypto/Decrypt.ts"
import { deriveEphemeralScalar } from "../crypto/EphemeralScalar.ts"
import { AMOUNT_LIMIT } from "../crypto/Field.ts"
import type { GrumpkinPoint } from "../crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"
import type { RandomSource } from "../crypto/Scalar.ts"
import type { AggregateSize } from "./DisclosureCircuits.ts"
import { DISCLOSURE_BIND } from "./Domain.ts"
import { type DisclosureWitness, eventFields, eventInput, hex, named, sealFields, xy } from "./Inputs.ts"
import { type DisclosureRequest, drawDisclosureScalar, seal } from "./Seal.ts"
import { sentAmount } from "./Sender.ts"

interface AggregateDisclosure {
  readonly keys: ConfidentialKeys
  readonly events: ReadonlyArray<TransferCiphertext>
  readonly size: AggregateSize
  /** V_threshold: the proof also says the total is at least this (THRESH); 0 says nothing more. */
  readonly threshold?: bigint
  readonly request: DisclosureRequest
  readonly rDisc?: bigint
  readonly random?: RandomSource
}

export interface ReceivedTotal extends AggregateDisclosure {}

export interface SentTotal extends AggregateDisclosure {
  /** PVK_B of the one account every listed event paid. */
  readonly recipientViewingKey: GrumpkinPoint
  /** The r_e of each event when the wallet kept them; derived from (vk, σ_E) otherwise. */
  readonly ephemerals?: ReadonlyArray<bigint>
}

const refuse = (message: string): never => {
  throw new InvalidWitness({ reason: "AmountOutOfRange", message })
}

const checkList = ({ events, size, threshold = 0n }: AggregateDisclosure, amounts: ReadonlyArray<bigint>) => {
  if (events.length === 0 || events.length > size) refuse(`an aggregate of size ${size} takes 1 to ${size} events`)
  const keys = new Set(events.map((e) => e.ephemeralKey.toAffine().x))
  if (keys.size !== events.length) refuse("an event is listed twice")
  if (threshold < 0n || threshold >= AMOUNT_LIMIT) refuse("the threshold is outside [0, 2^127)")
  const total = amounts.reduce((sum, v) => sum + v, 0n)
  if (total < threshold) refuse("the total is below the threshold")
  return { total, threshold }
}

/** Common head and tail around the slot list: addr_f, PVK_A, events…, [PVK_B], V_threshold, P_R, ν, R_disc, ṽ_disc. */
const build = (
  d: AggregateDisclosure,
  amounts: ReadonlyArray<bigint>,
  middle: ReadonlyArray<bigint>,
  privates: (slots: ReadonlyArray<number>) => Readonly<Record<string, string | ReadonlyArray<string>>>
): DisclosureWitness => {
  const { keys, request, size } = d
  const { total, threshold } = checkList(d, amounts)
  const scalar = drawDisclosureScalar(d.rDisc, d.random)
  const sealed = seal(DISCLOSURE_BIND, total, scalar, request)
  const slots = Array.from({ length: size }, (_, i) => i)
  const events = slots.map((i) => eventFields(d.events[i]))
  const head = [keys.addrF, ...xy(keys.viewingPublicKey)]
  const tail = [threshold, ...xy(request.recipientKey), request.nonce, ...sealFields(sealed)]
  const tailNames = ["v_threshold", "p_r_x", "p_r_y", "nu", "r_disc_x", "r_disc_y", "v_tilde_disc"]
  return {
    inputs: {
      sk_a: hex(keys.sk),
      vk_a: hex(keys.vk),
      ...privates(slots),
      v_tx: slots.map((i) => hex(amounts[i] ?? 0n)),
      r_disc: hex(scalar),
      ...named(["addr_f", "pvk_a_x", "pvk_a_y"], head),
      events: events.map(eventInput),
      ...named(middle.length === 0 ? [] : ["pvk_b_x", "pvk_b_y"], middle),
      ...named(tailNames, tail)
    },
    publicInputs: [...head, ...events.flat(), ...middle, ...tail],
    value: total,
    sealed
  }
}

/** disclose_recipient_<size>: fails with DecryptionFailed when an event was not paid to these keys. */
export const discloseReceivedTotalWitness = (d: ReceivedTotal): DisclosureWitness =>
  build(d, d.events.map((event) => decryptTransfer(d.keys, event).amount), [], () => ({}))

/** disclose_sender_<size>: every event from these keys to `recipientViewingKey`. */
export const discloseSentTotalWitness = (d: SentTotal): DisclosureWitness => {
  const ephemerals = d.events.map((event, i) => d.ephemerals?.[i] ?? deriveEphemeralScalar(d.keys.vk, event.sigma))
  const amounts = d.events.map((event, i) => sentAmount(event, d.recipientViewingKey, ephemerals[i]!))
  return build(d, amounts, xy(d.recipientViewingKey), (slots) => ({ r_e: slots.map((i) => hex(ephemerals[i] ?? 0n)) }))
}
