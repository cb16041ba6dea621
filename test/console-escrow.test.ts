import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { Browser } from "playwright-core"
import { consoleBuilt, launchBrowser } from "./support/Browser.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { joinAs, must } from "./support/Members.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

// Issue 36 §2 in Chromium: the owner creates the organization's escrow key on the Escrow key page (Freighter signs the
// sealing-key and escrow-key messages), then, being the auditor registry's operator (the example contract's "manager",
// examples/confidential/auditor/src/contract.rs), signs `register_key` there; the service sponsors it and the loopback's
// registry (OZ auditor/storage.rs) holds the point. A viewer reads the key but is offered no operator's call.

class Chromium extends Context.Tag("test/escrow/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleBuilt, launchBrowser))

layer(Layer.mergeAll(TestAppLive(), ChromiumLive), { timeout: 300_000, excludeTestServices: true })("the escrow key in the console", (it) => {
  it.effect("the owner creates the escrow key and registers it as the registry's operator; a viewer reads it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const token = tokenOf(app)
      for (const [fn, handler] of token.auditors.functions()) app.rpc.setContractFunction(token.auditorRegistry, fn, handler)
      const owner = yield* walletEmployer(app, "Escrow Console Co")
      token.auditors.setOperator(owner.wallet.publicKey())
      const viewerMember = yield* joinAs(app, owner, "viewer")
      const auditorId = 31337
      token.removeAuditorKey(auditorId)

      const person = yield* Effect.promise(() => personAt(browser, app, owner.wallet))
      const viewer = yield* Effect.promise(() => personAt(browser, app, viewerMember.wallet))
      yield* Effect.promise(async () => {
        await signIn(person, "/app/escrow-key")
        await heading(person.page, "Escrow key")
        await inspect(person, "escrow-key-none")
        await person.page.getByLabel("Auditor id (optional)").fill(String(auditorId))
        await person.page.getByRole("button", { name: "Create the escrow key" }).click()
        await person.page.getByTestId("escrow-point").or(person.page.getByRole("alert")).first().waitFor({ timeout: 30_000 })
        expect(await person.page.getByRole("alert").allTextContents()).toEqual([])
        await person.page.getByText("Not registered yet").waitFor({ timeout: 15_000 })
        await person.page.getByRole("button", { name: "Prepare the call" }).click()
        await person.page.getByLabel("The call's transaction (XDR)").waitFor({ timeout: 15_000 })
        await inspect(person, "escrow-key-operator-call")
        await person.page.getByRole("button", { name: "Sign as operator" }).click()
        await person.page.getByText("On the ledger: transaction").waitFor({ timeout: 30_000 })
        await person.page.getByText("Registered: the auditor registry holds this key").waitFor({ timeout: 15_000 })
        await inspect(person, "escrow-key-registered")
        expect(person.problems).toEqual([])
      })

      const { keys } = yield* must(app, "GET", "/org/escrow-keys", owner.token)
      expect(keys.length).toBe(1)
      expect(keys[0].auditorId).toBe(auditorId)
      expect(Buffer.from(token.auditors.key(auditorId)!).toString("hex")).toBe(keys[0].point)
      expect(keys[0].envelope.recipients.length).toBe(1)
      const audit = yield* must(app, "GET", "/audit?limit=100&action=escrow.register_key", owner.token)
      expect(audit.items.length).toBe(1)

      yield* Effect.promise(async () => {
        await signIn(viewer, "/app/escrow-key")
        await heading(viewer.page, "Escrow key")
        await viewer.page.getByText("Registered: the auditor registry holds this key").waitFor({ timeout: 15_000 })
        expect(await viewer.page.getByRole("button", { name: "Prepare the call" }).count()).toBe(0)
        expect(await viewer.page.getByRole("link", { name: "Auditor's report" }).count()).toBe(0)
        await inspect(viewer, "escrow-key-viewer")
      })
    }), 240_000)
})
