import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { keysFromSigner } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { keypairSigner } from "./support/ConfidentialProving.ts"
import { employer } from "./support/Client.ts"
import { cliUser, json } from "./support/PayrollCli.ts"
import { joinAs, must, readyContractor } from "./support/Members.ts"
import { payrollScene, ProvingApp, UNIT } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

layer(TestAppLive())("payroll CLI: sign-in and reading", (it) => {
  it.effect("--help on every command, exit 0", () =>
    Effect.gen(function*() {
      const { run } = cliUser("http://127.0.0.1:1")
      for (const args of [["--help"], ["batches", "pay", "--help"], ["contractors", "withdraw", "--help"], ["escrow", "rotate", "--help"], ["audit", "report", "--help"], ["recipient", "request", "--help"], ["disclose", "--help"], ["verify", "--help"]]) {
        const r = yield* run(args)
        expect(r.code, args.join(" ")).toBe(0)
        expect(r.stdout).toContain("USAGE")
      }
      expect((yield* run(["batches", "frobnicate"])).code).toBe(1)
    }), { timeout: 180_000 })

  it.effect("signs in with a secret file, keeps the session 0600 in a 0700 directory, lists and shows batches", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const user = cliUser(app.url)
      // The secret is refused while others can read its file, in one line naming the fix.
      const loose = yield* user.run(["login", "--secret-file", user.secretFile(wallet, 0o644)])
      expect(loose.code).toBe(1)
      expect(loose.stderr.trim().split("\n")).toHaveLength(1)
      expect(loose.stderr).toContain("chmod 600")

      const login = yield* user.run(["login", "--json", "--secret-file", user.secretFile(wallet)])
      expect(login.code, login.stderr).toBe(0)
      expect(json(login)).toMatchObject({ service: app.url, account: wallet.publicKey() })
      expect(statSync(user.config).mode & 0o777).toBe(0o700)
      expect(statSync(join(user.config, "sessions.json")).mode & 0o777).toBe(0o600)
      expect(readFileSync(join(user.config, "sessions.json"), "utf8")).not.toContain(wallet.secret())

      // The stored session serves later commands without the secret.
      const token = JSON.parse(readFileSync(join(user.config, "sessions.json"), "utf8")).services[app.url].accounts[wallet.publicKey()].token as string
      yield* must(app, "POST", "/orgs", token, { name: "Cli Co" })
      const contractor = yield* readyContractor(app, token)
      const batch = yield* must(app, "POST", "/batches", token, { name: "December" })
      yield* must(app, "POST", `/batches/${batch.id}/payouts`, token, { contractorIds: [contractor.id] })

      const me = yield* user.run(["whoami", "--json"])
      expect(json(me)).toMatchObject({ sub: wallet.publicKey(), employer: { orgName: "Cli Co", role: "owner" } })
      const list = yield* user.run(["batches", "list", "--json"])
      expect(list.code, list.stderr).toBe(0)
      expect(json(list).items.map((b: { id: string }) => b.id)).toEqual([batch.id])
      const show = yield* user.run(["batches", "show", "--json", batch.id])
      expect(json(show)).toMatchObject({ batch: { id: batch.id, status: "draft" }, payouts: [{ contractorId: contractor.id, status: "draft" }] })
      const human = yield* user.run(["batches", "show", batch.id])
      expect(human.stdout).toContain("December")

      // Exit codes a script branches on: refused (4xx) 2, unavailable 3, usage 1.
      const missing = yield* user.run(["batches", "show", "00000000-0000-4000-8000-000000000000"])
      expect(missing.code).toBe(2)
      expect(missing.stderr.trim().split("\n")).toHaveLength(1)
      const away = yield* user.run(["login", "--service", "http://127.0.0.1:1", "--secret-file", user.secretFile(wallet)])
      expect(away.code).toBe(3)
      const noSecret = yield* user.run(["treasury", "status"])
      expect(noSecret.code).toBe(1)
      expect(noSecret.stderr).toContain("--secret-file")

      const out = yield* user.run(["logout", "--json"])
      expect(json(out)).toMatchObject({ forgotten: 1 })
      expect((yield* user.run(["batches", "list"])).code).toBe(1)
    }), { timeout: 120_000 })

  it.effect("POST /withdraw and /auditor/disclose name the commands that do them", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const withdraw = yield* Effect.promise(() => fetch(`${app.url}/withdraw`, { method: "POST", headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<{ error: string }>))
      expect(withdraw.error).toContain("payroll contractors withdraw")
      const disclose = yield* Effect.promise(() => fetch(`${app.url}/auditor/disclose`, { method: "POST", headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<{ error: string }>))
      expect(disclose.error).toContain("payroll audit report")
    }))
})

layer(ProvingApp, { timeout: "600 seconds" })("payroll CLI: paying with real proofs", (it) => {
  it.effect("a payer whose keys were derived as the console derives them pays, reconciles, and the contractor reads and withdraws from the CLI", () =>
    Effect.scoped(Effect.gen(function*() {
      const app = yield* TestApp
      // Registered, funded and sealed from Node with the console's derivations (keypairSigner is Freighter's signMessage).
      const scene = yield* payrollScene(app, "January", [{ name: "Ada", amount: 3n * UNIT }, { name: "Grace", amount: 2n * UNIT }])
      const payer = cliUser(app.url)
      const secret = payer.secretFile(scene.payer.wallet)

      const shown = yield* payer.run(["batches", "show", "--json", "--amounts", "--secret-file", secret, scene.batch.id])
      expect(shown.code, shown.stderr).toBe(0)
      expect(json(shown).total).toBe(String(5n * UNIT))
      const treasury = yield* payer.run(["treasury", "status", "--json", "--secret-file", secret])
      expect(json(treasury)).toMatchObject({ registered: true, spendable: String(5n * UNIT), receiving: "0", pending: 0 })

      const paid = yield* payer.run(["batches", "pay", "--json", "--secret-file", secret, scene.batch.id])
      expect(paid.code, paid.stderr).toBe(0)
      expect(json(paid).paid.map((r: { status: string }) => r.status)).toEqual(["SUCCESS", "SUCCESS"])
      // Run again: nothing is paid twice (exit 3 while the service still has a payout in flight).
      const again = yield* Effect.repeat(payer.run(["batches", "pay", "--json", "--secret-file", secret, scene.batch.id]), {
        until: (r) => r.code !== 3,
        times: 60
      })
      expect(again.code, again.stderr).toBe(0)
      expect(json(again)).toEqual({ paid: [], remaining: 0 })

      // Any reader checks the books against the chain: the approver, with the sealing key their console derived.
      const approver = cliUser(app.url)
      const books = yield* Effect.repeat(approver.run(["batches", "reconcile", "--json", "--secret-file", approver.secretFile(scene.approver.wallet), scene.batch.id]), {
        until: (r) => r.code !== 5,
        times: 60
      })
      expect(books.code, books.stderr).toBe(0)
      expect(json(books).verdicts.map((v: { kind: string }) => v.kind)).toEqual(["paid-as-approved", "paid-as-approved"])

      // The contractor (registered from Node with the console's keys) decrypts the payout and withdraws from the CLI.
      const ada = scene.contractors.find((c) => c.name === "Ada")!
      const contractor = cliUser(app.url)
      const adaSecret = contractor.secretFile(ada.key)
      const payouts = yield* contractor.run(["contractors", "payouts", "--json", "--amounts", "--secret-file", adaSecret])
      expect(payouts.code, payouts.stderr).toBe(0)
      expect(json(payouts).payouts.map((p: { amount?: string }) => p.amount)).toEqual([String(3n * UNIT)])
      const withdrawn = yield* contractor.run(["contractors", "withdraw", "--json", "--secret-file", adaSecret, "1.5"])
      expect(withdrawn.code, withdrawn.stderr).toBe(0)
      expect(json(withdrawn)).toMatchObject({ balances: { spendable: String(15n * UNIT / 10n), receiving: "0" } })
      expect(json(withdrawn).merged).toMatch(/^[0-9a-f]{64}$/)

      // The other way: a payer who registers from the CLI holds the keys the console derives for the same account,
      // so the console's Pay batch (and Treasury) opens that wallet.
      const second = yield* joinAs(app, scene.owner, "payer")
      const registered = yield* payer.run(["treasury", "register", "--json", "--secret-file", payer.secretFile(second.wallet)])
      expect(registered.code, registered.stderr).toBe(0)
      expect(json(registered)).toMatchObject({ account: second.wallet.publicKey(), registered: true, hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
      const onChain = app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, second.wallet.publicKey())!
      const consoleKeys = (yield* Effect.promise(() =>
        keysFromSigner({ signer: keypairSigner(second.wallet), account: second.wallet.publicKey(), contract: CONFIDENTIAL_TOKEN }))).toJSON()
      expect(`0x${Buffer.from(onChain.viewingPublicKey).toString("hex")}`).toBe(consoleKeys.viewingPublicKey)
      expect(`0x${Buffer.from(onChain.spendingPublicKey).toString("hex")}`).toBe(consoleKeys.spendingPublicKey)
    })), { timeout: 600_000 })
})
