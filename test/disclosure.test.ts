// Selective disclosure end to end (issue 37 §2-§3, SELECTIVE_DISCLOSURE.md §5, §12): payouts paid with real proofs on
// the loopback token verifying them with OZ's published keys; the holder answers a recipient's request with a bundle
// proven over the disclosure circuits; the verifier module performs §5.3's six steps against the loopback's Stellar
// RPC and the committed keys, and shows exactly the disclosed value — or refuses, naming the step.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { rpc } from "@stellar/stellar-sdk"
import { Effect, Either, Exit } from "effect"
import {
  discloseAuditor, discloseReceived, discloseReceivedTotal, discloseSent, matchingEvents
} from "../client/src/confidential/disclosure/Disclose.ts"
import { type Ask, type Bundle, parseBundle, bundleJson, requestFromLink, requestLink } from "../client/src/confidential/disclosure/Exchange.ts"
import { makeRecipientKey, makeRequest, type RecipientKey } from "../client/src/confidential/disclosure/RecipientKey.ts"
import { type CheckProof, memoryNonces, verifyBundle } from "../client/src/confidential/disclosure/Verify.ts"
import { auditorSecret } from "./support/LoopbackGrumpkin.ts"
import { disclosureScene, disclosureTools, PAID } from "./support/DisclosureScene.ts"
import { ProvingApp } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape } from "./support/TestApp.ts"

const HOUR = 3_600_000
const period = () => ({ start: new Date(Date.now() - HOUR).toISOString(), end: new Date(Date.now() + HOUR).toISOString() })

/** A verifier (the tax office, a bank): its key, the requests it issued and the nonces it saw answered. */
const makeVerifier = (app: TestAppShape, checkProof: CheckProof) => {
  const key: RecipientKey = makeRecipientKey()
  const answered = memoryNonces()
  const server = new rpc.Server(app.rpc.url, { allowHttp: true })
  const request = (ask: Ask) => makeRequest({ key, ask, contract: CONFIDENTIAL_TOKEN, networkPassphrase: app.rpc.networkPassphrase, label: "tax office" })
  const verify = (issued: ReturnType<typeof request>, bundle: Bundle) =>
    verifyBundle({ server, request: issued, key, bundle, checkProof, answered })
  return { key, request, verify }
}

const refusal = <A, E extends { readonly _tag: string; readonly step: number }>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) && exit.cause._tag === "Fail" ? { tag: exit.cause.error._tag, step: exit.cause.error.step } : "accepted"))

// Each proof here is real (the payouts' and the disclosures'): minutes on a loaded machine.
layer(ProvingApp, { timeout: "300 seconds" })("selective disclosure on the loopback token", (it) => {
  it.effect("a contractor discloses one payout and an employer's total to a tax office; an employer discloses a payout and its auditor's channel; every forgery is refused at its step", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const scene = yield* disclosureScene(app)
      const { prove, checkProof } = yield* disclosureTools
      const taxOffice = makeVerifier(app, checkProof)
      const contractor = scene.contractor
      const june = scene.fromA[0]!

      // (a) One payout: the request travels as a link, the bundle as JSON; the tax office sees exactly its amount.
      const askJune = taxOffice.request({ kind: "event", ref: june.ref })
      const opened = Either.getOrThrow(requestFromLink(requestLink("https://payroll.example/app/verify", askJune)))
      expect(opened).toEqual(askJune)
      const [picked] = matchingEvents(opened, contractor.account, scene.received)
      const juneBundle = yield* discloseReceived({ keys: contractor.keys, event: picked!, request: opened, prove })
      expect(Object.keys(juneBundle).sort()).toEqual(["circuitId", "proof", "rDisc", "refs", "vDisc", "version"])
      const delivered = Either.getOrThrow(parseBundle(bundleJson(juneBundle)))
      const one = yield* taxOffice.verify(askJune, delivered)
      expect(one.value).toBe(PAID.fromA[0])
      expect(one.account).toBe(contractor.account)

      // (b) Employer A's total over the period: the three payouts from A, not B's.
      const askTotal = taxOffice.request({ kind: "received-total", from: scene.employerA.key.publicKey(), period: period() })
      const matching = matchingEvents(askTotal, contractor.account, scene.received)
      expect(matching.map((e) => e.ref)).toEqual(scene.fromA.map((e) => e.ref))
      const totalBundle = yield* discloseReceivedTotal({ keys: contractor.keys, events: matching, request: askTotal, prove })
      expect(totalBundle.circuitId).toBe("disclose_recipient_8")
      const total = yield* taxOffice.verify(askTotal, totalBundle)
      expect(total.value).toBe(PAID.fromA[0] + PAID.fromA[1] + PAID.fromA[2])

      // The employer discloses the June payout it made (D-sender, r_e derived from its vk and σ: nothing stored)…
      const bank = makeVerifier(app, checkProof)
      const askSent = bank.request({ kind: "event", ref: june.ref })
      const sentBundle = yield* discloseSent({ keys: scene.employerA.wallet.keys, event: june, recipientViewingKey: scene.contractorViewingKey, request: askSent, prove })
      expect((yield* bank.verify(askSent, sentBundle)).value).toBe(PAID.fromA[0])
      // …and its auditor (the escrowed secret of auditor id 0) the sender channel of it, under the key active then.
      const askAudit = bank.request({ kind: "event", ref: june.ref })
      const auditBundle = yield* discloseAuditor({
        auditorSecret: auditorSecret(CONFIDENTIAL_TOKEN, 0), channel: "sender", event: june, request: askAudit, prove
      })
      const audited = yield* bank.verify(askAudit, auditBundle)
      expect(audited.value).toBe(PAID.fromA[0])
      expect(audited.account).toBe(scene.employerA.key.publicKey())

      // Refusals, each at its step. A bundle sent to another recipient: the bank's own request for the same payout.
      const askBank = bank.request({ kind: "event", ref: june.ref })
      expect(yield* refusal(bank.verify(askBank, juneBundle))).toEqual({ tag: "ProofRejected", step: 5 })
      // A replayed nonce: the tax office's first bundle again.
      expect(yield* refusal(taxOffice.verify(askJune, juneBundle))).toEqual({ tag: "NonceReplayed", step: 0 })
      // An altered event reference: the total's second payout moved to an event index its transaction never emitted.
      const askTotal2 = taxOffice.request({ kind: "received-total", from: scene.employerA.key.publicKey(), period: period() })
      const moved = { ...totalBundle, refs: totalBundle.refs.map((r, i) => (i === 1 ? { ...r, eventIndex: 7 } : r)) as unknown as Bundle["refs"] }
      expect(yield* refusal(taxOffice.verify(askTotal2, moved))).toEqual({ tag: "EventNotFound", step: 1 })
      // A proof over another account's event: the contractor's proof offered for the payout to the stranger.
      const askStranger = taxOffice.request({ kind: "event", ref: scene.toStranger.ref })
      const theirs = { ...juneBundle, refs: [scene.toStranger.ref] as const }
      expect(yield* refusal(taxOffice.verify(askStranger, theirs))).toEqual({ tag: "ProofRejected", step: 5 })
      // An event of another contract: the auditor registry's rotation.
      const askRotation = taxOffice.request({ kind: "event", ref: scene.rotation })
      expect(yield* refusal(taxOffice.verify(askRotation, { ...juneBundle, refs: [scene.rotation] }))).toEqual({ tag: "WrongContract", step: 1 })
      // A tampered proof: one bit of π flipped.
      const askAgain = taxOffice.request({ kind: "event", ref: june.ref })
      const proof = Buffer.from(juneBundle.proof, "base64")
      proof[100] = proof[100]! ^ 1
      expect(yield* refusal(taxOffice.verify(askAgain, { ...juneBundle, proof: proof.toString("base64") }))).toEqual({ tag: "ProofRejected", step: 5 })
      // A bundle that is no answer to the request: the total offered for a one-payout request.
      expect(yield* refusal(taxOffice.verify(askAgain, totalBundle))).toEqual({ tag: "RequestMismatch", step: 0 })
      // The untouched bundle still verifies for a fresh request of the same payout: only the forgeries were refused.
      const fresh = taxOffice.request({ kind: "event", ref: june.ref })
      const again = yield* discloseReceived({ keys: contractor.keys, event: june, request: fresh, prove })
      expect((yield* taxOffice.verify(fresh, again)).value).toBe(PAID.fromA[0])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 1_500_000)
})
