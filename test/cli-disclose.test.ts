// Selective disclosure from the CLI (issue 37 §2): a tax office makes a recipient key and asks for a contractor's total
// from one employer over a period; the contractor answers with `payroll disclose` (a real proof over the disclosure
// circuits); the tax office runs `payroll verify` — §5.3's six steps through the service's public Stellar RPC gateway
// to the loopback ledger, whose payouts were themselves paid with real proofs — and reads exactly the total. Then the
// refusals: the same bundle again (a replay), a bundle offered to another recipient's key, a request never issued.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { disclosureScene, PAID } from "./support/DisclosureScene.ts"
import { cliUser, json } from "./support/PayrollCli.ts"
import { ProvingApp } from "./support/ProvingConsole.ts"
import { TestApp } from "./support/TestApp.ts"

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
const modeOf = (path: string) => statSync(path).mode & 0o777

// The scene's payouts and the one disclosure are real proofs: minutes on a loaded machine.
layer(ProvingApp, { timeout: "600 seconds" })("payroll CLI: disclosure requests, bundles and their verification", (it) => {
  it.effect("a tax office asks for an employer's total, the contractor discloses it, the tax office verifies it once; other keys and replays are refused at their step", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const scene = yield* disclosureScene(app)
      const cli = cliUser(app.url)
      const file = (name: string) => join(cli.home, name)

      // The tax office's key: 0600, never overwritten.
      const keygen = yield* cli.run(["recipient", "keygen", "--json", "--out", file("tax.key")])
      expect(keygen.code, keygen.stderr).toBe(0)
      expect(modeOf(file("tax.key"))).toBe(0o600)
      const again = yield* cli.run(["recipient", "keygen", "--out", file("tax.key")])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain("never overwritten")
      expect(JSON.parse(readFileSync(file("tax.key"), "utf8")).publicKey).toBe(json(keygen).publicKey)

      // Its request: what employer A paid over three days around today, as a file and a link; the nonce kept as issued.
      const employerA = scene.employerA.key.publicKey()
      const asked = yield* cli.run([
        "recipient", "request", "--json", "--key", file("tax.key"), "--received-from", employerA, "--from", day(-1), "--to", day(1),
        "--label", "Tax office", "--out", file("request.json")
      ])
      expect(asked.code, asked.stderr).toBe(0)
      const { request, link, state } = json(asked)
      expect(request).toMatchObject({ ask: { kind: "received-total", from: employerA }, label: "Tax office", recipientKey: json(keygen).publicKey })
      expect(link).toMatch(new RegExp(`^${app.url}/app/payouts#request=[A-Za-z0-9_-]+$`))
      expect(modeOf(state)).toBe(0o600)
      // One payout by its transaction hash: the request names its transfer event, read through the public gateway.
      const june = scene.fromA[0]!
      const one = yield* cli.run(["recipient", "request", "--json", "--key", file("tax.key"), "--payout-hash", june.ref.txHash.toUpperCase(), "--out", file("june.json")])
      expect(one.code, one.stderr).toBe(0)
      expect(json(one).request.ask).toEqual({ kind: "event", ref: june.ref })
      const incomplete = yield* cli.run(["recipient", "request", "--key", file("tax.key"), "--received-from", employerA, "--out", file("x.json")])
      expect(incomplete.code).toBe(1)
      expect(incomplete.stderr).toContain("--from")

      // The contractor opens the link: the three payouts from A are picked (not B's), proven, the bundle written.
      const contractorSecret = cli.secretFile(scene.contractorKey)
      const disclosed = yield* cli.run(["disclose", "--secret-file", contractorSecret, "--request", link, "--out", file("bundle.json")])
      expect(disclosed.code, disclosed.stderr).toBe(0)
      for (const e of scene.fromA) expect(disclosed.stderr).toContain(e.ref.txHash)
      expect(disclosed.stderr).not.toContain(scene.received.find((e) => e.from === scene.employerB.key.publicKey())!.ref.txHash)
      const bundle = JSON.parse(readFileSync(file("bundle.json"), "utf8"))
      expect(Object.keys(bundle).sort()).toEqual(["circuitId", "proof", "rDisc", "refs", "vDisc", "version"])
      expect(bundle.circuitId).toBe("disclose_recipient_8")
      expect(bundle.refs).toEqual(scene.fromA.map((e) => e.ref))

      // The tax office verifies: exactly A's total, disclosed by the contractor.
      const verified = yield* cli.run(["verify", "--json", "--key", file("tax.key"), "--bundle", file("bundle.json")])
      expect(verified.code, verified.stderr).toBe(0)
      const total = PAID.fromA[0] + PAID.fromA[1] + PAID.fromA[2]
      expect(json(verified)).toMatchObject({ verified: true, value: total.toString(), amount: "0.0012450", account: scene.contractorKey.publicKey(), circuitId: "disclose_recipient_8" })
      expect(json(verified).events).toHaveLength(3)

      // The same bundle again is a replay, refused before the chain is read: step 0, exit 4, one error line.
      const replay = yield* cli.run(["verify", "--key", file("tax.key"), "--bundle", file("bundle.json"), "--request", file("request.json")])
      expect(replay.code).toBe(4)
      expect(replay.stderr.trim().split("\n").filter((l) => l.startsWith("payroll:"))).toHaveLength(1)
      expect(replay.stderr).toContain("refused at step 0 (the request)")
      expect(replay.stderr).toContain("answered before")

      // A bank's key and its own request for the same total: the tax office's bundle does not verify for it (step 5).
      expect((yield* cli.run(["recipient", "keygen", "--out", file("bank.key")])).code).toBe(0)
      const bankAsked = yield* cli.run([
        "recipient", "request", "--json", "--key", file("bank.key"), "--received-from", employerA, "--from", day(-1), "--to", day(1), "--out", file("bank-request.json")
      ])
      expect(bankAsked.code, bankAsked.stderr).toBe(0)
      const stolen = yield* cli.run(["verify", "--json", "--key", file("bank.key"), "--bundle", file("bundle.json")])
      expect(stolen.code).toBe(4)
      expect(json(stolen)).toMatchObject({ verified: false, step: 5, refusal: "ProofRejected" })
      expect(stolen.stderr).toContain("refused at step 5 (verify the proof)")
      // The tax office's request shown to the bank's verifier: a nonce it never issued.
      const unknown = yield* cli.run(["verify", "--key", file("bank.key"), "--bundle", file("bundle.json"), "--request", file("request.json")])
      expect(unknown.code).toBe(4)
      expect(unknown.stderr).toContain("never issued")
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 1_500_000)
})
