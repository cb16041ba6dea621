import { expect, layer } from "@effect/vitest"
import { FetchHttpClient } from "@effect/platform"
import { Keypair, rpc, TransactionBuilder } from "@stellar/stellar-sdk"
import { parse } from "csv-parse/sync"
import { Context, Effect, Layer, Schedule } from "effect"
import { readFile } from "node:fs/promises"
import type { Browser, Page } from "playwright-core"
import { auditReport } from "../client/src/confidential/audit/AuditReport.ts"
import { prepareCall } from "../client/src/confidential/chain/Calls.ts"
import { MemoryStore } from "../client/src/confidential/state/Store.ts"
import { prepareRegistryCall } from "../client/src/escrow/AuditorRegistry.ts"
import { deriveEscrowKey, type EscrowKeyPair } from "../client/src/escrow/EscrowKey.ts"
import { sealEscrowSecret } from "../client/src/escrow/SealedEscrowSecret.ts"
import type { PayoutId } from "../src/Domain/Ids.ts"
import { accountHistory } from "../client/src/payroll/AuditSources.ts"
import { payBatch } from "../client/src/payroll/PayBatch.ts"
import { serviceChain } from "../client/src/payroll/ServiceChain.ts"
import { openServiceWallet } from "../client/src/payroll/ServiceWallet.ts"
import { sendTokenCall } from "../client/src/payroll/TokenCall.ts"
import { sealAmounts } from "../client/src/sealing/SealedAmounts.ts"
import { consoleBuilt, launchBrowser } from "./support/Browser.ts"
import { keypairSigner, provingSetup, sequenceOf, signAndSend } from "./support/ConfidentialProving.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { joinAs, must } from "./support/Members.ts"
import { psql } from "./support/Psql.ts"
import { loopbackDeployment, provingApp, publishSealingKey, registeredWallet, UNIT } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

// Issue 36 §3–§4 in Chromium, on the loopback token that verifies every proof with OZ's published keys and whose
// auditor registry follows OZ's (test/support/LoopbackAuditorRegistry.ts): the owner's escrow key registered (the owner
// being the registry's operator, the example contract's "manager"), a payer registered under its auditor id, a batch of
// two payouts paid with real proofs and sealed receipts, a transfer the same wallet makes outside the product, then a
// rotation and one transfer under the new key. The owner's Auditor's report page reads all of it with both keys.

const AUDITOR_ID = 5150
const DEPOSIT = 250n * UNIT
const PAID = { ada: 1_205_000_000n, grace: 802_500_000n } as const
const OUTSIDE = 127_500_000n
const AFTER_ROTATION = 50_000_000n

class Chromium extends Context.Tag("test/auditor-report/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleBuilt, launchBrowser))

type Row = Record<string, string>
const csv = (text: string) => parse(text, { columns: true, skip_empty_lines: true }) as Array<Row>
/** The token's units as the CSV writes them (7 decimals). */
const units = (v: bigint) => `${v / UNIT}.${(v % UNIT).toString().padStart(7, "0")}`

/** What the page hands to the browser's download for `button`, as text. */
const downloaded = async (page: Page, button: string) => {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: button }).click()])
  return await readFile((await file.path())!, "utf8")
}

/** The operator (the owner) sends a registry call straight to the ledger; the ledger it landed in. */
const operatorCall = (app: TestAppShape, operator: Keypair, fn: "register_key" | "rotate_key", point: string) =>
  Effect.gen(function*() {
    const server = new rpc.Server(app.rpc.url, { allowHttp: true })
    const tx = yield* Effect.promise(() =>
      prepareRegistryCall(server, app.rpc.networkPassphrase, tokenOf(app).auditorRegistry, sequenceOf(app.rpc, operator.publicKey()), {
        fn, auditorId: AUDITOR_ID, point, operator: operator.publicKey()
      }))
    expect(yield* signAndSend(server, tx, operator)).toBe("SUCCESS")
    return app.rpc.transaction(Buffer.from(tx.hash()).toString("hex"))!.ledger!
  })

layer(Layer.mergeAll(provingApp(), ChromiumLive), { timeout: 900_000, excludeTestServices: true })("the auditor's report in the console", (it) => {
  it.effect("payouts, a transfer outside the product and a rotation: the page decrypts, matches, totals and exports them", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const server = new rpc.Server(app.rpc.url, { allowHttp: true })
      const token = tokenOf(app)
      token.removeAuditorKey(AUDITOR_ID)

      const owner = yield* walletEmployer(app, "Audited Console Co")
      token.auditors.setOperator(owner.wallet.publicKey())
      yield* must(app, "PATCH", "/org/settings", owner.token, { approvalsRequired: 1 })
      const orgId = (yield* must(app, "GET", "/me", owner.token)).employer.orgId as string
      const payer = yield* joinAs(app, owner, "payer")
      const approver = yield* joinAs(app, owner, "approver")
      const readers = [
        yield* publishSealingKey(app, orgId, owner),
        yield* publishSealingKey(app, orgId, payer),
        yield* publishSealingKey(app, orgId, approver)
      ]
      const ownerReader = readers[0]!

      // The escrow key, derived from the owner's signature, sealed to the owner, stored, then registered.
      const escrowPair = (version: number) =>
        Effect.promise(() => deriveEscrowKey({ signer: keypairSigner(owner.wallet), account: owner.wallet.publicKey(), organizationId: orgId, version }))
      const sealedTo = (pair: EscrowKeyPair) => Effect.promise(() => sealEscrowSecret(pair, { organizationId: orgId, auditorId: AUDITOR_ID }, [ownerReader]))
      const first = yield* escrowPair(1)
      const created = yield* must(app, "POST", "/org/escrow-keys", owner.token, { auditorId: AUDITOR_ID, point: first.pointHex, version: 1, envelope: yield* sealedTo(first) })
      yield* operatorCall(app, owner.wallet, "register_key", first.pointHex)

      // The payer registers under the escrow key's auditor id through the service (POST /token/calls, a real proof),
      // so the service's audit trail names the wallet; deposits and merges.
      app.rpc.setAccount({ id: payer.wallet.publicKey() })
      const chain = yield* serviceChain(app.url, payer.token)
      const opened = yield* openServiceWallet({ baseUrl: app.url, chain, key: payer.wallet, setup: yield* provingSetup, store: new MemoryStore() })
      const own = (call: Parameters<typeof sendTokenCall>[4]) => sendTokenCall(app.url, payer.token, chain, payer.wallet, call)
      yield* own({ fn: "register", account: payer.wallet.publicKey(), auditorId: AUDITOR_ID, data: yield* opened.wallet.proveRegister() })
      expect(app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, payer.wallet.publicKey())!.auditorId).toBe(AUDITOR_ID)
      token.mintUnderlying(payer.wallet.publicKey(), DEPOSIT)
      yield* own({ fn: "deposit", from: payer.wallet.publicKey(), to: payer.wallet.publicKey(), amount: DEPOSIT })
      yield* own({ fn: "merge", account: payer.wallet.publicKey() })
      yield* opened.catchUp((b) => b.spendable === DEPOSIT)

      // Two contractors with their own wallets; a batch of one payout each, sealed, readied, approved, paid.
      const contractors: Array<{ name: string; key: Keypair; id: string; amount: bigint }> = []
      for (const [name, amount] of [["Ada Lovelace", PAID.ada], ["Grace Hopper", PAID.grace]] as const) {
        const key = Keypair.random()
        yield* registeredWallet(app, key)
        const c = yield* must(app, "POST", "/contractors", owner.token, { name, address: key.publicKey() })
        yield* Effect.repeat(must(app, "POST", `/contractors/${c.id}/check`, owner.token), {
          schedule: Schedule.spaced("200 millis"),
          until: (a) => a.status === "ready"
        }).pipe(Effect.timeout("60 seconds"), Effect.orDie)
        contractors.push({ name, key, id: c.id as string, amount })
      }
      const batch = yield* must(app, "POST", "/batches", owner.token, { name: "November contractors" })
      const payouts = (yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: contractors.map((c) => c.id) })) as Array<{ id: string; contractorId: string }>
      const contractorOf = (p: { contractorId: string }) => contractors.find((c) => c.id === p.contractorId)!
      const envelope = yield* Effect.promise(() => sealAmounts(batch.id, payouts.map((p) => ({ payoutId: p.id, amount: contractorOf(p).amount })), readers))
      const sealed = yield* must(app, "PUT", `/batches/${batch.id}/sealed-amounts`, owner.token, envelope)
      yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
      yield* must(app, "POST", `/batches/${batch.id}/approve`, approver.token, { sealedAmountsDigest: sealed.digest })
      const results = yield* payBatch({
        baseUrl: app.url,
        token: payer.token,
        opened,
        batchId: batch.id,
        recipients: readers,
        items: payouts.map((p) => ({ payoutId: p.id as PayoutId, to: contractorOf(p).key.publicKey(), amount: contractorOf(p).amount })),
        sign: (prepared) => {
          const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
          tx.sign(payer.wallet)
          return tx.toXDR()
        }
      })
      expect(results.map((r) => r.status)).toEqual(["SUCCESS", "SUCCESS"])
      const afterPayouts = DEPOSIT - PAID.ada - PAID.grace
      yield* opened.catchUp((b) => b.spendable === afterPayouts)

      // Outside the product: the same wallet pays Ada straight through Stellar RPC, no payout, not through the service.
      const direct = (to: string, amount: bigint) =>
        Effect.gen(function*() {
          const data = yield* opened.wallet.proveTransfer(to, amount)
          const tx = yield* Effect.promise(() =>
            prepareCall(server, loopbackDeployment(app), { account: payer.wallet.publicKey(), sequence: sequenceOf(app.rpc, payer.wallet.publicKey()) }, {
              fn: "confidential_transfer", from: payer.wallet.publicKey(), to, data
            }))
          expect(yield* signAndSend(server, tx, payer.wallet)).toBe("SUCCESS")
        })
      yield* direct(contractors[0]!.key.publicKey(), OUTSIDE)
      yield* opened.catchUp((b) => b.spendable === afterPayouts - OUTSIDE)

      // The rotation: rotate_key on the registry, recorded with the ledger it landed in; a transfer under the new key.
      const second = yield* escrowPair(2)
      const replacedAtLedger = yield* operatorCall(app, owner.wallet, "rotate_key", second.pointHex)
      yield* must(app, "POST", `/org/escrow-keys/${created.id}/rotate`, owner.token, { point: second.pointHex, version: 2, envelope: yield* sealedTo(second), replacedAtLedger })
      yield* direct(contractors[1]!.key.publicKey(), AFTER_ROTATION)
      const closing = afterPayouts - OUTSIDE - AFTER_ROTATION
      yield* opened.catchUp((b) => b.spendable === closing)

      // Without the old key, nothing before the rotation opens: the report below reads those events with it.
      // (The archive trails the ledger by a poll: the wallet's own openings do not wait for it.)
      const { events } = yield* accountHistory(app.url, CONFIDENTIAL_TOKEN, payer.wallet.publicKey(), "transfer").pipe(
        Effect.filterOrFail((h) => h.events.length === 4, () => "not yet" as const),
        Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 150 }),
        Effect.orDie
      )
      const day = 86_400_000
      const newKeyOnly = auditReport({
        events, auditorSecret: second.secret, wallets: [payer.wallet.publicKey()], payouts: [],
        period: { from: new Date(Date.now() - day), to: new Date(Date.now() + day) }
      })
      expect(newKeyOnly.rows.filter((r) => r.kind === "transfer").map((r) => [r.decrypted, r.amount])).toEqual([[false, undefined], [false, undefined], [false, undefined], [true, AFTER_ROTATION]])

      const person = yield* Effect.promise(() => personAt(browser, app, owner.wallet))
      const report = yield* Effect.promise(async () => {
        const page = person.page
        await signIn(person, "/app/auditor-report")
        await heading(page, "Auditor's report")
        await expect.poll(() => page.getByLabel(/Paying wallets/).inputValue(), { timeout: 15_000 }).toBe(payer.wallet.publicKey())
        await inspect(person, "auditor-report-input")
        // A period that ends before it starts is refused before anything is unlocked or read.
        const until = page.getByLabel("Until (UTC, not included)")
        const end = await until.inputValue()
        const asked = person.confirmations.signMessage
        await until.fill("2020-01-01")
        await page.getByRole("button", { name: "Unlock the escrow key and build the report" }).click()
        await expect.poll(() => page.getByRole("alert").allTextContents()).toEqual([expect.stringContaining("The period ends after it starts")])
        expect(person.confirmations.signMessage).toBe(asked)
        await until.fill(end)
        await page.getByRole("button", { name: "Unlock the escrow key and build the report" }).click()
        await page.getByTestId("report-checks").or(page.getByRole("alert")).first().waitFor({ timeout: 120_000 })
        expect(await page.getByRole("alert").allTextContents()).toEqual([])
        const cells = async (id: string) =>
          await Promise.all((await page.getByTestId(id).locator("tbody tr").all()).map((row) => row.locator("td").allTextContents()))
        const operations = await cells("report-operations")
        const contractorRows = await cells("report-contractors")
        const monthRows = await cells("report-months")
        const checks = await Promise.all((await page.getByTestId("report-checks").locator("div").all()).map(async (fact) =>
          [await fact.locator("dt").textContent(), await fact.locator("dd").textContent()]))
        await inspect(person, "auditor-report")
        const files = {
          operations: await downloaded(page, "Download operations.csv"),
          contractors: await downloaded(page, "Download contractors.csv"),
          months: await downloaded(page, "Download months.csv"),
          json: await downloaded(page, "Download report.json")
        }
        expect(person.problems).toEqual([])
        return { operations, contractorRows, monthRows, checks, files }
      })

      // The page: each payout matched to its contractor and batch, the outside transfers "not a payout here".
      const batchTag = `batch ${(batch.id as string).slice(0, 8)}`
      const ada = contractors[0]!.key.publicKey()
      const grace = contractors[1]!.key.publicKey()
      const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`
      expect(report.operations.map((r) => [r[2], r[3], r[4], r[5], r[6]])).toEqual([
        ["Deposit", short(payer.wallet.publicKey()), "250.00", "", ""],
        ["Merge", "", "250.00", "250.00", ""],
        ["Transfer", short(ada), "120.50", "129.50", `Payout to Ada Lovelace (${batchTag})`],
        ["Transfer", short(grace), "80.25", "49.25", `Payout to Grace Hopper (${batchTag})`],
        ["Transfer", short(ada), "12.75", "36.50", "not a payout here"],
        ["Transfer", short(grace), "5.00", "31.50", "not a payout here"]
      ])
      expect(report.operations.slice(2).map((r) => r[7])).toEqual([
        "balance continuous; receipt matches", "balance continuous; receipt matches", "balance continuous", "balance continuous"
      ])
      expect(report.contractorRows).toEqual([["Ada Lovelace", "1", "120.50", "0"], ["Grace Hopper", "1", "80.25", "0"]])
      const month = new Date().toISOString().slice(0, 7)
      expect(report.monthRows).toEqual([[month, "200.75", "17.75", "0.00", "250.00"]])
      expect(report.checks).toEqual([
        ["Balance continuity", "unbroken: 4 checkpoint(s)"],
        ["Operations the key did not open", "0"],
        ["Sealed receipts", "2 match, 0 differ"],
        ["Auditor registry", "holds the current escrow key"]
      ])

      // The accountant's files, read back by csv-parse.
      const operations = csv(report.files.operations)
      expect(operations.map((r) => [r.operation, r.amount, r.balance_after, r.continuity, r.payout, r.contractor_name, r.receipt, r.decrypted])).toEqual([
        ["deposit", units(DEPOSIT), "", "", "not a payout here", "", "", "yes"],
        ["merge", units(DEPOSIT), units(DEPOSIT), "", "not a payout here", "", "", "yes"],
        ["transfer", units(PAID.ada), units(DEPOSIT - PAID.ada), "continuous", "payout", "Ada Lovelace", "matches", "yes"],
        ["transfer", units(PAID.grace), units(afterPayouts), "continuous", "payout", "Grace Hopper", "matches", "yes"],
        ["transfer", units(OUTSIDE), units(afterPayouts - OUTSIDE), "continuous", "not a payout here", "", "", "yes"],
        ["transfer", units(AFTER_ROTATION), units(closing), "continuous", "not a payout here", "", "", "yes"]
      ])
      const payoutIds = new Map(payouts.map((p) => [contractorOf(p).name, p.id]))
      expect(operations.filter((r) => r.payout === "payout").map((r) => [r.payout_id, r.batch_id, r.contractor_id])).toEqual(
        contractors.map((c) => [payoutIds.get(c.name), batch.id, c.id])
      )
      expect(operations.slice(4).map((r) => r.counterparty)).toEqual(contractors.map((c) => c.key.publicKey()))
      expect(operations.every((r) => r.wallet === payer.wallet.publicKey() && r.month === month)).toBe(true)
      // Rows before the rotation's ledger were read with the old key, the last one with the new.
      expect(operations.slice(0, 5).every((r) => Number(r.ledger) < replacedAtLedger)).toBe(true)
      expect(Number(operations[5]!.ledger)).toBeGreaterThan(replacedAtLedger)

      const contractorTotals = csv(report.files.contractors)
      expect(contractorTotals.map((r) => [r.contractor_id, r.contractor_name, r.payouts, r.total, r.undecryptable_payouts])).toEqual(
        contractors.map((c) => [c.id, c.name, "1", units(c.amount), "0"])
      )
      const months = csv(report.files.months)
      expect(months.map((r) => [r.month, r.payouts, r.payouts_total, r.other_transfers, r.other_transfers_total, r.withdrawals_total, r.deposits_total])).toEqual([
        [month, "2", units(PAID.ada + PAID.grace), "2", units(OUTSIDE + AFTER_ROTATION), units(0n), units(DEPOSIT)]
      ])
      const sum = (rows: ReadonlyArray<Row>, pick: (r: Row) => boolean) =>
        rows.filter(pick).reduce((s, r) => s + BigInt(r.amount!.replace(".", "")), 0n)
      expect(units(sum(operations, (r) => r.payout === "payout"))).toBe(months[0]!.payouts_total)
      expect(units(sum(operations, (r) => r.operation === "transfer" && r.payout !== "payout"))).toBe(months[0]!.other_transfers_total)

      const json = JSON.parse(report.files.json)
      expect(json.decimals).toBe(7)
      expect(json.checks).toEqual({ breaks: 0, undecryptable: 0, receiptsMatch: 2, receiptsDiffer: 0 })
      expect(json.rows.map((r: { amount: string }) => r.amount)).toEqual([DEPOSIT, DEPOSIT, PAID.ada, PAID.grace, OUTSIDE, AFTER_ROTATION].map(String))
      expect(json.contractors.map((c: { paid: { total: string } }) => c.paid.total)).toEqual([String(PAID.ada), String(PAID.grace)])
      expect(json.wallets).toMatchObject([{ wallet: payer.wallet.publicKey(), closingSpendable: String(closing), checkpoints: 4, breaks: 0, unchecked: 0, undecryptable: 0 }])

      // The service saw nothing new: no private amount, no escrow secret in any of its tables after the page's report
      // (test/no-amounts.test.ts searches every form, its logs and exports too).
      const tables = yield* psql<{ name: string }>(app, "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables " +
        "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')").pipe(Effect.orDie)
      const stored: Array<string> = []
      for (const t of tables) stored.push(...(yield* psql<{ row: string }>(app, `SELECT t::text AS row FROM ${t.name} t`).pipe(Effect.orDie)).map((r) => r.row))
      const text = stored.join("\n").toLowerCase()
      const needles = [
        ...[PAID.ada, PAID.grace, OUTSIDE, AFTER_ROTATION].flatMap((v) => [v.toString(), units(v)]),
        ...[first.secret, second.secret].flatMap((k) => [k.toString(), k.toString(16).padStart(64, "0"), Buffer.from(k.toString(16).padStart(64, "0"), "hex").toString("base64")])
      ]
      // The search reads what the service keeps: the payer's wallet (audit trail) and the escrow keys' points are there.
      expect([payer.wallet.publicKey(), first.pointHex, second.pointHex].map((n) => text.includes(n.toLowerCase()))).toEqual([true, true, true])
      expect(needles.filter((n) => text.includes(n.toLowerCase()))).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 900_000)
})
