import { expect, layer } from "@effect/vitest"
import { FetchHttpClient } from "@effect/platform"
import { Keypair, rpc } from "@stellar/stellar-sdk"
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
import { accountHistory } from "../client/src/payroll/AuditSources.ts"
import { serviceChain } from "../client/src/payroll/ServiceChain.ts"
import { openServiceWallet } from "../client/src/payroll/ServiceWallet.ts"
import { sendTokenCall } from "../client/src/payroll/TokenCall.ts"
import { sealAmounts } from "../client/src/sealing/SealedAmounts.ts"
import { consoleAndProverBuilt, launchBrowser } from "./support/Browser.ts"
import { keypairSigner, provingSetup, sequenceOf, signAndSend } from "./support/ConfidentialProving.ts"
import { checkAgainstChain, payUntilCompleted, unlockAmounts } from "./support/ConsolePay.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { joinAs, must } from "./support/Members.ts"
import { cliUser, json } from "./support/PayrollCli.ts"
import { psql } from "./support/Psql.ts"
import { loopbackDeployment, provingApp, publishSealingKey, registeredWallet, UNIT } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

// Issue 36 §3–§4 end to end in Chromium, on the loopback token that verifies every proof with OZ's published keys and
// whose auditor registry follows OZ's (test/support/LoopbackAuditorRegistry.ts): the owner's escrow key registered (the
// owner being the registry's operator, the example contract's "manager"), a payer registered under its auditor id, a
// batch paid by the `payroll` CLI and another on the console's Pay batch page (real proofs, sealed receipts), a
// transfer the same wallet makes outside the product, then a rotation and one transfer under the new key. The owner's
// Auditor's report page reads all of it with both keys.

const AUDITOR_ID = 5150
const DEPOSIT = 400n * UNIT
const PAID = { ada: 1_205_000_000n, grace: 802_500_000n, adaAgain: 604_000_000n, katherine: 330_500_000n } as const
const OUTSIDE = 127_500_000n
const AFTER_ROTATION = 50_000_000n

type Contractor = { readonly name: string; readonly key: Keypair; readonly id: string }
/** A payout of one of the scene's batches, in the order it is paid. */
type Paid = { readonly batchId: string; readonly payoutId: string; readonly contractor: Contractor; readonly amount: bigint }

class Chromium extends Context.Tag("test/auditor-report/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleAndProverBuilt, launchBrowser))

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

layer(Layer.mergeAll(provingApp(), ChromiumLive), { timeout: 1_500_000, excludeTestServices: true })("the auditor's report in the console", (it) => {
  it.effect("a batch paid by the CLI, one on the console, a transfer outside the product, a rotation: the page decrypts, matches, totals and exports them", () =>
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

      // Three contractors with their own wallets; two batches, each sealed for the owner, payer and approver, readied and
      // approved: the first is paid by the `payroll` CLI (a child process holding the payer's secret), the second by
      // the payer on the console's Pay batch page, proving in Chromium.
      const contractors: Array<{ name: string; key: Keypair; id: string }> = []
      for (const name of ["Ada Lovelace", "Grace Hopper", "Katherine Johnson"]) {
        const key = Keypair.random()
        yield* registeredWallet(app, key)
        const c = yield* must(app, "POST", "/contractors", owner.token, { name, address: key.publicKey() })
        yield* Effect.repeat(must(app, "POST", `/contractors/${c.id}/check`, owner.token), {
          schedule: Schedule.spaced("200 millis"),
          until: (a) => a.status === "ready"
        }).pipe(Effect.timeout("60 seconds"), Effect.orDie)
        contractors.push({ name, key, id: c.id as string })
      }
      const [ada, grace, katherine] = contractors as [Contractor, Contractor, Contractor]
      const approvedBatch = (name: string, lines: ReadonlyArray<readonly [Contractor, bigint]>) =>
        Effect.gen(function*() {
          const batch = yield* must(app, "POST", "/batches", owner.token, { name })
          yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: lines.map(([c]) => c.id) })
          // Both the CLI and the page pay in the order the service lists the payouts (not the order they were added in).
          const listed = (yield* must(app, "GET", `/batches/${batch.id}/payouts`, owner.token)).items as Array<{ id: string; contractorId: string }>
          expect(listed).toHaveLength(lines.length)
          const paid: Array<Paid> = listed.map((p) => {
            const [contractor, amount] = lines.find(([c]) => c.id === p.contractorId)!
            return { batchId: batch.id as string, payoutId: p.id, contractor, amount }
          })
          const envelope = yield* Effect.promise(() => sealAmounts(batch.id, paid.map((p) => ({ payoutId: p.payoutId, amount: p.amount })), readers))
          const sealed = yield* must(app, "PUT", `/batches/${batch.id}/sealed-amounts`, owner.token, envelope)
          yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
          yield* must(app, "POST", `/batches/${batch.id}/approve`, approver.token, { sealedAmountsDigest: sealed.digest })
          return { id: batch.id as string, paid }
        })
      const completed = (batchId: string) =>
        Effect.repeat(must(app, "GET", `/batches/${batchId}`, owner.token), { schedule: Schedule.spaced("200 millis"), until: (b) => b.status === "completed" }).pipe(
          Effect.timeout("60 seconds"),
          Effect.orDie
        )
      const fromCli = yield* approvedBatch("November contractors", [[ada, PAID.ada], [grace, PAID.grace]])
      const fromConsole = yield* approvedBatch("December contractors", [[ada, PAID.adaAgain], [katherine, PAID.katherine]])

      const cli = cliUser(app.url)
      const paidByCli = yield* cli.run(["batches", "pay", "--json", "--secret-file", cli.secretFile(payer.wallet), fromCli.id])
      expect(paidByCli.code, paidByCli.stderr).toBe(0)
      expect(json(paidByCli)).toMatchObject({ remaining: 0, paid: fromCli.paid.map((p) => ({ payoutId: p.payoutId, status: "SUCCESS" })) })
      yield* completed(fromCli.id)
      const afterCli = DEPOSIT - PAID.ada - PAID.grace
      // The in-process wallet holds none of the CLI's openings: it rebuilds from the archive once it has the CLI's spends.
      yield* opened.catchUp((b) => b.spendable === afterCli)

      const payerAt = yield* Effect.promise(() => personAt(browser, app, payer.wallet))
      yield* Effect.promise(async () => {
        const page = payerAt.page
        await signIn(payerAt, `/app/batches/${fromConsole.id}`)
        await heading(page, "December contractors")
        await unlockAmounts(page, "93.45")
        await payUntilCompleted(page)
        expect(await checkAgainstChain(page, 2)).toBe("2 of 2 sent payouts paid as approved.")
        await inspect(payerAt, "auditor-report-console-paid")
        expect(payerAt.problems).toEqual([])
        await payerAt.context.close()
      })
      yield* completed(fromConsole.id)
      const afterPayouts = afterCli - PAID.adaAgain - PAID.katherine
      yield* opened.catchUp((b) => b.spendable === afterPayouts)
      const payouts = [...fromCli.paid, ...fromConsole.paid]

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
      yield* direct(ada.key.publicKey(), OUTSIDE)
      yield* opened.catchUp((b) => b.spendable === afterPayouts - OUTSIDE)

      // The rotation: rotate_key on the registry, recorded with the ledger it landed in; a transfer under the new key.
      const second = yield* escrowPair(2)
      const replacedAtLedger = yield* operatorCall(app, owner.wallet, "rotate_key", second.pointHex)
      yield* must(app, "POST", `/org/escrow-keys/${created.id}/rotate`, owner.token, { point: second.pointHex, version: 2, envelope: yield* sealedTo(second), replacedAtLedger })
      yield* direct(grace.key.publicKey(), AFTER_ROTATION)
      const closing = afterPayouts - OUTSIDE - AFTER_ROTATION
      yield* opened.catchUp((b) => b.spendable === closing)

      // Without the old key, nothing before the rotation opens: the report below reads those events with it.
      // (The archive trails the ledger by a poll: the wallet's own openings do not wait for it.)
      const { events } = yield* accountHistory(app.url, CONFIDENTIAL_TOKEN, payer.wallet.publicKey(), "transfer").pipe(
        Effect.filterOrFail((h) => h.events.length === 6, () => "not yet" as const),
        Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 150 }),
        Effect.orDie
      )
      const day = 86_400_000
      const newKeyOnly = auditReport({
        events, auditorSecret: second.secret, wallets: [payer.wallet.publicKey()], payouts: [],
        period: { from: new Date(Date.now() - day), to: new Date(Date.now() + day) }
      })
      expect(newKeyOnly.rows.filter((r) => r.kind === "transfer").map((r) => [r.decrypted, r.amount])).toEqual([...Array.from({ length: 5 }, () => [false, undefined]), [true, AFTER_ROTATION]])

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

      // Every transfer in the order it landed, and the balance after it.
      const transfers = [
        ...payouts.map((p) => ({ to: p.contractor, amount: p.amount, payout: p as Paid | undefined })),
        { to: ada, amount: OUTSIDE, payout: undefined },
        { to: grace, amount: AFTER_ROTATION, payout: undefined }
      ]
      const balances = transfers.reduce<Array<bigint>>((after, t) => [...after, (after.at(-1) ?? DEPOSIT) - t.amount], [])
      expect(balances.at(-1)).toBe(closing)

      // The page: each payout matched to its contractor and its batch (the CLI's, then the console's), the transfers
      // outside the product "not a payout here". (Every amount here is whole cents, as the page shows them.)
      const shown = (v: bigint) => units(v).slice(0, -5)
      const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`
      const tagOf = (batchId: string) => `batch ${batchId.slice(0, 8)}`
      expect(report.operations.map((r) => [r[2], r[3], r[4], r[5], r[6]])).toEqual([
        ["Deposit", short(payer.wallet.publicKey()), "400.00", "", ""],
        ["Merge", "", "400.00", "400.00", ""],
        ...transfers.map((t, i) => [
          "Transfer", short(t.to.key.publicKey()), shown(t.amount), shown(balances[i]!),
          t.payout === undefined ? "not a payout here" : `Payout to ${t.to.name} (${tagOf(t.payout.batchId)})`
        ])
      ])
      expect(report.operations.slice(2).map((r) => r[7])).toEqual([
        ...payouts.map(() => "balance continuous; receipt matches"), "balance continuous", "balance continuous"
      ])
      expect(report.operations.at(-1)!.slice(4, 6)).toEqual(["5.00", "88.05"])
      expect(report.contractorRows).toEqual([["Ada Lovelace", "2", "180.90", "0"], ["Grace Hopper", "1", "80.25", "0"], ["Katherine Johnson", "1", "33.05", "0"]])
      const month = new Date().toISOString().slice(0, 7)
      expect(report.monthRows).toEqual([[month, "294.20", "17.75", "0.00", "400.00"]])
      expect(report.checks).toEqual([
        ["Balance continuity", "unbroken: 6 checkpoint(s)"],
        ["Operations the key did not open", "0"],
        ["Sealed receipts", "4 match, 0 differ"],
        ["Auditor registry", "holds the current escrow key"]
      ])

      // The accountant's files, read back by csv-parse.
      const operations = csv(report.files.operations)
      expect(operations.map((r) => [r.operation, r.amount, r.balance_after, r.continuity, r.payout, r.contractor_name, r.receipt, r.decrypted])).toEqual([
        ["deposit", units(DEPOSIT), "", "", "not a payout here", "", "", "yes"],
        ["merge", units(DEPOSIT), units(DEPOSIT), "", "not a payout here", "", "", "yes"],
        ...transfers.map((t, i) => [
          "transfer", units(t.amount), units(balances[i]!), "continuous",
          ...(t.payout === undefined ? ["not a payout here", "", ""] : ["payout", t.to.name, "matches"]), "yes"
        ])
      ])
      expect(operations.filter((r) => r.payout === "payout").map((r) => [r.payout_id, r.batch_id, r.contractor_id])).toEqual(
        payouts.map((p) => [p.payoutId, p.batchId, p.contractor.id])
      )
      expect(operations.slice(2).map((r) => r.counterparty)).toEqual(transfers.map((t) => t.to.key.publicKey()))
      expect(operations.every((r) => r.wallet === payer.wallet.publicKey() && r.month === month)).toBe(true)
      // Rows before the rotation's ledger were read with the old key, the last one with the new.
      expect(operations.slice(0, -1).every((r) => Number(r.ledger) < replacedAtLedger)).toBe(true)
      expect(Number(operations.at(-1)!.ledger)).toBeGreaterThan(replacedAtLedger)

      const paidTo = (c: Contractor) => payouts.filter((p) => p.contractor === c)
      const contractorTotals = csv(report.files.contractors)
      expect(contractorTotals.map((r) => [r.contractor_id, r.contractor_name, r.payouts, r.total, r.undecryptable_payouts])).toEqual(
        contractors.map((c) => [c.id, c.name, String(paidTo(c).length), units(paidTo(c).reduce((s, p) => s + p.amount, 0n)), "0"])
      )
      const months = csv(report.files.months)
      const paidTotal = payouts.reduce((s, p) => s + p.amount, 0n)
      expect(months.map((r) => [r.month, r.payouts, r.payouts_total, r.other_transfers, r.other_transfers_total, r.withdrawals_total, r.deposits_total])).toEqual([
        [month, "4", units(paidTotal), "2", units(OUTSIDE + AFTER_ROTATION), units(0n), units(DEPOSIT)]
      ])
      const sum = (rows: ReadonlyArray<Row>, pick: (r: Row) => boolean) =>
        rows.filter(pick).reduce((s, r) => s + BigInt(r.amount!.replace(".", "")), 0n)
      expect(units(sum(operations, (r) => r.payout === "payout"))).toBe(months[0]!.payouts_total)
      expect(units(sum(operations, (r) => r.operation === "transfer" && r.payout !== "payout"))).toBe(months[0]!.other_transfers_total)
      expect(units(sum(contractorTotals.map((r) => ({ amount: r.total! })), () => true))).toBe(months[0]!.payouts_total)

      const exported = JSON.parse(report.files.json)
      expect(exported.decimals).toBe(7)
      expect(exported.checks).toEqual({ breaks: 0, undecryptable: 0, receiptsMatch: 4, receiptsDiffer: 0 })
      expect(exported.rows.map((r: { amount: string }) => r.amount)).toEqual([DEPOSIT, DEPOSIT, ...transfers.map((t) => t.amount)].map(String))
      expect(exported.contractors.map((c: { paid: { total: string } }) => c.paid.total)).toEqual(
        contractors.map((c) => String(paidTo(c).reduce((s, p) => s + p.amount, 0n)))
      )
      expect(exported.wallets).toMatchObject([{ wallet: payer.wallet.publicKey(), closingSpendable: String(closing), checkpoints: 6, breaks: 0, unchecked: 0, undecryptable: 0 }])

      // The service saw nothing new: no private amount, no escrow secret in any of its tables after the page's report
      // (test/no-amounts.test.ts searches every form, its logs and exports too).
      const tables = yield* psql<{ name: string }>(app, "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables " +
        "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')").pipe(Effect.orDie)
      const stored: Array<string> = []
      for (const t of tables) stored.push(...(yield* psql<{ row: string }>(app, `SELECT t::text AS row FROM ${t.name} t`).pipe(Effect.orDie)).map((r) => r.row))
      const text = stored.join("\n").toLowerCase()
      const needles = [
        ...[...Object.values(PAID), OUTSIDE, AFTER_ROTATION].flatMap((v) => [v.toString(), units(v)]),
        ...[first.secret, second.secret].flatMap((k) => [k.toString(), k.toString(16).padStart(64, "0"), Buffer.from(k.toString(16).padStart(64, "0"), "hex").toString("base64")])
      ]
      // The search reads what the service keeps: the payer's wallet (audit trail) and the escrow keys' points are there.
      expect([payer.wallet.publicKey(), first.pointHex, second.pointHex].map((n) => text.includes(n.toLowerCase()))).toEqual([true, true, true])
      expect(needles.filter((n) => text.includes(n.toLowerCase()))).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 1_500_000)
})
