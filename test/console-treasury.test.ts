// The Treasury page in Chromium (issue 31 §2): against the loopback token that verifies real proofs (bb.js, the test
// CRS), a payer with USDC in their wallet registers it with the token (the `register` proof made in the prover's Web
// Worker), deposits 500, merges, and reads the confidential balance decrypted in the browser — every call prepared
// through the read-only gateway, signed by Freighter and sponsored by POST /token/calls. The browser's IndexedDB is
// then cleared: the openings are lost, and "Rebuild from chain" restores them from the service's archive. A deposit
// beyond the wallet's USDC is refused before anything is signed; the wallet's public USDC balance (the asset the token
// names in its instance storage) shows beside the confidential ones, and the amount field empties once a deposit
// landed. An approver has no Treasury. Timings are printed.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { Browser, Page } from "playwright-core"
import { ensureConsoleBuilt, ensureProverBuilt, launchBrowser } from "./support/Browser.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { joinAs, must } from "./support/Members.ts"
import { ProvingApp } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

class Chromium extends Context.Tag("test/treasury/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(Effect.promise(async () => {
  await ensureConsoleBuilt()
  await ensureProverBuilt()
}), launchBrowser))

const UNIT = 10_000_000n

/** One of the balances as the page shows it: the two confidential ones, and the wallet's public balance of the asset. */
const balance = (page: Page, name: "Spendable" | "Receiving" | "Public balance (USDC)") =>
  page.locator(".treasury__balances > div").filter({ has: page.getByText(name, { exact: true }) }).locator("dd.amount")

/** The first value of one of the openings' facts ("Pending spends", "Synced to", "Against the chain"). */
const fact = (page: Page, name: string) => page.locator(".facts > div").filter({ has: page.getByText(name, { exact: true }) }).locator("dd").first()

/** Waits for `text`, leaving a screenshot of the page when it never comes. */
const until = (page: Page, text: string | RegExp, name: string, timeout = 60_000) =>
  page.getByText(text).first().waitFor({ timeout }).catch(async (e: unknown) => {
    await page.screenshot({ path: `test/screenshots/treasury-${name}-stuck.png`, fullPage: true })
    throw e
  })

const timed = async (what: Array<string>, label: string, work: () => Promise<void>) => {
  const started = Date.now()
  await work()
  what.push(`${label} ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

layer(Layer.mergeAll(ProvingApp, ChromiumLive), { timeout: "300 seconds", excludeTestServices: true })("Treasury in the console", (it) => {
  it.effect("a payer registers the paying wallet, deposits, merges and reads the balance; rebuilt from chain once lost", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const owner = yield* walletEmployer(app, "Treasury Co")
      const payer = yield* joinAs(app, owner, "payer")
      const approver = yield* joinAs(app, owner, "approver")
      const account = payer.wallet.publicKey()
      tokenOf(app).mintUnderlying(account, 800n * UNIT)

      const person = yield* Effect.promise(() => personAt(browser, app, payer.wallet))
      const page = person.page
      const figures: Array<string> = []
      yield* Effect.promise(async () => {
        await signIn(person, "/app/treasury")
        await heading(page, "Treasury")
        await page.getByRole("navigation").getByRole("link", { name: "Treasury" }).waitFor()
        const register = page.getByRole("button", { name: "Register with the token" })
        await register.waitFor({ timeout: 30_000 })
        await inspect(person, "treasury-unregistered")

        // Registering: two signatures for the keys, the proof in the worker, Freighter signs, the service sponsors;
        // then the balance opens with one more signature (the keys reproduce the registered ones).
        await timed(figures, "register and open (3 signatures, the proof, a sponsored call, the archive's sync)", async () => {
          await register.click()
          await until(page, /^Registered in/, "register", 180_000)
          await until(page, "Openings kept in this browser", "open")
        })
        figures.push(`of which registering (as the page timed it) ${(await page.getByText(/^Registered in/).textContent())?.match(/in ([\d.]+ s)/)?.[1]}`)
        expect(await balance(page, "Spendable").textContent()).toBe("0.00 USDC")
        expect(await balance(page, "Receiving").textContent()).toBe("0.00 USDC")
        // The public balance of the asset the token names in its instance storage (SEP-41 `balance` through the gateway).
        await until(page, "800.00 USDC", "public-balance")
        expect(await balance(page, "Public balance (USDC)").textContent()).toBe("800.00 USDC")
        expect(person.confirmations).toEqual({ signMessage: 3, signTransaction: 2 })

        await timed(figures, "deposit 500 (sponsored call, archive catch-up)", async () => {
          await page.getByLabel("Amount (USDC)").fill("500")
          await page.getByRole("button", { name: "Deposit" }).click()
          await until(page, /^Deposited 500\.00 USDC in/, "deposit")
        })
        // The amount field is cleared once the deposit landed: one more click deposits nothing twice.
        expect(await page.getByLabel("Amount (USDC)").inputValue()).toBe("")
        await until(page, "300.00 USDC", "public-after-deposit")
        expect(await balance(page, "Public balance (USDC)").textContent()).toBe("300.00 USDC")
        expect(await balance(page, "Receiving").textContent()).toBe("500.00 USDC")
        expect(await balance(page, "Spendable").textContent()).toBe("0.00 USDC")
        await inspect(person, "treasury-deposited")

        await timed(figures, "merge (sponsored call, archive catch-up)", async () => {
          await page.getByRole("button", { name: "Merge into spendable" }).click()
          await until(page, /^Merged in/, "merge")
        })
        expect(await balance(page, "Spendable").textContent()).toBe("500.00 USDC")
        expect(await balance(page, "Receiving").textContent()).toBe("0.00 USDC")
        expect(await fact(page, "Pending spends").textContent()).toBe("None")
        expect(await fact(page, "Against the chain").textContent()).toBe("Agree")
        expect(await fact(page, "Synced to").textContent()).toMatch(/^Ledger \d/)
        await inspect(person, "treasury-merged")

        // More than the wallet's USDC: the token's underlying asset refuses it when tried out, before Freighter signs.
        await page.getByLabel("Amount (USDC)").fill("1000")
        await page.getByRole("button", { name: "Deposit" }).click()
        await until(page, "Your wallet holds less USDC than that", "refused")
        expect(await page.getByLabel("Amount (USDC)").inputValue()).toBe("1000") // refused: kept, to correct
        expect(await balance(page, "Public balance (USDC)").textContent()).toBe("300.00 USDC")
        expect(person.confirmations).toEqual({ signMessage: 3, signTransaction: 4 })
        await inspect(person, "treasury-refused")
      })
      expect(tokenOf(app).underlyingBalance(account)).toBe(300n * UNIT)
      const onChain = app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, account)
      expect(onChain).toBeDefined()

      // The openings are lost: this browser's IndexedDB is deleted (from another page, so that no connection holds it).
      yield* Effect.promise(async () => {
        await page.goto("/app")
        await heading(page, /./)
        const deleted = await page.evaluate(`new Promise((resolve) => {
          const request = indexedDB.deleteDatabase("payroll-wallet")
          request.onsuccess = () => resolve("deleted")
          request.onerror = () => resolve("failed")
          request.onblocked = () => resolve("blocked")
        })`)
        expect(deleted).toBe("deleted")
        await page.goto("/app/treasury")
        await heading(page, "Treasury")
        await until(page, "This browser keeps no openings of the wallet", "lost")
        await inspect(person, "treasury-lost")
        await timed(figures, "rebuild from chain (1 signature, every event)", async () => {
          await page.getByRole("button", { name: "Rebuild from chain" }).click()
          await until(page, "Openings kept in this browser", "rebuild")
        })
        expect(await balance(page, "Spendable").textContent()).toBe("500.00 USDC")
        expect(await balance(page, "Receiving").textContent()).toBe("0.00 USDC")
        expect(await fact(page, "Against the chain").textContent()).toBe("Agree")
        // Rebuilding again, with the wallet open, asks nothing more of Freighter.
        await page.getByRole("button", { name: "Rebuild from chain" }).click()
        await until(page, /^Rebuilt from the chain.s events in/, "rebuild-again")
        expect(await balance(page, "Spendable").textContent()).toBe("500.00 USDC")
        expect(person.confirmations).toEqual({ signMessage: 4, signTransaction: 4 })
        await inspect(person, "treasury-rebuilt")

        // Kept: after a reload the balance opens from the openings this browser holds, caught up from the archive.
        await page.reload()
        await heading(page, "Treasury")
        await page.getByRole("button", { name: "Show balance" }).click()
        await until(page, "Openings kept in this browser", "show")
        expect(await balance(page, "Spendable").textContent()).toBe("500.00 USDC")

        // Altered: the sealed openings no longer open with the wallet's keys; "Rebuild from chain" forgets and rebuilds them.
        const altered = await page.evaluate(`new Promise((resolve, reject) => {
          const key = ${JSON.stringify(`wallet-state/${CONFIDENTIAL_TOKEN}/${account}`)}
          const open = indexedDB.open("payroll-wallet", 1)
          open.onerror = () => reject(open.error)
          open.onsuccess = () => {
            const db = open.result
            const transaction = db.transaction("wallet-state", "readwrite")
            const store = transaction.objectStore("wallet-state")
            const read = store.get(key)
            read.onsuccess = () => {
              const bytes = read.result.slice()
              bytes[bytes.length - 1] ^= 1
              store.put(bytes, key)
            }
            transaction.oncomplete = () => { db.close(); resolve("altered") }
            transaction.onerror = () => reject(transaction.error)
          }
        })`)
        expect(altered).toBe("altered")
        await page.reload()
        await heading(page, "Treasury")
        await page.getByRole("button", { name: "Show balance" }).click()
        await until(page, "do not open with your keys", "altered")
        await inspect(person, "treasury-altered")
        await page.getByRole("button", { name: "Rebuild from chain" }).click()
        await until(page, "Openings kept in this browser", "rebuild-altered")
        expect(await balance(page, "Spendable").textContent()).toBe("500.00 USDC")
        expect(await fact(page, "Against the chain").textContent()).toBe("Agree")
        expect(person.confirmations).toEqual({ signMessage: 7, signTransaction: 4 })
        expect(person.problems).toEqual([])
        await person.context.close()
      })

      // The audit trail names the three calls, as the payer's; an approver has no Treasury (it cannot pay).
      const trail = yield* must(app, "GET", `/audit?actor=${account}&subjectType=transaction`, owner.token)
      expect((trail.items as Array<{ action: string }>).map((r) => r.action).sort()).toEqual(["token.deposit", "token.merge", "token.register"])
      const other = yield* Effect.promise(() => personAt(browser, app, approver.wallet))
      yield* Effect.promise(async () => {
        await signIn(other, "/app/treasury")
        await heading(other.page, "Treasury")
        await other.page.getByText("does not include transfers:submit", { exact: false }).waitFor()
        expect(await other.page.getByRole("navigation").getByRole("link", { name: "Treasury" }).count()).toBe(0)
        await other.context.close()
      })
      console.log(`[console treasury] Chromium: ${figures.join("; ")}`)
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped), 300_000)
})
