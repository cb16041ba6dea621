// The holder's answer to a disclosure request (SELECTIVE_DISCLOSURE.md §12 steps 2-4): the events the request asks
// about, the witness of the variant, a proof (in Node with proving/Prover.ts, in a page with the prover worker) and
// the bundle of §5.2 — nothing else leaves the holder. Browser-safe.
import type { InputMap } from "@noir-lang/noir_js"
import { Effect } from "effect"
import { deriveEphemeralScalar } from "../crypto/EphemeralScalar.ts"
import { type GrumpkinPoint, pointFromBytes, pointToBytes } from "../crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"
import type { RandomSource } from "../crypto/Scalar.ts"
import { fieldToBytes } from "../crypto/Field.ts"
import { type CrsMissing, DecryptionFailed, InvalidWitness, ProofFailed } from "../Errors.ts"
import type { Proof } from "../proving/Prover.ts"
import { discloseReceivedTotalWitness, discloseSentTotalWitness } from "./Aggregate.ts"
import { type AuditorChannel, discloseAuditorWitness } from "./Auditor.ts"
import type { DisclosureCircuitName } from "./DisclosureCircuits.ts"
import { base64Of, type Bundle, BUNDLE_VERSION, type CircuitId, type DisclosureRequestFile, fieldHex, hexOf } from "./Exchange.ts"
import type { DisclosureWitness } from "./Inputs.ts"
import { sealTarget } from "./RecipientKey.ts"
import { discloseRecipientWitness } from "./Recipient.ts"
import { discloseSenderWitness } from "./Sender.ts"
import type { TransferEvent } from "./TransferEvent.ts"
import { aggregateId, VARIANTS } from "./Variants.ts"

/** Proves one disclosure circuit: Prover.prove over a loaded circuit, or a worker's ProverClient.prove. */
export type ProveDisclosure = (circuit: DisclosureCircuitName, inputs: InputMap) => Effect.Effect<Proof, ProofFailed | CrsMissing>

/** The events a request asks `account` about, among its own: the one referenced, or a counterparty's in the period. */
export const matchingEvents = (request: DisclosureRequestFile, account: string, events: ReadonlyArray<TransferEvent>): ReadonlyArray<TransferEvent> => {
  const { ask } = request
  if (ask.kind === "event") return events.filter((e) => e.ref.txHash === ask.ref.txHash && e.ref.eventIndex === ask.ref.eventIndex)
  const [start, end] = [Date.parse(ask.period.start), Date.parse(ask.period.end)]
  const inPeriod = (e: TransferEvent) => e.closedAt >= start && e.closedAt < end
  return ask.kind === "received-total"
    ? events.filter((e) => inPeriod(e) && e.originator === ask.from && e.to === account)
    : events.filter((e) => inPeriod(e) && e.originator === account && e.to === ask.to)
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

const build = (circuitId: CircuitId, events: ReadonlyArray<TransferEvent>, prove: ProveDisclosure, make: () => DisclosureWitness) =>
  Effect.gen(function* () {
    const witness = yield* Effect.try({
      try: make,
      // The builders throw the client's typed errors (InvalidWitness, DecryptionFailed: not this holder's payout).
      catch: (e) => (e instanceof InvalidWitness || e instanceof DecryptionFailed ? e : new InvalidWitness({ reason: "AmountOutOfRange", message: String(e) }))
    })
    const circuit = VARIANTS[circuitId].circuit
    const proof = yield* prove(circuit, witness.inputs)
    const expected = Uint8Array.from(witness.publicInputs.flatMap((v) => [...fieldToBytes(v)]))
    if (!sameBytes(proof.publicInputs, expected)) {
      return yield* new ProofFailed({ circuit, message: `the ${circuit} proof's public inputs are not the ones a verifier rebuilds` })
    }
    const [first, ...rest] = events.map((e) => e.ref)
    return {
      version: BUNDLE_VERSION,
      circuitId,
      refs: [first!, ...rest],
      proof: base64Of(proof.proof),
      rDisc: hexOf(pointToBytes(witness.sealed.rDisc)),
      vDisc: fieldHex(witness.sealed.vTildeDisc)
    } satisfies Bundle
  })

/** PVK_B of the payee: a point, or the 64 bytes `confidential_balance` gives (ChainReader.account(to).viewingPublicKey). */
export type PayeeKey = GrumpkinPoint | Uint8Array
const point = (key: PayeeKey): GrumpkinPoint => (key instanceof Uint8Array ? pointFromBytes(key, "payee viewing key") : key)

interface Common {
  readonly request: DisclosureRequestFile
  readonly prove: ProveDisclosure
  readonly random?: RandomSource
}

/** D-recipient: "this payout paid me v". */
export const discloseReceived = (d: Common & { readonly keys: ConfidentialKeys; readonly event: TransferEvent }) =>
  build("disclose_recipient", [d.event], d.prove, () =>
    discloseRecipientWitness({ keys: d.keys, event: d.event.ciphertext, request: sealTarget(d.request), ...random(d) }))

/** D-sender: "this payout of mine paid that account v"; `ephemeral` for a payout made before r_e was derived (its sealed receipt's). */
export const discloseSent = (d: Common & { readonly keys: ConfidentialKeys; readonly event: TransferEvent; readonly recipientViewingKey: PayeeKey; readonly ephemeral?: bigint }) =>
  build("disclose_sender", [d.event], d.prove, () =>
    discloseSenderWitness({
      keys: d.keys, event: d.event.ciphertext, recipientViewingKey: point(d.recipientViewingKey), request: sealTarget(d.request),
      ...(d.ephemeral === undefined ? {} : { ephemeral: d.ephemeral }), ...random(d)
    }))

/** D-auditor: "this payout's channel carries v", with the auditor's secret (the organization's escrowed key). */
export const discloseAuditor = (d: Common & { readonly auditorSecret: bigint; readonly channel: AuditorChannel; readonly event: TransferEvent }) =>
  build(d.channel === "sender" ? "disclose_auditor_sender" : "disclose_auditor_recipient", [d.event], d.prove, () =>
    discloseAuditorWitness({
      auditorSecret: d.auditorSecret, channel: d.channel, request: sealTarget(d.request), ...random(d),
      event: { ephemeralKey: d.event.ciphertext.ephemeralKey, sigma: d.event.ciphertext.sigma, vTildeAud: d.channel === "sender" ? d.event.auditorSender : d.event.auditorRecipient }
    }))

const sizeFor = (role: "recipient" | "sender", events: ReadonlyArray<TransferEvent>) => {
  const id = aggregateId(role, events.length)
  if (id === undefined || events.length === 0) {
    throw new InvalidWitness({ reason: "AmountOutOfRange", message: `an aggregate takes 1 to 24 payouts; ${events.length} match (split the period)` })
  }
  return { id, size: VARIANTS[id].slots as 8 | 24 }
}

/** The aggregate D-recipient: the total `events` paid the holder, at the smallest size that holds them. */
export const discloseReceivedTotal = (d: Common & { readonly keys: ConfidentialKeys; readonly events: ReadonlyArray<TransferEvent> }) =>
  Effect.flatMap(Effect.try({ try: () => sizeFor("recipient", d.events), catch: (e) => e as InvalidWitness }), ({ id, size }) =>
    build(id, d.events, d.prove, () =>
      discloseReceivedTotalWitness({ keys: d.keys, events: d.events.map((e) => e.ciphertext), size, request: sealTarget(d.request), ...random(d) })))

/** The aggregate D-sender: the total the holder paid one account over `events`. */
export const discloseSentTotal = (d: Common & {
  readonly keys: ConfidentialKeys
  readonly events: ReadonlyArray<TransferEvent>
  readonly recipientViewingKey: PayeeKey
  readonly ephemerals?: ReadonlyArray<bigint | undefined>
}) =>
  Effect.flatMap(Effect.try({ try: () => sizeFor("sender", d.events), catch: (e) => e as InvalidWitness }), ({ id, size }) =>
    build(id, d.events, d.prove, () =>
      discloseSentTotalWitness({
        keys: d.keys, events: d.events.map((e) => e.ciphertext), size, recipientViewingKey: point(d.recipientViewingKey), request: sealTarget(d.request),
        ...(d.ephemerals === undefined ? {} : { ephemerals: d.events.map((e, i) => d.ephemerals?.[i] ?? deriveEphemeralScalar(d.keys.vk, e.ciphertext.sigma)) }),
        ...random(d)
      })))

const random = (d: Common) => (d.random === undefined ? {} : { random: d.random })
