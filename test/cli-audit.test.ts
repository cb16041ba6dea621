import { expect, layer } from "@effect/vitest"
import { Keypair, rpc, TransactionBuilder } from "@stellar/stellar-sdk"
import { parse } from "csv-parse/sync"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Schedule } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { prepareCall } from "../client/src/confidential/chain/Calls.ts"
import { loopbackWallet, provingSetup, sequenceOf, signAndSend, syncUntil } from "./support/ConfidentialProving.ts"
import { joinAs, must } from "./support/Members.ts"
import { cliUser, json } from "./support/PayrollCli.ts"
import { loopbackDeployment, ProvingApp, publishSealingKey, registeredWallet, UNIT } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

// The escrow key and the auditor's report from the CLI (issue 36 §2–§3), against the service on the loopback ledger
// whose token verifies every proof and whose auditor registry follows OZ's (test/support/LoopbackAuditorRegistry.ts).
// The registry's operator is first outside the organization (it signs the call the CLI prepared and sends it to the
// ledger itself), then the owner (the CLI signs and the service sponsors it).

const AUDITOR_ID = 4242
type Row = Record<string, string>
const csv = (path: string) => parse(readFileSync(path, "utf8"), { columns: true, skip_empty_lines: true }) as Array<Row>
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

layer(ProvingApp, { timeout: "600 seconds" })("payroll CLI: the escrow key and the audit report", (it) => {
  it.effect("escrow create → the operator registers → a payer registers under it and pays → rotation → audit report reads every operation", () =>
    Effect.scoped(Effect.gen(function*() {
      const app = yield* TestApp
      const server = new rpc.Server(app.rpc.url, { allowHttp: true })
      const operator = Keypair.random()
      app.rpc.setAccount({ id: operator.publicKey() })
      tokenOf(app).auditors.setOperator(operator.publicKey())
      tokenOf(app).removeAuditorKey(AUDITOR_ID)
      /** The operator signs what the CLI prepared and sends it to the ledger; the transaction's hash. */
      const operatorSends = (xdr: string) =>
        Effect.gen(function*() {
          const tx = TransactionBuilder.fromXDR(xdr, app.rpc.networkPassphrase)
          expect(yield* signAndSend(server, tx as never, operator)).toBe("SUCCESS")
          return Buffer.from(tx.hash()).toString("hex")
        })

      const owner = yield* walletEmployer(app, "Audited Co")
      yield* must(app, "PATCH", "/org/settings", owner.token, { approvalsRequired: 1 })
      const orgId = (yield* must(app, "GET", "/me", owner.token)).employer.orgId as string
      const payer = yield* joinAs(app, owner, "payer")
      const approver = yield* joinAs(app, owner, "approver")
      // An admin may audit (audit:disclose); the auditor role cannot publish a sealing key yet (PUT /me/sealing-key asks amounts:read).
      const auditor = yield* joinAs(app, owner, "admin")
      const cli = cliUser(app.url)
      const ownerSecret = cli.secretFile(owner.wallet)
      const payerSecret = cli.secretFile(payer.wallet)
      const auditorSecret = cli.secretFile(auditor.wallet)

      // The owner creates the key; the CLI prepares register_key for the operator, who is not the owner.
      const notYet = yield* cli.run(["escrow", "status", "--json", "--secret-file", ownerSecret])
      expect(json(notYet)).toEqual({ keys: [], current: null, registry: null })
      const created = yield* cli.run(["escrow", "create", "--json", "--secret-file", ownerSecret, "--auditor-id", String(AUDITOR_ID), "--operator", operator.publicKey()])
      expect(created.code, created.stderr).toBe(0)
      expect(json(created)).toMatchObject({ key: { auditorId: AUDITOR_ID, version: 1, current: true }, registry: { status: "prepared", fn: "register_key", operator: operator.publicKey() } })
      const again = yield* cli.run(["escrow", "create", "--secret-file", ownerSecret, "--auditor-id", String(AUDITOR_ID)])
      expect(again.code).toBe(2)
      // The payer cannot register under a key the registry does not hold yet.
      const early = yield* cli.run(["treasury", "register", "--secret-file", payerSecret])
      expect(early.code).toBe(2)
      expect(early.stderr).toContain("payroll escrow status")
      yield* operatorSends(json(created).registry.xdr)
      const status = yield* cli.run(["escrow", "status", "--json", "--secret-file", ownerSecret])
      expect(json(status)).toMatchObject({ registry: { status: "registered" }, keys: [{ version: 1, current: true }] })

      // The admin publishes a sealing key; a share adds them to the secret's envelope.
      yield* publishSealingKey(app, orgId, auditor)
      const share = yield* cli.run(["escrow", "share", "--json", "--secret-file", ownerSecret])
      expect(share.code, share.stderr).toBe(0)
      expect(json(share).shared).toHaveLength(1)

      // A payer registers from the CLI, under the escrow key's auditor id (a real proof; sponsored), and funds the wallet.
      const registered = yield* cli.run(["treasury", "register", "--json", "--secret-file", payerSecret])
      expect(registered.code, registered.stderr).toBe(0)
      expect(app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, payer.wallet.publicKey())!.auditorId).toBe(AUDITOR_ID)
      tokenOf(app).mintUnderlying(payer.wallet.publicKey(), 6n * UNIT)
      expect((yield* cli.run(["treasury", "deposit", "--secret-file", payerSecret, "6"])).code).toBe(0)
      expect((yield* cli.run(["treasury", "merge", "--secret-file", payerSecret])).code).toBe(0)

      // A batch of two payouts, sealed and paid from the CLI.
      const people = [{ name: "Ada", amount: "3" }, { name: "Grace", amount: "2" }]
      const contractors: Array<{ name: string; key: Keypair; id: string }> = []
      for (const person of people) {
        const key = Keypair.random()
        yield* registeredWallet(app, key)
        const c = yield* must(app, "POST", "/contractors", owner.token, { name: person.name, address: key.publicKey() })
        yield* Effect.repeat(must(app, "POST", `/contractors/${c.id}/check`, owner.token), { schedule: Schedule.spaced("200 millis"), until: (a) => a.status === "ready" })
        contractors.push({ name: person.name, key, id: c.id as string })
      }
      yield* publishSealingKey(app, orgId, payer)
      const batch = yield* must(app, "POST", "/batches", owner.token, { name: "March" })
      yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: contractors.map((c) => c.id) })
      const amounts = join(cli.home, "amounts.csv")
      writeFileSync(amounts, `contractor,amount\n${contractors.map((c, i) => `${c.id},${people[i]!.amount}`).join("\n")}\n`)
      const sealed = yield* cli.run(["batches", "seal", "--json", "--secret-file", ownerSecret, "--csv", amounts, batch.id])
      expect(sealed.code, sealed.stderr).toBe(0)
      yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
      yield* must(app, "POST", `/batches/${batch.id}/approve`, approver.token, { sealedAmountsDigest: json(sealed).digest })
      const paid = yield* cli.run(["batches", "pay", "--json", "--secret-file", payerSecret, batch.id])
      expect(paid.code, paid.stderr).toBe(0)

      // The key is rotated by the owner, now the registry's operator: the CLI signs rotate_key, the service sponsors it
      // (POST /escrow/registry-calls), and the new key is recorded with the ledger it landed in.
      const wrong = yield* cli.run(["escrow", "rotate", "--secret-file", ownerSecret, "--landed", "0".repeat(64)])
      expect(wrong.code).toBe(4)
      tokenOf(app).auditors.setOperator(owner.wallet.publicKey())
      const rotated = yield* cli.run(["escrow", "rotate", "--json", "--secret-file", ownerSecret])
      expect(rotated.code, rotated.stderr).toBe(0)
      expect(json(rotated)).toMatchObject({ key: { version: 2, current: true }, replacedAtLedger: expect.any(Number) })
      const keys = json(yield* cli.run(["escrow", "status", "--json", "--secret-file", ownerSecret]))
      expect(keys).toMatchObject({ registry: { status: "registered" }, keys: [{ version: 1, current: false }, { version: 2, current: true }] })
      expect(keys.keys[0].validUntilLedger).toBe(json(rotated).replacedAtLedger)

      // A transfer outside the product from the same wallet, encrypted to the new key: to Ada, but no payout.
      const wallet = yield* loopbackWallet(app.rpc, CONFIDENTIAL_TOKEN, yield* provingSetup, payer.wallet)
      yield* syncUntil(app.url, CONFIDENTIAL_TOKEN, wallet, (b) => b.spendable === UNIT)
      const data = yield* wallet.proveTransfer(contractors[0]!.key.publicKey(), UNIT / 4n)
      const outside = yield* Effect.promise(() =>
        prepareCall(server, loopbackDeployment(app), { account: payer.wallet.publicKey(), sequence: sequenceOf(app.rpc, payer.wallet.publicKey()) }, {
          fn: "confidential_transfer", from: payer.wallet.publicKey(), to: contractors[0]!.key.publicKey(), data
        }))
      expect(yield* signAndSend(server, outside, payer.wallet)).toBe("SUCCESS")
      yield* syncUntil(app.url, CONFIDENTIAL_TOKEN, wallet, (b) => b.spendable === UNIT * 3n / 4n)

      // The admin (audit:disclose, given the secret by the share) reports the period as CSV and JSON.
      const dir = join(cli.home, "report")
      const report = yield* cli.run(["audit", "report", "--json", "--secret-file", auditorSecret, "--from", day(-1), "--to", day(1), "--csv", dir])
      expect(report.code, report.stderr).toBe(0)
      const body = json(report)
      expect(body.sources).toMatchObject({ wallets: [payer.wallet.publicKey()], archiveComplete: true, keysNotSealedToYou: [] })
      expect(body.checks).toMatchObject({ keyMatches: true, breaks: 0, undecryptable: 0, receiptsMatch: 2, receiptsDiffer: 0 })

      const operations = csv(join(dir, "operations.csv"))
      const cells = (r: Row) => [r.operation, r.amount, r.payout, r.contractor_name, r.receipt, r.decrypted]
      expect(operations.map(cells).slice(0, 2)).toEqual([
        ["deposit", "6.0000000", "not a payout here", "", "", "yes"],
        ["merge", "6.0000000", "not a payout here", "", "", "yes"]
      ])
      // The batch's two payouts in the order they were paid, then the transfer outside the product.
      expect(operations.slice(2, 4).map(cells).sort((a, b) => a[3]!.localeCompare(b[3]!))).toEqual([
        ["transfer", "3.0000000", "payout", "Ada", "matches", "yes"],
        ["transfer", "2.0000000", "payout", "Grace", "matches", "yes"]
      ])
      expect(cells(operations[4]!)).toEqual(["transfer", "0.2500000", "not a payout here", "", "", "yes"])
      expect(operations.slice(2).map((r) => [r.balance_after, r.continuity]).slice(1))
        .toEqual([["1.0000000", "continuous"], ["0.7500000", "continuous"]])
      expect(operations[2]!.continuity).toBe("continuous")
      expect(operations.at(-1)!.counterparty).toBe(contractors[0]!.key.publicKey())
      expect(csv(join(dir, "contractors.csv")).map((r) => [r.contractor_name, r.payouts, r.total])).toEqual([["Ada", "1", "3.0000000"], ["Grace", "1", "2.0000000"]])
      const months = csv(join(dir, "months.csv"))
      const total = (column: string) => months.reduce((s, m) => s + Number(m[column]), 0)
      expect([total("payouts"), total("payouts_total"), total("other_transfers"), total("other_transfers_total"), total("deposits_total")]).toEqual([2, 5, 1, 0.25, 6])

      // The summary a person reads; a payer (no audit:disclose) holds no escrow secret.
      const human = yield* cli.run(["audit", "report", "--secret-file", ownerSecret, "--from", day(-1), "--to", day(1)])
      expect(human.code, human.stderr).toBe(0)
      expect(human.stdout).toContain("Not a payout here: 1 transfer(s), 0.2500000 USDC")
      expect(human.stdout).toContain("receipts: 2 match, 0 differ")
      const refused = yield* cli.run(["audit", "report", "--secret-file", payerSecret, "--from", day(-1), "--to", day(1)])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain("payroll escrow share")
    }).pipe(Effect.provide(FetchHttpClient.layer))), { timeout: 600_000 })
})
