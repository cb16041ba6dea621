// The disclosure verifier (SELECTIVE_DISCLOSURE.md §5.3, §15.3): given a bundle for a request this verifier issued,
// the six steps in order — the events by reference, the accounts' PVK, addr_f and the auditor key, the public inputs
// built from those and the verifier's own (P_R, ν), UltraHonk under the committed key of circuit_id, the seal opened
// with r_R — and the disclosed value, or a typed error naming the failed step. Nothing but R_disc and ṽ_disc is taken
// from the bundle; P_R and ν come from the stored request, and a nonce answered before is a replay. Browser-safe.
import type { rpc } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { addressToField } from "../crypto/AddressField.ts"
import { AMOUNT_LIMIT, fieldToBytes } from "../crypto/Field.ts"
import { pointFromBytes, pointToBytes } from "../crypto/Grumpkin.ts"
import type { ProofFailed } from "../Errors.ts"
import { PROOF_BYTES, type Proof } from "../proving/Prover.ts"
import type { DisclosureCircuitName } from "./DisclosureCircuits.ts"
import { type Bundle, bytesOfBase64, bytesOfHex, type DisclosureRequestFile, fieldOfHex, hexOf } from "./Exchange.ts"
import { eventFields, xy } from "./Inputs.ts"
import type { RecipientKey } from "./RecipientKey.ts"
import { openSeal } from "./Seal.ts"
import type { TransferEvent } from "./TransferEvent.ts"
import { auditorTag, type Variant, VARIANTS } from "./Variants.ts"
import { resolveAccount, resolveAuditorKey, resolveDeployment, resolveEvent } from "./VerifyChain.ts"
import {
  DisclosureNotOpened, NonceReplayed, ProofRejected, PublicInputsUnavailable, RequestMismatch, type VerifyError
} from "./VerifyErrors.ts"

/** The nonces this verifier saw answered (kept by the verifier: a file, the browser's storage). */
export interface AnsweredNonces {
  readonly has: (nonce: string) => Promise<boolean>
  readonly add: (nonce: string) => Promise<void>
}

export const memoryNonces = (): AnsweredNonces => {
  const seen = new Set<string>()
  return { has: async (n) => seen.has(n), add: async (n) => void seen.add(n) }
}

/** UltraHonk verification of `proof` under the verifier's committed key of `circuit` (bb.js: Prover.verifyWithKey). */
export type CheckProof = (circuit: DisclosureCircuitName, proof: Proof) => Effect.Effect<boolean, ProofFailed>

export interface VerifyOptions {
  readonly server: rpc.Server
  /** The request as this verifier stored it when it issued it. */
  readonly request: DisclosureRequestFile
  /** The key pair whose P_R the request names. */
  readonly key: RecipientKey
  readonly bundle: Bundle
  readonly checkProof: CheckProof
  readonly answered: AnsweredNonces
}

export interface Disclosed {
  /** The amount, or the aggregate's total. */
  readonly value: bigint
  readonly circuitId: Bundle["circuitId"]
  /** The account that disclosed (D-recipient: the payee; D-sender: the payer), or the auditor channel's account. */
  readonly account: string
  readonly events: ReadonlyArray<Pick<TransferEvent, "ref" | "from" | "to" | "ledger" | "closedAt">>
}

const mismatch = (step: 0 | 1, message: string) => new RequestMismatch({ step, message })
const sameRef = (a: Bundle["refs"][number], b: Bundle["refs"][number]) => a.txHash === b.txHash && a.eventIndex === b.eventIndex

/** Step 0: this bundle answers this request, to this key, for the first time. */
const checkBinding = ({ request, key, bundle, answered }: VerifyOptions, variant: Variant) =>
  Effect.gen(function* () {
    if (hexOf(pointToBytes(key.publicKey)) !== request.recipientKey) return yield* mismatch(0, "the request names another recipient key than this verifier's")
    if (yield* Effect.promise(() => answered.has(request.nonce))) {
      return yield* new NonceReplayed({ step: 0, message: "this request's nonce was answered before: a bundle is accepted once" })
    }
    const { ask } = request
    const { refs } = bundle
    if (new Set(refs.map((r) => `${r.txHash}/${r.eventIndex}`)).size !== refs.length) return yield* mismatch(0, "an event is listed twice")
    if (ask.kind === "event") {
      if (variant.slots !== 1 || refs.length !== 1 || !sameRef(refs[0], ask.ref)) return yield* mismatch(0, "the bundle is not about the one event the request asks about")
    } else {
      const role = ask.kind === "received-total" ? "recipient" : "sender"
      if (variant.slots === 1 || variant.role !== role) return yield* mismatch(0, `the request asks for a total ${ask.kind === "received-total" ? "received" : "paid"}; the bundle's circuit is ${bundle.circuitId}`)
      if (refs.length > variant.slots) return yield* mismatch(0, `${bundle.circuitId} holds ${variant.slots} events; the bundle lists ${refs.length}`)
    }
  })

/** Step 1's tail: every resolved event fits the request's ask (counterparty, period) and the events share their accounts. */
const checkAsk = (request: DisclosureRequestFile, events: ReadonlyArray<TransferEvent>) =>
  Effect.gen(function* () {
    const { ask } = request
    if (ask.kind === "event") return
    const [start, end] = [Date.parse(ask.period.start), Date.parse(ask.period.end)]
    const first = events[0]!
    for (const e of events) {
      if (e.closedAt < start || e.closedAt >= end) return yield* mismatch(1, `event ${e.ref.eventIndex} of ${e.ref.txHash} is outside the requested period`)
      if (ask.kind === "received-total" && (e.originator !== ask.from || e.to !== first.to)) {
        return yield* mismatch(1, `event ${e.ref.eventIndex} of ${e.ref.txHash} is not a payment from ${ask.from} to the disclosing account`)
      }
      if (ask.kind === "sent-total" && (e.to !== ask.to || e.originator !== first.originator)) {
        return yield* mismatch(1, `event ${e.ref.eventIndex} of ${e.ref.txHash} is not a payment from the disclosing account to ${ask.to}`)
      }
    }
  })

const inputsUnavailable = (message: string) => new PublicInputsUnavailable({ step: 4, message })
const point = (bytes: Uint8Array, what: string) =>
  Effect.try({ try: () => xy(pointFromBytes(bytes, what)), catch: () => inputsUnavailable(`${what} on chain is not a Grumpkin point`) })

export const verifyBundle = (options: VerifyOptions): Effect.Effect<Disclosed, VerifyError> =>
  Effect.gen(function* () {
    const { server, request, bundle, key } = options
    const variant = VARIANTS[bundle.circuitId]
    yield* checkBinding(options, variant)

    // 1. The events, each by its reference, from the request's token.
    const events: Array<TransferEvent> = []
    for (const ref of bundle.refs) events.push(yield* resolveEvent(server, request.contract, ref))
    yield* checkAsk(request, events)
    const first = events[0]!
    const account = variant.role === "recipient" ? first.to : variant.role === "sender" ? first.originator : variant.channel === "sender" ? first.from : first.to

    // 2. The disclosing account (and D-sender's payee), as the variant and the event say.
    const holder = yield* resolveAccount(server, request.contract, request.networkPassphrase, account)
    const payee = variant.role === "sender" ? yield* resolveAccount(server, request.contract, request.networkPassphrase, first.to) : undefined

    // 3. addr_f from the token (its instance must be a confidential token's), K_aud at the event's ledger.
    const deployment = yield* resolveDeployment(server, request.contract, request.networkPassphrase)
    const addrF = addressToField(deployment.contract)
    const auditorKey = variant.role === "auditor" ? yield* resolveAuditorKey(server, deployment, holder.auditorId, first.ledger) : undefined

    // 4. The public inputs, in the circuit's order (DisclosureCircuits' manifest `publicParameters`).
    const recipient = xy(pointFromBytes(bytesOfHex(request.recipientKey)))
    const nonce = fieldOfHex(request.nonce)
    const sealed = { rDisc: pointFromBytes(bytesOfHex(bundle.rDisc)), vTildeDisc: fieldOfHex(bundle.vDisc) }
    const tail = [...recipient, nonce, ...xy(sealed.rDisc), sealed.vTildeDisc]
    const pvkA = yield* point(holder.viewingPublicKey, "the disclosing account's PVK")
    const pvkB = payee === undefined ? [] : yield* point(payee.viewingPublicKey, "the payee's PVK")
    let inputs: ReadonlyArray<bigint>
    if (variant.role === "auditor") {
      const channel = variant.channel!
      const kAud = yield* point(auditorKey!, "the auditor key")
      const vTildeAud = channel === "sender" ? first.auditorSender : first.auditorRecipient
      inputs = [auditorTag(channel), ...kAud, ...xy(first.ciphertext.ephemeralKey), first.ciphertext.sigma, vTildeAud, ...tail]
    } else if (variant.slots === 1) {
      inputs = [addrF, ...pvkA, ...eventFields(first.ciphertext), ...pvkB, ...tail]
    } else {
      const slots = Array.from({ length: variant.slots }, (_, i) => eventFields(events[i]?.ciphertext)).flat()
      // V_threshold: this verifier asks for the total itself, so it claims no threshold.
      inputs = [addrF, ...pvkA, ...slots, ...pvkB, 0n, ...tail]
    }
    const publicInputs = yield* Effect.try({
      try: () => Uint8Array.from(inputs.flatMap((v) => [...fieldToBytes(v)])),
      catch: () => inputsUnavailable("a public input is not a field element")
    })

    // 5. UltraHonk under the committed key of circuit_id.
    const proof = yield* Effect.try({ try: () => bytesOfBase64(bundle.proof), catch: () => new ProofRejected({ step: 5, message: "the proof is not base64" }) })
    if (proof.length !== PROOF_BYTES) return yield* new ProofRejected({ step: 5, message: `the proof is ${proof.length} bytes, not ${PROOF_BYTES}` })
    const accepted = yield* options.checkProof(variant.circuit, { proof, publicInputs }).pipe(
      Effect.mapError((e) => new ProofRejected({ step: 5, message: e.message }))
    )
    if (!accepted) {
      return yield* new ProofRejected({ step: 5, message: `the ${bundle.circuitId} proof does not verify against these events, accounts and this request` })
    }

    // 6. The seal, opened with r_R and the verifier's own ν.
    const value = yield* Effect.try({
      try: () => openSeal(variant.sealTag, key.secret, sealed, nonce, AMOUNT_LIMIT * BigInt(variant.slots)),
      catch: () => new DisclosureNotOpened({ step: 6, message: "the disclosure ciphertext does not open under this key and nonce" })
    })
    yield* Effect.promise(() => options.answered.add(request.nonce))
    return {
      value,
      circuitId: bundle.circuitId,
      account,
      events: events.map(({ ref, from, to, ledger, closedAt }) => ({ ref, from, to, ledger, closedAt }))
    } satisfies Disclosed
  }).pipe(Effect.withSpan("Disclosure.verify"))
