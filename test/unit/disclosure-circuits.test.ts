import { describe, expect, it } from "@effect/vitest"
import { concatBytes } from "@noble/curves/utils.js"
import { acvm, Noir, type InputMap } from "@noir-lang/noir_js"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { gunzipSync } from "node:zlib"
import { DecryptionFailed, InvalidWitness } from "../../client/src/confidential/Errors.ts"
import type { TransferCiphertext } from "../../client/src/confidential/crypto/Decrypt.ts"
import { deriveEphemeralScalar } from "../../client/src/confidential/crypto/EphemeralScalar.ts"
import { Fr, fieldFromBytes, fieldToBytes, fieldToHex } from "../../client/src/confidential/crypto/Field.ts"
import { H, pointFromBytes, scalarMul, type GrumpkinPoint } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot, keysFromSk } from "../../client/src/confidential/crypto/KeyDerivation.ts"
import type { ConfidentialKeys } from "../../client/src/confidential/crypto/Keys.ts"
import * as P from "../../client/src/confidential/crypto/Primitives.ts"
import { discloseReceivedTotalWitness, discloseSentTotalWitness } from "../../client/src/confidential/disclosure/Aggregate.ts"
import { discloseAuditorWitness } from "../../client/src/confidential/disclosure/Auditor.ts"
import type { DisclosureArtifact, DisclosureCircuitName } from "../../client/src/confidential/disclosure/DisclosureCircuits.ts"
import { DISCLOSURE, DISCLOSURE_BIND } from "../../client/src/confidential/disclosure/Domain.ts"
import type { DisclosureWitness } from "../../client/src/confidential/disclosure/Inputs.ts"
import { discloseRecipientWitness } from "../../client/src/confidential/disclosure/Recipient.ts"
import { openSeal, seal, type DisclosureRequest } from "../../client/src/confidential/disclosure/Seal.ts"
import { discloseSenderWitness } from "../../client/src/confidential/disclosure/Sender.ts"
import { BUNDLED_CRS_DIR, loadCrsDir } from "../../client/src/confidential/proving/CrsFiles.ts"
import { PROOF_BYTES } from "../../client/src/confidential/proving/Prover.ts"
import { parseFieldsVk, toBinaryVk } from "../../client/src/confidential/proving/VerificationKey.ts"
import { transferWitness, type TransferRequest } from "../../client/src/confidential/witness/Transfer.ts"

// The disclosure circuits (circuits/disclosure, compiled into client/circuits/disclosure) executed with noir_js on
// witnesses the builders make from real token events — each a payload of the project's own transfer witness builder,
// which OZ's transfer circuit (client/circuits/8af46e2c) is first shown to accept — and on witnesses that break one row
// of SELECTIVE_DISCLOSURE.md's tables at a time: each is refused by the assertion named after that row.
const DIR = fileURLToPath(new URL("../../client/circuits/", import.meta.url))
const artifact = (path: string): DisclosureArtifact => JSON.parse(readFileSync(`${DIR}${path}.json`, "utf8")) as DisclosureArtifact
const noir = (a: DisclosureArtifact) => new Noir({ abi: a.abi, bytecode: a.bytecode, debug_symbols: "", file_map: {} })
const circuits = new Map<string, Noir>()
const run = (name: DisclosureCircuitName | "transfer", inputs: InputMap) => {
  const path = name === "transfer" ? "8af46e2c/transfer" : `disclosure/${name}`
  if (!circuits.has(name)) circuits.set(name, noir(artifact(path)))
  return circuits.get(name)!.execute(inputs)
}

const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const OTHER_CONTRACT = "CBQHNAXSI55GX2GN6D67GK7BHVPSLJUGZQEU7WJ5LKR5PNUCGLIMAO4K"
const COMPANY = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"
const CONTRACTOR = "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO"
const STRANGER = "GCEZWKCA5VLDNRLN3RPRJMRZOX3Z6G5CHCGSNFHEYVXM3XOJMDS674JZ"
const keys = (fill: number, account: string, contract = CONTRACT) =>
  keysFromRawRoot(new Uint8Array(32).fill(fill), { contract, account })
const company = keys(1, COMPANY)
const contractor = keys(2, CONTRACTOR)
const stranger = keys(3, STRANGER)
const AUDITOR_R = 0xa0d17n
const AUDITOR_S = 0x5e4d3n

/** A payout as the token emits it: the project's transfer witness, with §15.2's deterministic r_e. */
const payout = (from: ConfidentialKeys, to: ConfidentialKeys, amount: bigint, sigma: bigint, ephemeral?: bigint) => {
  const request: TransferRequest = {
    keys: from,
    spendable: { value: 1_000_000n, blinding: 0x2a2a2a2an },
    recipientViewingKey: to.viewingPublicKey,
    recipientAuditorKey: scalarMul(AUDITOR_R, H),
    senderAuditorKey: scalarMul(AUDITOR_S, H),
    amount,
    sigma,
    ephemeral: ephemeral ?? deriveEphemeralScalar(from.vk, sigma)
  }
  const witness = transferWitness(request)
  const { payload } = witness
  const event: TransferCiphertext = {
    ephemeralKey: pointFromBytes(payload.r_e_point),
    vTilde: fieldFromBytes(payload.v_tilde),
    sigma: fieldFromBytes(payload.sigma)
  }
  return { witness, event, audR: fieldFromBytes(payload.v_tilde_aud_r), audS: fieldFromBytes(payload.v_tilde_aud_s) }
}

const R_R = 0xb4a4en // the disclosure recipient's secret
const request: DisclosureRequest = { recipientKey: scalarMul(R_R, H), nonce: 0x4e0e5n }
const R_DISC = 0xd15cn
const june = payout(company, contractor, 4_200n, 0x6a1n)
const july = payout(company, contractor, 4_350n, 0x7a1n)
const august = payout(company, contractor, 3_900n, 0x8a1n)
const toStranger = payout(company, stranger, 777n, 0x9a1n)
const fromStranger = payout(stranger, contractor, 55n, 0xaa1n)

const hex = (v: bigint) => fieldToHex(Fr.create(v))
const xy = (p: GrumpkinPoint) => p.toAffine()
/** `inputs` with some fields replaced (values reduced into Fr, as a prover could write any field). */
const with_ = (inputs: InputMap, changes: Readonly<Record<string, bigint>>): InputMap => ({
  ...inputs,
  ...Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, hex(v)]))
})
/** The seal of another value with the same r_disc, so that only the row under test can refuse. */
const resealed = (tag: bigint, value: bigint) => {
  const s = seal(tag, value, R_DISC, request)
  return { v_tilde_disc: s.vTildeDisc }
}
const refused = async (name: DisclosureCircuitName, inputs: InputMap, row: RegExp) => {
  await expect(run(name, inputs)).rejects.toThrow(row)
}
const RANGE = /assert_max_bit_size|bit size/

/** Executes and checks the solved public witness is the builder's public-input vector, in the circuit's order. */
const accepts = async (name: DisclosureCircuitName, witness: DisclosureWitness) => {
  const a = artifact(`disclosure/${name}`)
  const { witness: compressed } = await run(name, witness.inputs)
  const solved = acvm.decompressWitness(compressed)
  const sizes = a.abi.parameters.map((p) => flatSize(p.type))
  let at = 0
  const publicValues: Array<string> = []
  a.abi.parameters.forEach((p, i) => {
    for (let k = 0; k < sizes[i]!; k++) if (p.visibility === "public") publicValues.push(solved.get(at + k)!)
    at += sizes[i]!
  })
  expect(publicValues).toEqual(witness.publicInputs.map(fieldToHex))
  expect(openSeal(name.includes("_8") || name.includes("_24") ? DISCLOSURE_BIND : DISCLOSURE, R_R, witness.sealed, request.nonce, 1n << 131n)).toBe(witness.value)
}
type AbiType = DisclosureArtifact["abi"]["parameters"][number]["type"]
const flatSize = (t: AbiType): number =>
  t.kind === "array" ? t.length * flatSize(t.type) : t.kind === "struct" ? t.fields.reduce((s, f) => s + flatSize(f.type), 0) : 1

describe("the payouts the disclosures are about", () => {
  it("are token events: OZ's transfer circuit accepts every one", async () => {
    for (const p of [june, july, august, toStranger, fromStranger]) await run("transfer", p.witness.inputs)
  })
})

describe("disclose_recipient (S6): the contractor discloses one payout it received", () => {
  const good = discloseRecipientWitness({ keys: contractor, event: june.event, request, rDisc: R_DISC })
  const i = good.inputs

  it("accepts the payout's witness, and the recipient opens the seal to the amount", async () => {
    expect(good.value).toBe(4_200n)
    await accepts("disclose_recipient", good)
  })

  it("D1 refuses a vk_A not derived from sk_A, and another contract's addr_f", async () => {
    await refused("disclose_recipient", with_(i, { vk_a: contractor.vk + 1n }), /D1:/)
    const elsewhere = keysFromSk(contractor.sk, { contract: OTHER_CONTRACT, account: CONTRACTOR })
    await refused("disclose_recipient", with_(i, { addr_f: elsewhere.addrF }), /D1:/)
    // The same sk's key in the other contract is another vk, so another PVK than the account's.
    await refused("disclose_recipient", with_(i, { addr_f: elsewhere.addrF, vk_a: elsewhere.vk }), /D2:/)
  })

  it("D2 refuses another account's PVK_A, and another prover's keys for the contractor's PVK_A", async () => {
    const other = xy(company.viewingPublicKey)
    await refused("disclose_recipient", with_(i, { pvk_a_x: other.x, pvk_a_y: other.y }), /D2:/)
    await refused("disclose_recipient", with_(i, { sk_a: stranger.sk, vk_a: stranger.vk }), /D2:/)
  })

  it("D3 refuses an R_e that is not a curve point", async () => {
    await refused("disclose_recipient", with_(i, { r_e_y: BigInt(i.r_e_y as string) + 1n }), /D3:/)
  })

  it("D4 refuses a wrong amount, another event's nonce or ciphertext, and someone else's transfer", async () => {
    await refused("disclose_recipient", with_(i, { v_tx: 4_201n, ...resealed(DISCLOSURE, 4_201n) }), /D4:/)
    await refused("disclose_recipient", with_(i, { sigma_e: july.event.sigma }), /D4:/)
    await refused("disclose_recipient", with_(i, { v_tilde: july.event.vTilde }), /D4:/)
    const theirs = toStranger.event
    const { x, y } = xy(theirs.ephemeralKey)
    const event = { r_e_x: x, r_e_y: y, sigma_e: theirs.sigma, v_tilde: theirs.vTilde }
    await refused("disclose_recipient", with_(i, { ...event, v_tx: 777n, ...resealed(DISCLOSURE, 777n) }), /D4:/)
    expect(() => discloseRecipientWitness({ keys: contractor, event: theirs, request, rDisc: R_DISC })).toThrow(DecryptionFailed)
  })

  it("D5 refuses what the contractor's key decrypts from someone else's transfer (not an amount)", async () => {
    const theirs = toStranger.event
    const garbage = P.unmaskAmount(theirs.vTilde, P.ecdh(contractor.vk, theirs.ephemeralKey), theirs.sigma)
    const { x, y } = xy(theirs.ephemeralKey)
    const event = { r_e_x: x, r_e_y: y, sigma_e: theirs.sigma, v_tilde: theirs.vTilde }
    await refused("disclose_recipient", with_(i, { ...event, v_tx: garbage, ...resealed(DISCLOSURE, garbage) }), RANGE)
  })

  it("U1-U3 refuse another recipient key, another nonce, another R_disc, a zero r_disc and the aggregate's tag", async () => {
    const elsewhere = xy(scalarMul(R_R + 1n, H))
    await refused("disclose_recipient", with_(i, { p_r_x: elsewhere.x, p_r_y: elsewhere.y }), /U2-U3:/)
    await refused("disclose_recipient", with_(i, { p_r_x: 0n, p_r_y: 0n }), /U2: P_R/)
    await refused("disclose_recipient", with_(i, { nu: request.nonce + 1n }), /U2-U3:/)
    const moved = xy(scalarMul(R_DISC + 1n, H))
    await refused("disclose_recipient", with_(i, { r_disc_x: moved.x, r_disc_y: moved.y }), /U1: R_disc/)
    await refused("disclose_recipient", with_(i, { r_disc: 0n }), /U1: r_disc is zero/)
    await refused("disclose_recipient", with_(i, { v_tilde_disc: BigInt(i.v_tilde_disc as string) + 1n }), /U2-U3:/)
    await refused("disclose_recipient", with_(i, resealed(DISCLOSURE_BIND, 4_200n)), /U2-U3:/)
  })
})

describe("disclose_sender (S7): the company discloses one payout it made", () => {
  const good = discloseSenderWitness({ keys: company, event: june.event, recipientViewingKey: contractor.viewingPublicKey, request, rDisc: R_DISC })
  const i = good.inputs

  it("accepts the payout's witness with r_e recomputed from (vk, sigma) alone", async () => {
    expect(good.value).toBe(4_200n)
    await accepts("disclose_sender", good)
  })

  it("accepts a payout whose r_e was sampled, when the wallet kept it", async () => {
    const sampled = payout(company, contractor, 12n, 0xba1n, 0x5a3a1edn)
    expect(() => discloseSenderWitness({ keys: company, event: sampled.event, recipientViewingKey: contractor.viewingPublicKey, request })).toThrow(DecryptionFailed)
    const kept = discloseSenderWitness({ keys: company, event: sampled.event, recipientViewingKey: contractor.viewingPublicKey, ephemeral: 0x5a3a1edn, request })
    await accepts("disclose_sender", kept)
  })

  it("D1 and D2 refuse another contract's addr_f and another account's PVK_A", async () => {
    await refused("disclose_sender", with_(i, { addr_f: keys(1, COMPANY, OTHER_CONTRACT).addrF }), /D1:/)
    const other = xy(stranger.viewingPublicKey)
    await refused("disclose_sender", with_(i, { pvk_a_x: other.x, pvk_a_y: other.y }), /D2:/)
  })

  it("DS3 refuses another r_e, and another sender's transfer (its r_e is not ours)", async () => {
    await refused("disclose_sender", with_(i, { r_e: BigInt(i.r_e as string) + 1n }), /DS3:/)
    const theirs = fromStranger.event
    const { x, y } = xy(theirs.ephemeralKey)
    await refused("disclose_sender", with_(i, { r_e_x: x, r_e_y: y, sigma_e: theirs.sigma, v_tilde: theirs.vTilde }), /DS3:/)
  })

  it("DS4-DS5 refuse another recipient's PVK_B, a PVK_B off the curve, a wrong amount and another nonce sigma_E", async () => {
    const other = xy(stranger.viewingPublicKey)
    await refused("disclose_sender", with_(i, { pvk_b_x: other.x, pvk_b_y: other.y }), /DS5:/)
    await refused("disclose_sender", with_(i, { pvk_b_y: BigInt(i.pvk_b_y as string) + 1n }), /DS4:/)
    await refused("disclose_sender", with_(i, { v_tx: 4_199n, ...resealed(DISCLOSURE, 4_199n) }), /DS5:/)
    await refused("disclose_sender", with_(i, { sigma_e: july.event.sigma }), /DS5:/)
  })

  it("D5 refuses an event whose ciphertext carries no amount", async () => {
    // A forged v_tilde: the pad plus 2^127 (no transfer circuit would have emitted it).
    const s = P.ecdh(BigInt(i.r_e as string), contractor.viewingPublicKey)
    const forged = P.encryptAmount(1n << 127n, s, june.event.sigma)
    await refused("disclose_sender", with_(i, { v_tilde: forged, v_tx: 1n << 127n, ...resealed(DISCLOSURE, 1n << 127n) }), RANGE)
  })

  it("U1-U3 refuse another recipient key and another nonce", async () => {
    const elsewhere = xy(scalarMul(R_R + 1n, H))
    await refused("disclose_sender", with_(i, { p_r_x: elsewhere.x, p_r_y: elsewhere.y }), /U2-U3:/)
    await refused("disclose_sender", with_(i, { nu: request.nonce + 1n }), /U2-U3:/)
  })
})

describe("disclose_auditor (S8): an auditor discloses one channel of a payout", () => {
  const audited = (channel: "sender" | "recipient") =>
    discloseAuditorWitness({
      auditorSecret: channel === "sender" ? AUDITOR_S : AUDITOR_R,
      channel,
      event: { ephemeralKey: june.event.ephemeralKey, sigma: june.event.sigma, vTildeAud: channel === "sender" ? june.audS : june.audR },
      request,
      rDisc: R_DISC
    })
  const i = audited("sender").inputs

  it("accepts both channels' witnesses", async () => {
    for (const channel of ["sender", "recipient"] as const) {
      const good = audited(channel)
      expect(good.value).toBe(4_200n)
      await accepts("disclose_auditor", good)
    }
  })

  it("A1 refuses a secret that is not K_aud's", async () => {
    await refused("disclose_auditor", with_(i, { aud_sk: AUDITOR_R }), /A1:/)
  })

  it("A2 refuses an R_e off the curve; A3 refuses a tag that is no auditor channel", async () => {
    await refused("disclose_auditor", with_(i, { r_e_y: BigInt(i.r_e_y as string) + 1n }), /A2:/)
    await refused("disclose_auditor", with_(i, { delta_aud: 13n }), /A3:/)
  })

  it("A4 refuses the other channel's tag, a wrong amount, another event's sigma and the other channel's ciphertext", async () => {
    await refused("disclose_auditor", with_(i, { delta_aud: P.Domain.AUDITOR_RECIPIENT }), /A4:/)
    await refused("disclose_auditor", with_(i, { v_tx: 4_201n, ...resealed(DISCLOSURE, 4_201n) }), /A4:/)
    await refused("disclose_auditor", with_(i, { sigma_e: july.event.sigma }), /A4:/)
    await refused("disclose_auditor", with_(i, { v_tilde_aud: june.audR }), /A4:/)
  })

  it("D5 refuses what the key decrypts from another channel (not an amount)", async () => {
    const [mask] = P.auditorSenderMasks(P.ecdh(AUDITOR_S, june.event.ephemeralKey), june.event.sigma)
    const garbage = Fr.sub(june.audR, mask)
    await refused("disclose_auditor", with_(i, { v_tilde_aud: june.audR, v_tx: garbage, ...resealed(DISCLOSURE, garbage) }), RANGE)
  })

  it("U1-U3 refuse another recipient key and another nonce", async () => {
    const elsewhere = xy(scalarMul(R_R + 1n, H))
    await refused("disclose_auditor", with_(i, { p_r_x: elsewhere.x, p_r_y: elsewhere.y }), /U2-U3:/)
    await refused("disclose_auditor", with_(i, { nu: request.nonce + 1n }), /U2-U3:/)
  })
})

describe("the aggregates (S10): totals over a list of payouts", () => {
  const quarter = [june.event, july.event, august.event]
  const received = discloseReceivedTotalWitness({ keys: contractor, events: quarter, size: 8, threshold: 12_000n, request, rDisc: R_DISC })
  const sent = discloseSentTotalWitness({
    keys: company, events: quarter, size: 8, recipientViewingKey: contractor.viewingPublicKey, request, rDisc: R_DISC
  })
  const events = (inputs: InputMap) => inputs.events as ReadonlyArray<InputMap>
  const withEvent = (inputs: InputMap, slot: number, event: InputMap): InputMap => ({
    ...inputs,
    events: events(inputs).map((e, k) => (k === slot ? event : e))
  })
  const withAmount = (inputs: InputMap, slot: number, v: bigint): InputMap => ({
    ...inputs,
    v_tx: (inputs.v_tx as ReadonlyArray<string>).map((a, k) => (k === slot ? hex(v) : a))
  })

  it("accept the contractor's received total and the company's paid total, at both sizes", async () => {
    expect(received.value).toBe(12_450n)
    await accepts("disclose_recipient_8", received)
    expect(sent.value).toBe(12_450n)
    await accepts("disclose_sender_8", sent)
    const year = [june, july, august, payout(company, contractor, 1n, 0xca1n)].map((p) => p.event)
    await accepts("disclose_recipient_24", discloseReceivedTotalWitness({ keys: contractor, events: year, size: 24, request, rDisc: R_DISC }))
    await accepts("disclose_sender_24", discloseSentTotalWitness({
      keys: company, events: year, size: 24, recipientViewingKey: contractor.viewingPublicKey, request, rDisc: R_DISC
    }))
  })

  it("AGG refuses a payout listed twice (the builders too)", async () => {
    await refused("disclose_recipient_8", withAmount(withEvent(received.inputs, 3, events(received.inputs)[0]!), 3, 4_200n), /AGG:/)
    expect(() => discloseReceivedTotalWitness({ keys: contractor, events: [june.event, june.event], size: 8, request })).toThrow(InvalidWitness)
  })

  it("D4_i refuses a wrong amount in one slot and someone else's transfer in a slot", async () => {
    const total = 12_451n
    await refused("disclose_recipient_8", with_(withAmount(received.inputs, 1, 4_351n), resealed(DISCLOSURE_BIND, total)), /D4:/)
    const { x, y } = xy(toStranger.event.ephemeralKey)
    const theirs = { r_e_x: hex(x), r_e_y: hex(y), sigma_e: hex(toStranger.event.sigma), v_tilde: hex(toStranger.event.vTilde) }
    await refused("disclose_recipient_8", withEvent(received.inputs, 2, theirs), /D4:/)
  })

  it("PAD refuses an amount in an unused slot; THRESH refuses a threshold above the total", async () => {
    await refused("disclose_recipient_8", with_(withAmount(received.inputs, 5, 1n), resealed(DISCLOSURE_BIND, 12_451n)), /PAD:/)
    await refused("disclose_recipient_8", with_(received.inputs, { v_threshold: 12_451n }), RANGE)
    expect(() => discloseReceivedTotalWitness({ keys: contractor, events: quarter, size: 8, threshold: 12_451n, request })).toThrow(InvalidWitness)
  })

  it("U1-U3 refuse the single-event tag, another recipient key and another nonce", async () => {
    await refused("disclose_recipient_8", with_(received.inputs, resealed(DISCLOSURE, 12_450n)), /U2-U3:/)
    await refused("disclose_recipient_8", with_(received.inputs, { nu: request.nonce + 1n }), /U2-U3:/)
    const elsewhere = xy(scalarMul(R_R + 1n, H))
    await refused("disclose_sender_8", with_(sent.inputs, { p_r_x: elsewhere.x, p_r_y: elsewhere.y }), /U2-U3:/)
  })

  it("D1/D2 refuse another account; DS3_i/DS5_i refuse a payout to someone else or by someone else", async () => {
    const other = xy(stranger.viewingPublicKey)
    await refused("disclose_recipient_8", with_(received.inputs, { pvk_a_x: other.x, pvk_a_y: other.y }), /D2:/)
    await refused("disclose_sender_8", with_(sent.inputs, { pvk_b_x: other.x, pvk_b_y: other.y }), /DS5:/)
    const { x, y } = xy(fromStranger.event.ephemeralKey)
    const theirs = { r_e_x: hex(x), r_e_y: hex(y), sigma_e: hex(fromStranger.event.sigma), v_tilde: hex(fromStranger.event.vTilde) }
    await refused("disclose_sender_8", withEvent(sent.inputs, 0, theirs), /DS3:/)
    expect(() =>
      discloseSentTotalWitness({ keys: company, events: [june.event, toStranger.event], size: 8, recipientViewingKey: contractor.viewingPublicKey, request })
    ).toThrow(DecryptionFailed)
  })
})

describe("proofs (bb.js 0.87 UltraHonk, keccak, over Ignition's CRS)", () => {
  // One proof per circuit, verified with the key committed in client/circuits/disclosure/vks (OZ's fields form), and
  // refused once the verifier's own nonce differs: the binding §13.2 relies on.
  it("each circuit's proof verifies under its committed key, and not for another nonce", { timeout: 900_000 }, async () => {
    const crs = await Effect.runPromise(loadCrsDir(BUNDLED_CRS_DIR))
    const { Barretenberg, RawBuffer } = await import("@aztec/bb.js")
    const bb = await Barretenberg.new({ threads: 1 })
    try {
      await bb.srsInitSrs(new RawBuffer(crs.g1), crs.points, new RawBuffer(crs.g2))
      const year = [june, july, august].map((p) => p.event)
      const toContractor = { recipientViewingKey: contractor.viewingPublicKey }
      const witnesses: ReadonlyArray<readonly [DisclosureCircuitName, DisclosureWitness]> = [
        ["disclose_recipient", discloseRecipientWitness({ keys: contractor, event: june.event, request })],
        ["disclose_sender", discloseSenderWitness({ keys: company, event: june.event, ...toContractor, request })],
        ["disclose_auditor", discloseAuditorWitness({ auditorSecret: AUDITOR_R, channel: "recipient", event: { ...june.event, vTildeAud: june.audR }, request })],
        ["disclose_recipient_8", discloseReceivedTotalWitness({ keys: contractor, events: year, size: 8, request })],
        ["disclose_sender_8", discloseSentTotalWitness({ keys: company, events: year, size: 8, ...toContractor, request })],
        ["disclose_recipient_24", discloseReceivedTotalWitness({ keys: contractor, events: year, size: 24, request })],
        ["disclose_sender_24", discloseSentTotalWitness({ keys: company, events: year, size: 24, ...toContractor, request })]
      ]
      for (const [name, witness] of witnesses) {
        const acir = gunzipSync(Buffer.from(artifact(`disclosure/${name}`).bytecode, "base64"))
        const vk = toBinaryVk(parseFieldsVk(JSON.parse(readFileSync(`${DIR}disclosure/vks/${name}.vk.json`, "utf8")) as unknown))
        const { witness: compressed } = await run(name, witness.inputs)
        const both = await bb.acirProveUltraKeccakHonk(acir, gunzipSync(compressed))
        const publicBytes = witness.publicInputs.length * 32
        expect(both.slice(0, publicBytes)).toEqual(concatBytes(...witness.publicInputs.map(fieldToBytes)))
        expect(both.length - publicBytes).toBe(PROOF_BYTES)
        expect(await bb.acirVerifyUltraKeccakHonk(both, new RawBuffer(vk))).toBe(true)
        // Every circuit's public inputs end with ν, R_disc, v_tilde_disc: ν replaced by the verifier's next nonce.
        const nonceAt = witness.publicInputs.length - 4
        expect(witness.publicInputs[nonceAt]).toBe(request.nonce)
        const replayed = Uint8Array.from(both)
        replayed.set(fieldToBytes(request.nonce + 1n), nonceAt * 32)
        expect(await bb.acirVerifyUltraKeccakHonk(replayed, new RawBuffer(vk))).toBe(false)
      }
    } finally {
      await bb.destroy()
    }
  })
})
