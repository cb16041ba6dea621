// The disclosure recipient's page (/app/verify, issue 37 §3) in Chromium, with no account: it makes its key and a
// request for one payout; the contractor answers from Node with a bundle proven for that request; the page verifies it
// against the chain (through the service's session-free gateway, POST /stellar-rpc/public) and the committed keys (in
// the prover's worker), and shows exactly the payout's amount — after refusing a tampered copy at step 5.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Either } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { discloseReceived } from "../client/src/confidential/disclosure/Disclose.ts"
import { bundleJson, parseRequest } from "../client/src/confidential/disclosure/Exchange.ts"
import { formatAmount } from "../console/src/lib/Amount.ts"
import { axeViolations, consoleAndProverBuilt, launchBrowser, screenshots } from "./support/Browser.ts"
import { disclosureTools, transfersOf } from "./support/DisclosureScene.ts"
import { fundedPayer, transferDirectly } from "./support/FundedPayer.ts"
import { ProvingApp, registeredWallet } from "./support/ProvingConsole.ts"
import { TestApp } from "./support/TestApp.ts"

const PAID = 42_000_000n

layer(ProvingApp, { timeout: "300 seconds" })("/app/verify in Chromium", (it) => {
  it.effect("makes a key and a request, refuses a tampered bundle at step 5, then shows exactly the disclosed amount", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      yield* consoleAndProverBuilt
      const employer = yield* fundedPayer(app, Keypair.random(), PAID)
      const payeeKey = Keypair.random()
      const payee = (yield* registeredWallet(app, payeeKey)).wallet
      yield* transferDirectly(employer, payeeKey.publicKey(), PAID)
      const [paid] = yield* transfersOf(app, payeeKey.publicKey(), 1)

      const browser = yield* launchBrowser
      const context = yield* Effect.promise(() => browser.newContext())
      const page = yield* Effect.promise(() => context.newPage())
      const step = <A>(run: () => Promise<A>) => Effect.promise(run)
      yield* step(() => page.goto(`${app.url}/app/verify`))
      yield* step(() => page.getByRole("button", { name: "Make a key" }).click({ timeout: 120_000 }))
      yield* step(() => page.getByLabel("Transaction hash").fill(paid!.ref.txHash))
      yield* step(() => page.getByLabel("Event index").fill(String(paid!.ref.eventIndex)))
      yield* step(() => page.getByLabel("Label (optional, shown to the holder)").fill("Tax office"))
      yield* step(() => page.getByRole("button", { name: "Make the request" }).click())
      yield* step(() => page.getByText("Tax office").waitFor())

      // The holder receives the request (here read from the page's own storage, as a downloaded file would carry it).
      const stored = (yield* step(() => page.evaluate(`window.localStorage.getItem("payroll.disclosure.requests") ?? "[]"`))) as string
      const request = Either.getOrThrow(parseRequest(JSON.stringify((JSON.parse(stored) as Array<{ request: unknown }>)[0]!.request)))
      const { prove } = yield* disclosureTools
      const bundle = yield* discloseReceived({ keys: payee.keys, event: paid!, request, prove })
      const dir = tmpdir()
      const tampered = Path.join(dir, `tampered-${request.nonce.slice(0, 8)}.json`)
      const proof = Buffer.from(bundle.proof, "base64")
      proof[200] = proof[200]! ^ 1
      writeFileSync(tampered, bundleJson({ ...bundle, proof: proof.toString("base64") }))
      const good = Path.join(dir, `bundle-${request.nonce.slice(0, 8)}.json`)
      writeFileSync(good, bundleJson(bundle))

      const upload = page.getByLabel("Verify a bundle")
      yield* step(() => upload.setInputFiles(tampered))
      const refused = page.getByTestId("refused")
      yield* step(() => refused.waitFor({ timeout: 120_000 }))
      expect(yield* step(() => refused.textContent())).toMatch(/^Refused at step 5 \(verify the proof\): the disclose_recipient proof does not verify/)
      yield* step(() => upload.setInputFiles(good))
      const value = page.getByTestId("disclosed-value")
      const verdict = page.getByTestId("disclosed").or(refused)
      yield* step(() => verdict.waitFor({ timeout: 120_000 }))
      expect(yield* step(() => verdict.textContent())).toMatch(/^Verified/)
      expect(yield* step(() => value.textContent())).toBe(formatAmount(PAID))
      yield* step(() => screenshots(page, "disclosure-verify"))
      expect(yield* step(() => axeViolations(page))).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 900_000)
})
