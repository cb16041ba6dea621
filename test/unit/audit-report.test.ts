import { describe, expect, it } from "@effect/vitest"
import { Address, StrKey, nativeToScVal, xdr } from "@stellar/stellar-sdk"
import { parse } from "csv-parse/sync"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { DecryptionFailed } from "../../client/src/confidential/Errors.ts"
import { auditReport, type AuditPayout } from "../../client/src/confidential/audit/AuditReport.ts"
import { decodeAuditEvent, type ProvenEvent, type RawTokenEvent } from "../../client/src/confidential/audit/AuditEvent.ts"
import { type OpenedReceipt } from "../../client/src/confidential/audit/ReceiptCompare.ts"
import type { AuditReport } from "../../client/src/confidential/audit/ReportModel.ts"
import { CONTRACTOR_COLUMNS, MONTH_COLUMNS, OPERATION_COLUMNS, formatUnits, reportCsv } from "../../client/src/confidential/audit/ReportCsv.ts"
import { reportJson } from "../../client/src/confidential/audit/ReportJson.ts"
import { decryptSenderAuditor } from "../../client/src/confidential/audit/SenderAuditor.ts"
import * as A from "../../client/src/confidential/crypto/AuditorChannel.ts"
import { Fr, fieldFromHex, fieldToBytes } from "../../client/src/confidential/crypto/Field.ts"
import { H, addBlindings, pointToBytes, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot } from "../../client/src/confidential/crypto/KeyDerivation.ts"
import type { Opening } from "../../client/src/confidential/crypto/Opening.ts"
import * as P from "../../client/src/confidential/crypto/Primitives.ts"
import { transferWitness } from "../../client/src/confidential/witness/Transfer.ts"
import { withdrawWitness } from "../../client/src/confidential/witness/Withdraw.ts"
import { contractEvent, cursorString, type PublishedEvent, tokenEvents } from "../support/LoopbackEvents.ts"

// The escrow key's view of the token's events (issue 36 §3). The ciphertexts come from the project's own witness
// builders (witness/Transfer.ts, Withdraw.ts: the circuits accept what they build, test/unit/confidential-witness.test.ts),
// encoded as the 8af46e2c token emits them (test/support/LoopbackEvents.ts, after mod.rs "EVENTS"), read back through
// the archive's base64 form. The primitive layer is held to OZ's lib/testdata vectors.
const FIXTURES = fileURLToPath(new URL("../fixtures/oz-8af46e2c/testdata/", import.meta.url))
const fixture = (name: string) =>
  JSON.parse(readFileSync(`${FIXTURES}${name}.json`, "utf8")) as { vectors: ReadonlyArray<{ inputs: Record<string, string>; output: unknown }> }

const account = (n: number) => StrKey.encodeEd25519PublicKey(Buffer.alloc(32, n))
const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 0x42))
const WALLET = account(1)
const OUTSIDER = account(9)
const CONTRACTORS = [account(21), account(22), account(23)] as const
const AUDITOR = 0x5e4d3c2b1an
const K_AUD = scalarMul(AUDITOR, H)
const OTHER_AUDITOR = scalarMul(0xa0d17n, H)
const walletKeys = keysFromRawRoot(new Uint8Array(32).fill(1), { contract: CONTRACT, account: WALLET })
const outsiderKeys = keysFromRawRoot(new Uint8Array(32).fill(9), { contract: CONTRACT, account: OUTSIDER })
const contractorKeys = CONTRACTORS.map((c, i) => keysFromRawRoot(new Uint8Array(32).fill(21 + i), { contract: CONTRACT, account: c }))
const START = Date.UTC(2026, 0, 1)
const DAY = 86_400_000

const raw = (ledger: number, published: PublishedEvent, txHash = ledger.toString(16).padStart(64, "0")): RawTokenEvent => ({
  id: cursorString({ ledger, tx: 1, op: 0, event: 0 }),
  ledger,
  ledgerClosedAt: new Date(START + ledger * 9 * DAY).toISOString(),
  txHash,
  topics: published.topics.map((t) => t.toXDR("base64")),
  value: published.data.toXDR("base64")
})
const proven = (event: RawTokenEvent) => decodeAuditEvent(event) as ProvenEvent

/** A step of a paying wallet's history; spends take `share`/1000 of the spendable balance. */
type Step =
  | { readonly kind: "deposit"; readonly amount: bigint }
  | { readonly kind: "merge" }
  | { readonly kind: "transfer"; readonly share: number; readonly contractor: number | undefined }
  | { readonly kind: "withdraw"; readonly share: number }
  | { readonly kind: "transfer_in"; readonly amount: bigint }

interface History {
  readonly events: Array<RawTokenEvent>
  readonly payouts: Array<AuditPayout>
  readonly receipts: Array<OpenedReceipt>
  readonly paid: Map<string, bigint>
  readonly withdrawn: bigint
  readonly deposited: bigint
  readonly received: bigint
}

/** The wallet's events from its register, the ciphertexts built as a wallet would, and what the report must find. */
const history = (steps: ReadonlyArray<Step>, keyAt: (ledger: number) => typeof K_AUD = () => K_AUD): History => {
  const events = [raw(1, tokenEvents.register(WALLET, 7))]
  const h: History = { events, payouts: [], receipts: [], paid: new Map(), withdrawn: 0n, deposited: 0n, received: 0n }
  let spendable: Opening = { value: 0n, blinding: 0n }
  let receiving: Opening = { value: 0n, blinding: 0n }
  let withdrawn = 0n, deposited = 0n, received = 0n
  steps.forEach((step, i) => {
    const ledger = i + 2
    const randomness = { ephemeral: BigInt(ledger) * 0x9e3779b97f4a7c15n, sigma: BigInt(ledger) * 0x51f3an }
    switch (step.kind) {
      case "deposit":
        receiving = { value: receiving.value + step.amount, blinding: receiving.blinding }
        deposited += step.amount
        events.push(raw(ledger, tokenEvents.deposit(OUTSIDER, WALLET, step.amount)))
        break
      case "merge":
        spendable = { value: spendable.value + receiving.value, blinding: addBlindings(spendable.blinding, receiving.blinding) }
        receiving = { value: 0n, blinding: 0n }
        events.push(raw(ledger, tokenEvents.merge(WALLET)))
        break
      case "transfer_in": {
        const w = transferWitness({
          keys: outsiderKeys, spendable: { value: step.amount, blinding: 1n }, recipientViewingKey: walletKeys.viewingPublicKey,
          recipientAuditorKey: keyAt(ledger), senderAuditorKey: OTHER_AUDITOR, amount: step.amount, ...randomness
        })
        receiving = { value: receiving.value + step.amount, blinding: addBlindings(receiving.blinding, w.transferOpening.blinding) }
        received += step.amount
        events.push(raw(ledger, tokenEvents.transfer(OUTSIDER, WALLET, w.payload)))
        break
      }
      case "transfer": {
        const amount = (spendable.value * BigInt(step.share)) / 1000n
        const to = step.contractor === undefined ? OUTSIDER : CONTRACTORS[step.contractor]!
        const toKeys = step.contractor === undefined ? outsiderKeys : contractorKeys[step.contractor]!
        const w = transferWitness({
          keys: walletKeys, spendable, recipientViewingKey: toKeys.viewingPublicKey, recipientAuditorKey: OTHER_AUDITOR,
          senderAuditorKey: keyAt(ledger), amount, ...randomness
        })
        spendable = w.newSpendable
        const event = raw(ledger, tokenEvents.transfer(WALLET, to, w.payload))
        events.push(event)
        if (step.contractor !== undefined) {
          const payoutId = `payout-${ledger}`
          h.payouts.push({ payoutId, batchId: `batch-${ledger % 3}`, contractorId: `contractor-${step.contractor}`, transactionHash: event.txHash })
          h.receipts.push({ payoutId, amount, ...w.receipt })
          h.paid.set(`contractor-${step.contractor}`, (h.paid.get(`contractor-${step.contractor}`) ?? 0n) + amount)
        }
        break
      }
      case "withdraw": {
        const amount = (spendable.value * BigInt(step.share)) / 1000n
        const w = withdrawWitness({ keys: walletKeys, spendable, senderAuditorKey: keyAt(ledger), amount, ...randomness })
        spendable = w.newSpendable
        withdrawn += amount
        events.push(raw(ledger, tokenEvents.withdraw(WALLET, OUTSIDER, amount, w.payload)))
        break
      }
    }
  })
  return { ...h, withdrawn, deposited, received }
}

const YEAR = { from: new Date(START), to: new Date(Date.UTC(2030, 0, 1)) }
const report = (h: History, overrides: Partial<Parameters<typeof auditReport>[0]> = {}): AuditReport =>
  auditReport({ events: h.events, auditorSecret: AUDITOR, auditorKey: K_AUD, wallets: [WALLET], period: YEAR, payouts: h.payouts, receipts: h.receipts, ...overrides })

const PAYROLL: ReadonlyArray<Step> = [
  { kind: "deposit", amount: 50_000_0000000n },
  { kind: "transfer_in", amount: 2_500_0000000n },
  { kind: "merge" },
  { kind: "transfer", share: 100, contractor: 0 },
  { kind: "transfer", share: 250, contractor: 1 },
  { kind: "transfer", share: 10, contractor: undefined },
  { kind: "withdraw", share: 500 },
  { kind: "deposit", amount: 1_0000000n },
  { kind: "merge" },
  { kind: "transfer", share: 1000, contractor: 0 }
]

describe("the auditor channels against OZ's lib/testdata (8af46e2c)", () => {
  it("k·R_e gives the shared secret of r_e·K_aud: ecdh.json with k = 1 (K_aud = H, R_e = 0xfeedface·H)", () => {
    const [vector] = fixture("ecdh").vectors
    const rE = scalarMul(fieldFromHex(vector!.inputs["scalar"]!), H)
    expect(A.auditorSharedSecret(1n, rE)).toBe(fieldFromHex(vector!.output as string))
    expect(A.auditorSharedSecret(AUDITOR, rE)).toBe(P.ecdh(fieldFromHex(vector!.inputs["scalar"]!), K_AUD))
  })

  it("unmasks the sponge's two lanes of sponge_squeeze_2.json and inverts encrypt_auditor_sender_balance.json", () => {
    for (const { inputs, output } of fixture("sponge_squeeze_2").vectors) {
      const [m0, m1] = (output as Array<string>).map((h) => fieldFromHex(h)) as [bigint, bigint]
      const [s, sigma] = [fieldFromHex(inputs["s_x"]!), fieldFromHex(inputs["sigma"]!)]
      if (fieldFromHex(inputs["d"]!) === P.Domain.AUDITOR_SENDER) {
        expect(A.unmaskAuditorSender(Fr.add(123n, m0), Fr.add(456n, m1), s, sigma)).toEqual({ amount: 123n, balance: 456n })
      } else {
        expect(A.unmaskAuditorRecipient(Fr.add(123n, m0), Fr.add(789n, m1), s, sigma)).toEqual({ amount: 123n, blinding: 789n })
      }
    }
    for (const { inputs, output } of fixture("encrypt_auditor_sender_balance").vectors) {
      const opened = A.unmaskAuditorSenderBalance(fieldFromHex(output as string), fieldFromHex(inputs["s_a_s_x"]!), fieldFromHex(inputs["sigma"]!))
      expect(opened).toBe(fieldFromHex(inputs["v_new"]!))
    }
  })
})

describe("decryptSenderAuditor", () => {
  const h = history([{ kind: "deposit", amount: 1_000n }, { kind: "merge" }, { kind: "transfer", share: 100, contractor: 0 }, { kind: "withdraw", share: 333 }])
  const [transfer, withdraw] = [proven(h.events[3]!), proven(h.events[4]!)]

  it("opens a transfer's amount and balance after, and a withdrawal's balance, from the builders' ciphertexts", () => {
    expect(decryptSenderAuditor(AUDITOR, transfer)).toEqual({ amount: 100n, balanceAfter: 900n })
    expect(decryptSenderAuditor(AUDITOR, withdraw)).toEqual({ amount: 299n, balanceAfter: 601n })
  })

  it("refuses a wrong key: what it unmasks is out of the circuits' 127-bit range", () => {
    for (const key of [AUDITOR + 1n, 0xa0d17n]) {
      expect(() => decryptSenderAuditor(key, transfer)).toThrow(DecryptionFailed)
      expect(() => decryptSenderAuditor(key, withdraw)).toThrow(DecryptionFailed)
    }
  })

  it("opens set_spender, revoke_spender and spender_transfer as lib.nr encrypts them (S_a4-5, V_a4-5, O_a7-8)", () => {
    const rE = 0x1234567n, sigma = 0x77n, s = P.ecdh(rE, K_AUD)
    const [mV, mB] = P.auditorSenderMasks(s, sigma)
    const f = (v: bigint) => fieldToBytes(v)
    const channel = { r_e_point: pointToBytes(scalarMul(rE, H)), sigma: f(sigma), b_tilde: f(5n), v_tilde_aud_s: f(Fr.add(40n, mV)), b_tilde_aud_s: f(Fr.add(60n, mB)) }
    expect(decryptSenderAuditor(AUDITOR, proven(raw(2, tokenEvents.setSpender(WALLET, OUTSIDER, 99, channel))))).toEqual({ amount: 40n, balanceAfter: 60n })
    expect(decryptSenderAuditor(AUDITOR, proven(raw(3, tokenEvents.revokeSpender(WALLET, OUTSIDER, channel))))).toEqual({ amount: 40n, balanceAfter: 60n })
    const spent = tokenEvents.spenderTransfer(OUTSIDER, WALLET, CONTRACTORS[0], {
      r_e_point: channel.r_e_point, v_tilde: f(1n), sigma_a: f(sigma), v_tilde_aud_r: f(2n), r_tilde_aud_r: f(3n),
      v_tilde_aud_s: f(Fr.add(15n, mV)), a_tilde_aud_s: f(Fr.add(25n, mB))
    })
    expect(decryptSenderAuditor(AUDITOR, proven(raw(4, spent)))).toEqual({ amount: 15n, balanceAfter: 25n })
  })
})

describe("auditReport", () => {
  const h = history(PAYROLL)
  const r = report(h)

  it("lists every operation, matches payouts by transaction hash, totals per contractor and month, continuity holds", () => {
    expect(r.rows.map((row) => row.kind)).toEqual([
      "deposit", "transfer_in", "merge", "transfer", "transfer", "transfer", "withdraw", "deposit", "merge", "transfer"
    ])
    expect(r.rows.filter((row) => row.match.kind === "payout")).toHaveLength(3)
    expect(r.rows[5]!.match).toEqual({ kind: "not a payout here" })
    expect(r.contractors.map((c) => [c.contractorId, c.paid.total])).toEqual([...h.paid.entries()].sort())
    expect(r.rows.every((row) => row.decrypted)).toBe(true)
    expect(r.rows.filter((row) => row.continuity !== undefined).map((row) => row.continuity?.status)).toEqual(Array(5).fill("continuous"))
    expect(r.checks).toEqual({ keyMatches: true, breaks: 0, undecryptable: 0, receiptsMatch: 3, receiptsDiffer: 0 })
    // The period starts before the register: no opening balance to state.
    expect(r.wallets[0]).toEqual({ wallet: WALLET, closingSpendable: 0n, checkpoints: 5, breaks: 0, unchecked: 0, undecryptable: 0 })
    const sum = (column: "payouts" | "withdrawals" | "deposits" | "received") => r.months.reduce((t, m) => t + m[column].total, 0n)
    expect([sum("payouts"), sum("withdrawals"), sum("deposits"), sum("received")])
      .toEqual([[...h.paid.values()].reduce((a, b) => a + b), h.withdrawn, h.deposited, h.received])
    expect(r.months.map((m) => m.month)).toEqual(["2026-01", "2026-02", "2026-03", "2026-04"])
  })

  it("with the wrong key, every channel is undecryptable and the key check says so", () => {
    const wrong = report(h, { auditorSecret: AUDITOR + 1n })
    expect(wrong.checks).toMatchObject({ keyMatches: false, breaks: 0, receiptsMatch: 0 })
    expect(wrong.rows.filter((row) => !row.decrypted).map((row) => row.kind)).toEqual(["transfer_in", "transfer", "transfer", "transfer", "withdraw", "transfer"])
    expect(wrong.contractors.every((c) => c.paid.count === 0 && c.undecryptable > 0)).toBe(true)
  })

  it("reads a rotated auditor id with each key over its ledgers, the old one kept (DESIGN_cont.md §8.3)", () => {
    const ROTATED = 0x7071a7edn
    const rotatedAt = 7
    const rotated = history(PAYROLL, (ledger) => (ledger < rotatedAt ? K_AUD : scalarMul(ROTATED, H)))
    const withSpans = (auditorSecrets: ReadonlyArray<{ secret: bigint; fromLedger?: number; untilLedger?: number }>) =>
      auditReport({ events: rotated.events, auditorSecrets, auditorKey: scalarMul(ROTATED, H), wallets: [WALLET], period: YEAR, payouts: rotated.payouts, receipts: rotated.receipts })
    const both = withSpans([{ secret: AUDITOR, untilLedger: rotatedAt }, { secret: ROTATED, fromLedger: rotatedAt }])
    expect(both.rows.every((row) => row.decrypted)).toBe(true)
    expect(both.checks).toEqual({ keyMatches: true, breaks: 0, undecryptable: 0, receiptsMatch: 3, receiptsDiffer: 0 })
    expect(both.contractors.map((c) => [c.contractorId, c.paid.total])).toEqual([...rotated.paid.entries()].sort())
    // A rotation recorded at a later ledger than it happened: the key of the span is tried first, the other next.
    const late = withSpans([{ secret: AUDITOR, untilLedger: 11 }, { secret: ROTATED, fromLedger: 11 }])
    expect(late.rows.every((row) => row.decrypted)).toBe(true)
    const onlyNew = report(rotated, { auditorSecret: ROTATED })
    expect(onlyNew.rows.filter((row) => !row.decrypted).every((row) => row.ledger < rotatedAt)).toBe(true)
    expect(onlyNew.checks.undecryptable).toBeGreaterThan(0)
    expect(() => withSpans([])).toThrow(/no auditor secret/)
  })

  it("names the receipt that differs from the decrypted amount, and the one of another transfer", () => {
    const receipts = h.receipts.map((rc, i) => (i === 0 ? { ...rc, amount: rc.amount + 1n } : i === 1 ? { ...rc, sigma: rc.sigma + 1n } : rc))
    const checked = report(h, { receipts })
    expect(checked.rows.flatMap((row) => (row.receipt === undefined ? [] : [row.receipt]))).toEqual([
      { status: "differs", what: "amount", receiptAmount: h.receipts[0]!.amount + 1n },
      { status: "differs", what: "sigma", receiptAmount: h.receipts[1]!.amount },
      { status: "matches" }
    ])
  })

  it("keeps events before the period for the opening balance, and lists only the period's rows", () => {
    const from = new Date(Date.parse(h.events[5]!.ledgerClosedAt))
    const to = new Date(Date.parse(h.events[8]!.ledgerClosedAt))
    const part = report(h, { period: { from, to } })
    expect(part.rows.map((row) => row.eventId)).toEqual(h.events.slice(5, 8).map((e) => e.id))
    expect(part.rows.every((row) => row.continuity === undefined || row.continuity.status === "continuous")).toBe(true)
    expect(part.wallets[0]!.openingSpendable).toBe(r.rows[3]!.balanceAfter)
  })

  it("reports unreadable events and events of a newer token version apart, ignoring other accounts' events", () => {
    const stray = { ...h.events[1]!, id: cursorString({ ledger: 2, tx: 2, op: 0, event: 0 }), value: "not base64 xdr" }
    const other = raw(3, tokenEvents.deposit(OUTSIDER, OUTSIDER, 5n))
    // 0fd261c2's Withdraw adds r_tilde_aud_s (#853) and its compliance extension a Clawback (#855): another derivation.
    const withdraw = tokenEvents.withdraw(WALLET, OUTSIDER, 5n, { r_e_point: pointToBytes(H), sigma: fieldToBytes(1n), b_tilde: fieldToBytes(2n), b_tilde_aud_s: fieldToBytes(3n) })
    const newer = raw(4, { topics: withdraw.topics, data: xdr.ScVal.scvMap([...(withdraw.data.type === "scvMap" ? withdraw.data.map ?? [] : []), new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("r_tilde_aud_s"), val: xdr.ScVal.scvBytes(fieldToBytes(4n)) })]) })
    const clawback = raw(5, contractEvent("clawback", [Address.fromString(WALLET).toScVal()], { amount: nativeToScVal(5n, { type: "i128" }) }))
    const withExtra = report(h, { events: [...h.events, stray, { ...other, id: cursorString({ ledger: 3, tx: 3, op: 0, event: 0 }) }, newer, clawback] })
    expect(withExtra.unreadable.map((u) => u.id)).toEqual([stray.id, newer.id, clawback.id])
    expect(withExtra.unreadable.slice(1).every((u) => u.reason.includes("newer token version"))).toBe(true)
    expect(withExtra.rows).toEqual(r.rows)
  })
})

describe("reportCsv and reportJson", () => {
  const h = history(PAYROLL)
  const tricky = "=HYPERLINK(\"http://x\"), \"Ltd\"\r\nline"
  const r = report(h, { payouts: h.payouts.map((p) => ({ ...p, contractorName: tricky })) })
  const csv = reportCsv(r)

  it("parses back with csv-parse: one record per operation, amounts as 7-place decimals, formulas inert", () => {
    const records = parse(csv.operations, { columns: true, relax_quotes: false }) as Array<Record<string, string>>
    expect(Object.keys(records[0]!)).toEqual([...OPERATION_COLUMNS])
    expect(records).toHaveLength(r.rows.length)
    records.forEach((record, i) => {
      const row = r.rows[i]!
      expect(record["event_id"]).toBe(row.eventId)
      expect(record["amount"]).toBe(row.amount === undefined ? "" : formatUnits(row.amount))
      expect(record["continuity"]).toBe(row.continuity?.status ?? "")
      expect(record["contractor_name"]).toBe(row.match.kind === "payout" ? `'${tricky}` : "")
    })
    const contractors = parse(csv.contractors, { columns: true }) as Array<Record<string, string>>
    expect(Object.keys(contractors[0]!)).toEqual([...CONTRACTOR_COLUMNS])
    expect(contractors.map((c) => [c["contractor_id"], c["total"]])).toEqual(r.contractors.map((c) => [c.contractorId, formatUnits(c.paid.total)]))
    const months = parse(csv.months, { columns: true }) as Array<Record<string, string>>
    expect(Object.keys(months[0]!)).toEqual([...MONTH_COLUMNS])
    expect(months.map((m) => m["month"])).toEqual(r.months.map((m) => m.month))
  })

  it("keeps a broken chain's negative expected balance a number, and other cells starting with '-' inert", () => {
    const row = r.rows.find((x) => x.kind === "transfer")!
    const broken = { ...row, continuity: { status: "breaks" as const, expected: -5_0000001n }, counterparty: "-2+3" }
    const [record] = parse(reportCsv({ ...r, rows: [broken] }).operations, { columns: true }) as Array<Record<string, string>>
    expect([record!["expected_balance"], record!["counterparty"]]).toEqual(["-5.0000001", "'-2+3"])
  })

  it("formats units exactly, negative included", () => {
    expect([formatUnits(0n), formatUnits(1n), formatUnits(12_3456789n), formatUnits(-5_0000001n)]).toEqual(["0.0000000", "0.0000001", "12.3456789", "-5.0000001"])
  })

  it("writes JSON with every amount an integer string", () => {
    const json = JSON.parse(JSON.stringify(reportJson(r))) as ReturnType<typeof reportJson>
    expect(json.decimals).toBe(7)
    expect(json.rows.map((row) => row.amount)).toEqual(r.rows.map((row) => row.amount?.toString()))
    expect(json.contractors[0]!.paid.total).toBe(r.contractors[0]!.paid.total.toString())
  })
})

describe("totals and continuity on generated histories", () => {
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant("deposit" as const), amount: fc.bigInt({ min: 0n, max: 10n ** 14n }) }),
    fc.constant({ kind: "merge" as const }),
    fc.record({ kind: fc.constant("transfer" as const), share: fc.integer({ min: 0, max: 1000 }), contractor: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }) }),
    fc.record({ kind: fc.constant("withdraw" as const), share: fc.integer({ min: 0, max: 1000 }) }),
    fc.record({ kind: fc.constant("transfer_in" as const), amount: fc.bigInt({ min: 0n, max: 10n ** 14n }) })
  )
  const steps = fc.array(step, { minLength: 1, maxLength: 10 })
  const runs = Number(process.env.FUZZ_RUNS ?? 1) * 15

  it("totals are the sums sent, every checkpoint continues the last, in any event order", () => {
    fc.assert(fc.property(steps, fc.integer(), (s, seed) => {
      const h = history(s)
      const shuffled = fc.sample(fc.shuffledSubarray(h.events, { minLength: h.events.length }), { numRuns: 1, seed })[0]!
      const r = report({ ...h, events: [...shuffled, ...h.events.slice(0, 2)] })
      expect(new Map(r.contractors.map((c) => [c.contractorId, c.paid.total]))).toEqual(h.paid)
      expect(r.months.reduce((t, m) => t + m.withdrawals.total, 0n)).toBe(h.withdrawn)
      expect(r.months.reduce((t, m) => t + m.deposits.total + m.received.total, 0n)).toBe(h.deposited + h.received)
      expect(r.rows.every((row) => row.continuity === undefined || row.continuity.status === "continuous")).toBe(true)
      expect(r.checks.receiptsMatch).toBe(h.receipts.length)
    }), { numRuns: runs })
  })

  it("a tampered amount breaks the chain at its checkpoint", () => {
    const spends = steps.filter((s) => s.some((x) => x.kind === "transfer"))
    fc.assert(fc.property(spends, fc.bigInt({ min: 1n, max: 1000n }), (s, delta) => {
      const h = history(s)
      const at = h.events.findIndex((e) => decodeAuditEvent(e)?.type === "transfer" && (decodeAuditEvent(e) as { from?: string }).from === WALLET)
      const event = proven(h.events[at]!) as Extract<ProvenEvent, { type: "transfer" }>
      const w = event.to
      const tampered = tokenEvents.transfer(WALLET, w, {
        r_e_point: pointToBytes(event.rE), v_tilde: fieldToBytes(0n), sigma: fieldToBytes(event.sigma), b_tilde: fieldToBytes(0n),
        v_tilde_aud_r: fieldToBytes(event.vTildeAudR), r_tilde_aud_r: fieldToBytes(event.rTildeAudR),
        v_tilde_aud_s: fieldToBytes(Fr.add(event.vTildeAudS, delta)), b_tilde_aud_s: fieldToBytes(event.bTildeAudS)
      })
      const events = h.events.map((e, i) => (i === at ? { ...raw(e.ledger, tampered, e.txHash) } : e))
      const r = report(h, { events })
      const row = r.rows.find((x) => x.eventId === h.events[at]!.id)!
      expect(row.continuity?.status).toBe("breaks")
      expect(r.checks.breaks).toBeGreaterThanOrEqual(1)
    }), { numRuns: runs })
  })
})
