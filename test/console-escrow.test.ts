import { expect, layer } from "@effect/vitest"
import { Keypair, rpc, type Transaction, TransactionBuilder } from "@stellar/stellar-sdk"
import { Context, Effect, Layer } from "effect"
import type { Browser } from "playwright-core"
import { readAuditorKey } from "../client/src/escrow/AuditorRegistry.ts"
import { deriveEscrowKey } from "../client/src/escrow/EscrowKey.ts"
import { openEscrowSecret } from "../client/src/escrow/SealedEscrowSecret.ts"
import { keypairSigner } from "../client/src/payroll/KeypairSigner.ts"
import { deriveSealingKey } from "../client/src/sealing/SealingKey.ts"
import { consoleBuilt, launchBrowser } from "./support/Browser.ts"
import { signAndSend } from "./support/ConfidentialProving.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { joinAs, must } from "./support/Members.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

// Issue 36 §2 in Chromium: the owner creates the organization's escrow key on the Escrow key page (Freighter signs the
// sealing-key and escrow-key messages), then, being the auditor registry's operator (the example contract's "manager",
// examples/confidential/auditor/src/contract.rs), signs `register_key` there; the service sponsors it and the loopback's
// registry (OZ auditor/storage.rs) holds the point. A viewer reads the key but is offered no operator's call. Then the
// owner rotates it there, as `payroll escrow rotate` does: version 2 derived from the same wallet, `rotate_key` signed
// as the operator and recorded with its ledger, version 1 kept sealed beside it for the events before (OZ
// DESIGN_cont.md §8.3); then to version 3 through an operator who is not a member: the page hands over the call's XDR,
// the operator signs and sends it, and the owner records it by its transaction's hash.

class Chromium extends Context.Tag("test/escrow/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleBuilt, launchBrowser))

layer(Layer.mergeAll(TestAppLive(), ChromiumLive), { timeout: 300_000, excludeTestServices: true })("the escrow key in the console", (it) => {
  it.effect("the owner creates the escrow key and registers it as the registry's operator; a viewer reads it; the owner rotates it", () =>
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

      yield* Effect.promise(async () => {
        const page = person.page
        await page.getByRole("button", { name: "Rotate the key" }).click()
        const ask = page.getByRole("group", { name: "Rotate the escrow key to version 2?" })
        await ask.getByText("stays sealed beside the new one with that ledger, so older events stay readable").waitFor({ timeout: 5_000 })
        await inspect(person, "escrow-key-rotate-confirm")
        await ask.getByRole("button", { name: "Rotate to version 2" }).click()
        await page.getByTestId("escrow-rotated").or(page.getByRole("alert")).first().waitFor({ timeout: 60_000 })
        expect(await page.getByRole("alert").allTextContents()).toEqual([])
        await page.getByTestId("escrow-version").getByText("2", { exact: true }).waitFor({ timeout: 15_000 })
        await page.getByText("Registered: the auditor registry holds this key").waitFor({ timeout: 15_000 })
        expect(person.problems).toEqual([])
      })

      const rotated = (yield* must(app, "GET", "/org/escrow-keys", owner.token)).keys
      expect(rotated.map((k: { version: number; current: boolean }) => [k.version, k.current])).toEqual([[1, false], [2, true]])
      const [old, next] = rotated
      expect(old.id).toBe(keys[0].id)
      expect(old.point).toBe(keys[0].point)
      expect(old.digest).toBe(keys[0].digest)
      expect(next.replaces).toBe(old.id)
      expect(next.auditorId).toBe(auditorId)
      expect(typeof old.validUntilLedger).toBe("number")
      expect(next.validFromLedger).toBe(old.validUntilLedger)
      const gateway = new rpc.Server(`${app.url}/stellar-rpc`, { allowHttp: true, headers: { authorization: `Bearer ${owner.token}` } })
      expect(yield* Effect.promise(() => readAuditorKey(gateway, app.rpc.networkPassphrase, token.auditorRegistry, auditorId))).toBe(next.point)
      expect((yield* must(app, "GET", "/audit?limit=100&action=escrow.rotate_key", owner.token)).items.length).toBe(1)

      // Both secrets open with the owner's sealing key, and version 2 is the one the CLI derives from the same wallet.
      const orgId: string = (yield* must(app, "GET", "/me", owner.token)).employer.orgId
      const account = owner.wallet.publicKey()
      const sealing = yield* Effect.promise(() => deriveSealingKey({ organizationId: orgId, account, signer: keypairSigner(owner.wallet) }))
      for (const key of rotated) {
        const reader = key.envelope.recipients[0].memberId
        const opened = yield* Effect.promise(() =>
          openEscrowSecret(key.envelope, { organizationId: orgId, auditorId, version: key.version, point: key.point }, { memberId: reader, keyPair: sealing }))
        expect(opened.pointHex).toBe(key.point)
      }
      const again = yield* Effect.promise(() => deriveEscrowKey({ signer: keypairSigner(owner.wallet), account, organizationId: orgId, version: 2 }))
      expect(again.pointHex).toBe(next.point)

      yield* Effect.promise(async () => {
        const versions = person.page.getByTestId("escrow-versions")
        await versions.getByRole("row").filter({ hasText: "v1" }).getByText(`ledger ${old.validUntilLedger}`).waitFor({ timeout: 15_000 })
        await versions.getByRole("row").filter({ hasText: "v2 (current)" }).getByText(`ledger ${next.validFromLedger}`).waitFor({ timeout: 15_000 })
        await inspect(person, "escrow-key-rotated")
      })

      // Version 3 through another operator: prepared from its account, signed and sent by it outside the console.
      const operator = Keypair.random()
      app.rpc.setAccount({ id: operator.publicKey() })
      token.auditors.setOperator(operator.publicKey())
      const handed = yield* Effect.promise(async () => {
        const page = person.page
        await page.getByRole("button", { name: "Rotate the key" }).click()
        const ask = page.getByRole("group", { name: "Rotate the escrow key to version 3?" })
        await ask.getByLabel("Operator's account").fill(operator.publicKey())
        await ask.getByRole("button", { name: "Rotate to version 3" }).click()
        const xdr = page.getByLabel("The rotation's transaction (XDR)")
        await xdr.or(page.getByRole("alert")).first().waitFor({ timeout: 60_000 })
        expect(await page.getByRole("alert").allTextContents()).toEqual([])
        await inspect(person, "escrow-key-rotate-handed-over")
        return await xdr.inputValue()
      })
      const tx = TransactionBuilder.fromXDR(handed, app.rpc.networkPassphrase) as Transaction
      expect(tx.source).toBe(operator.publicKey())
      const direct = new rpc.Server(app.rpc.url, { allowHttp: true })
      expect(yield* signAndSend(direct, tx, operator)).toBe("SUCCESS")
      const hash = Buffer.from(tx.hash()).toString("hex")
      const landed = yield* Effect.promise(() => direct.getTransaction(hash))
      if (landed.status !== rpc.Api.GetTransactionStatus.SUCCESS) throw new Error(`rotate_key did not land: ${landed.status}`)
      const third = yield* Effect.promise(() => deriveEscrowKey({ signer: keypairSigner(owner.wallet), account, organizationId: orgId, version: 3 }))
      expect(Buffer.from(token.auditors.key(auditorId)!).toString("hex")).toBe(third.pointHex)
      // The sponsored v1 → v2 call (the audit row names its fee-bump) is a rotate_key, but not to version 3's point.
      const earlier: string = (yield* must(app, "GET", "/audit?limit=100&action=escrow.rotate_key", owner.token)).items[0].subject.id

      yield* Effect.promise(async () => {
        const page = person.page
        const field = page.getByLabel("The rotate_key transaction's hash")
        await field.fill(earlier)
        await page.getByRole("button", { name: "Record the rotation" }).click()
        await page.getByRole("alert").getByText(`Transaction ${earlier} is not rotate_key(${auditorId}, the new point): give the hash of the operator's rotate_key transaction to version 3's point`).waitFor({ timeout: 30_000 })
        await field.fill(hash)
        await page.getByRole("button", { name: "Record the rotation" }).click()
        await page.getByText(`Rotated: version 3 is the registry's key from ledger ${landed.ledger}`).waitFor({ timeout: 30_000 })
        await page.getByText("Registered: the auditor registry holds this key").waitFor({ timeout: 15_000 })
        await inspect(person, "escrow-key-rotated-by-hash")
        expect(person.problems).toEqual([])
      })
      const three = (yield* must(app, "GET", "/org/escrow-keys", owner.token)).keys
      expect(three.map((k: { version: number; point: string }) => [k.version, k.point])).toEqual([[1, old.point], [2, next.point], [3, third.pointHex]])
      expect(three[1].validUntilLedger).toBe(landed.ledger)
      expect(three[2].validFromLedger).toBe(landed.ledger)
    }), 240_000)
})
