// D-auditor from the CLI (issue 37 §1, SELECTIVE_DISCLOSURE.md §8): an organization's escrow key registered in the
// loopback auditor registry, a payer registered under its auditor id who pays a contractor (real proofs); an auditor
// firm asks for that payout by its hash, the owner answers with `payroll disclose --escrow` (the sender-auditor
// channel, opened with the escrow secret as `payroll audit report` opens it) and the firm's `payroll verify` reads
// exactly the amount. Then a transfer into the paying wallet, disclosed through the recipient-auditor channel, and the
// refusals: a total asked of the escrow key, a payout that is not the organization's.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Keypair, rpc, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect, Schedule } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { prepareCall } from "../client/src/confidential/chain/Calls.ts"
import { sequenceOf, signAndSend, syncUntil } from "./support/ConfidentialProving.ts"
import { transfersOf } from "./support/DisclosureScene.ts"
import { joinAs, must } from "./support/Members.ts"
import { cliUser, json } from "./support/PayrollCli.ts"
import { loopbackDeployment, ProvingApp, publishSealingKey, registeredWallet, UNIT } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

const AUDITOR_ID = 4343
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
const errorLines = (stderr: string) => stderr.trim().split("\n").filter((l) => l.startsWith("payroll:"))

// Four proofs of the token and two disclosures: minutes on a loaded machine.
layer(ProvingApp, { timeout: "600 seconds" })("payroll CLI: D-auditor disclosures with the organization's escrow key", (it) => {
  it.effect("the owner discloses a payout's sender-auditor channel and a received transfer's recipient-auditor channel; totals and other organizations' payouts are refused", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const server = new rpc.Server(app.rpc.url, { allowHttp: true })
      const operator = Keypair.random()
      app.rpc.setAccount({ id: operator.publicKey() })
      tokenOf(app).auditors.setOperator(operator.publicKey())
      tokenOf(app).removeAuditorKey(AUDITOR_ID)

      const owner = yield* walletEmployer(app, "Audited Co")
      yield* must(app, "PATCH", "/org/settings", owner.token, { approvalsRequired: 1 })
      const orgId = (yield* must(app, "GET", "/me", owner.token)).employer.orgId as string
      const payer = yield* joinAs(app, owner, "payer")
      const approver = yield* joinAs(app, owner, "approver")
      const cli = cliUser(app.url)
      const file = (name: string) => join(cli.home, name)
      const ownerSecret = cli.secretFile(owner.wallet)
      const payerSecret = cli.secretFile(payer.wallet)

      // The escrow key, created by the owner and registered by the registry's operator.
      const created = yield* cli.run(["escrow", "create", "--json", "--secret-file", ownerSecret, "--auditor-id", String(AUDITOR_ID), "--operator", operator.publicKey()])
      expect(created.code, created.stderr).toBe(0)
      const registerKey = TransactionBuilder.fromXDR(json(created).registry.xdr, app.rpc.networkPassphrase)
      expect(yield* signAndSend(server, registerKey as never, operator)).toBe("SUCCESS")

      // The payer registers under it (a real proof, sponsored), funds and merges.
      const registered = yield* cli.run(["treasury", "register", "--json", "--secret-file", payerSecret])
      expect(registered.code, registered.stderr).toBe(0)
      expect(app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, payer.wallet.publicKey())!.auditorId).toBe(AUDITOR_ID)
      tokenOf(app).mintUnderlying(payer.wallet.publicKey(), 5n * UNIT)
      expect((yield* cli.run(["treasury", "deposit", "--secret-file", payerSecret, "5"])).code).toBe(0)
      expect((yield* cli.run(["treasury", "merge", "--secret-file", payerSecret])).code).toBe(0)

      // A contractor (registered under auditor 0) paid 3 USDC in a batch sealed, approved and paid from the CLI.
      const contractorKey = Keypair.random()
      const contractor = yield* registeredWallet(app, contractorKey)
      const c = yield* must(app, "POST", "/contractors", owner.token, { name: "Ada", address: contractorKey.publicKey() })
      yield* Effect.repeat(must(app, "POST", `/contractors/${c.id}/check`, owner.token), { schedule: Schedule.spaced("200 millis"), until: (a) => a.status === "ready" })
      yield* publishSealingKey(app, orgId, payer)
      const batch = yield* must(app, "POST", "/batches", owner.token, { name: "April" })
      yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: [c.id] })
      writeFileSync(file("amounts.csv"), `contractor,amount\n${c.id},3\n`)
      const sealed = yield* cli.run(["batches", "seal", "--json", "--secret-file", ownerSecret, "--csv", file("amounts.csv"), batch.id])
      expect(sealed.code, sealed.stderr).toBe(0)
      yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
      yield* must(app, "POST", `/batches/${batch.id}/approve`, approver.token, { sealedAmountsDigest: json(sealed).digest })
      const paid = yield* cli.run(["batches", "pay", "--json", "--secret-file", payerSecret, batch.id])
      expect(paid.code, paid.stderr).toBe(0)
      const [payout] = yield* transfersOf(app, contractorKey.publicKey(), 1)
      expect(payout!.from).toBe(payer.wallet.publicKey())

      // The auditor firm's key and its request for that payout, by its transaction hash.
      expect((yield* cli.run(["recipient", "keygen", "--out", file("firm.key")])).code).toBe(0)
      const asked = yield* cli.run(["recipient", "request", "--json", "--key", file("firm.key"), "--payout-hash", payout!.ref.txHash, "--label", "Auditor firm", "--out", file("payout.json")])
      expect(asked.code, asked.stderr).toBe(0)
      expect(json(asked).request.ask).toEqual({ kind: "event", ref: payout!.ref })

      // The owner answers with the escrow key: the sender's channel (the organization's wallet paid it).
      const disclosed = yield* cli.run(["disclose", "--escrow", "--secret-file", ownerSecret, "--request", file("payout.json"), "--out", file("payout.bundle")])
      expect(disclosed.code, disclosed.stderr).toBe(0)
      expect(disclosed.stderr).toContain("the sender auditor channel with escrow key v1")
      expect(disclosed.stdout).toContain("send it to Auditor firm")
      const bundle = JSON.parse(readFileSync(file("payout.bundle"), "utf8"))
      expect(Object.keys(bundle).sort()).toEqual(["circuitId", "proof", "rDisc", "refs", "vDisc", "version"])
      expect(bundle).toMatchObject({ circuitId: "disclose_auditor_sender", refs: [payout!.ref] })

      const verified = yield* cli.run(["verify", "--json", "--key", file("firm.key"), "--bundle", file("payout.bundle")])
      expect(verified.code, verified.stderr).toBe(0)
      expect(json(verified)).toMatchObject({
        verified: true, value: (3n * UNIT).toString(), amount: "3.0000000", circuitId: "disclose_auditor_sender", account: payer.wallet.publicKey(), label: "Auditor firm"
      })
      const shown = yield* cli.run(["verify", "--key", file("firm.key"), "--bundle", file("payout.bundle")])
      expect(shown.code).toBe(4)
      expect(shown.stderr).toContain("answered before")

      // The contractor pays 1 USDC back into the paying wallet, outside the product: the recipient's channel.
      const contractorCall = (call: Parameters<typeof prepareCall>[3]) =>
        Effect.promise(() => prepareCall(server, loopbackDeployment(app), { account: contractorKey.publicKey(), sequence: sequenceOf(app.rpc, contractorKey.publicKey()) }, call))
      expect(yield* signAndSend(server, yield* contractorCall({ fn: "merge", account: contractorKey.publicKey() }), contractorKey)).toBe("SUCCESS")
      yield* syncUntil(app.url, CONFIDENTIAL_TOKEN, contractor.wallet, (b) => b.spendable === 3n * UNIT)
      const data = yield* contractor.wallet.proveTransfer(payer.wallet.publicKey(), UNIT)
      const back = yield* contractorCall({ fn: "confidential_transfer", from: contractorKey.publicKey(), to: payer.wallet.publicKey(), data })
      expect(yield* signAndSend(server, back, contractorKey)).toBe("SUCCESS")
      const asked2 = yield* cli.run(["recipient", "request", "--key", file("firm.key"), "--payout-hash", Buffer.from(back.hash()).toString("hex"), "--out", file("back.json")])
      expect(asked2.code, asked2.stderr).toBe(0)
      const received = yield* cli.run(["disclose", "--escrow", "--json", "--secret-file", ownerSecret, "--request", file("back.json")])
      expect(received.code, received.stderr).toBe(0)
      expect(json(received).circuitId).toBe("disclose_auditor_recipient")
      writeFileSync(file("back.bundle"), received.stdout)
      const verifiedBack = yield* cli.run(["verify", "--json", "--key", file("firm.key"), "--bundle", file("back.bundle")])
      expect(verifiedBack.code, verifiedBack.stderr).toBe(0)
      expect(json(verifiedBack)).toMatchObject({ verified: true, amount: "1.0000000", circuitId: "disclose_auditor_recipient", account: payer.wallet.publicKey() })

      // Refused: a total (D-auditor is per payout), and the payout asked of another organization's escrow key.
      const total = yield* cli.run([
        "recipient", "request", "--key", file("firm.key"), "--sent-to", contractorKey.publicKey(), "--from", day(-1), "--to", day(1), "--out", file("total.json")
      ])
      expect(total.code, total.stderr).toBe(0)
      const noTotal = yield* cli.run(["disclose", "--escrow", "--secret-file", ownerSecret, "--request", file("total.json")])
      expect(noTotal.code).toBe(1)
      expect(errorLines(noTotal.stderr)).toHaveLength(1)
      expect(noTotal.stderr).toContain("D-auditor has no total")
      const other = yield* walletEmployer(app, "Other Co")
      const notOurs = yield* cli.run(["disclose", "--escrow", "--secret-file", cli.secretFile(other.wallet), "--request", file("payout.json")])
      expect(notOurs.code).toBe(1)
      expect(errorLines(notOurs.stderr)).toHaveLength(1)
      expect(notOurs.stderr).toContain("neither one of the organization's paying wallets")
      const withPayout = yield* cli.run(["disclose", "--escrow", "--secret-file", ownerSecret, "--request", file("payout.json"), "--payout", payout!.ref.txHash])
      expect(withPayout.code).toBe(1)
      expect(withPayout.stderr).toContain("--payout does not go with --escrow")
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 1_500_000)
})
