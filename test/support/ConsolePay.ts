// The steps of the console's Pay batch (console/src/pages/BatchPay.tsx, BatchAmounts.tsx) the browser suites share:
// unlocking a batch's sealed amounts, paying it to the end, and the books checked against the chain.
import { Effect } from "effect"
import type { Page } from "playwright-core"
import type { ConfidentialWallet } from "../../client/src/confidential/ConfidentialWallet.ts"
import { fetchAccountEvents } from "../../client/src/confidential/state/ArchiveEvents.ts"
import { statusOf } from "./ConsolePeople.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"

/** "Unlock amounts with Freighter" on a batch page, until its sealed amounts' total (as the page writes it) shows. */
export const unlockAmounts = async (page: Page, total: string) => {
  await page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
  await page.getByText(`Total: ${total} USDC`).waitFor({ timeout: 60_000 })
}

/** Every payout proven in the browser, signed and sent: the batch's Status fact says "completed". */
export const payUntilCompleted = async (page: Page, button: string | RegExp = "Pay batch") => {
  const pay = page.getByRole("button", { name: button })
  await pay.waitFor({ timeout: 60_000 })
  await pay.click({ timeout: 60_000 })
  await statusOf(page).getByText("completed").waitFor({ timeout: 240_000 })
}

/**
 * "Check against the chain": each receipt opened in the browser, its transfer's ciphertext recomputed; asked again
 * until all `sent` payouts are paid as approved (the archive trails the ledger). The page's verdict.
 */
export const checkAgainstChain = async (page: Page, sent: number) => {
  const verdict = page.getByText(new RegExp(`\\d of ${sent} sent payouts? paid as approved\\.`))
  for (let attempt = 0; attempt < 20; attempt++) {
    await page.getByRole("button", { name: "Check against the chain" }).click()
    await verdict.waitFor({ timeout: 60_000 })
    if ((await verdict.textContent())?.startsWith(`${sent} of ${sent}`) === true) break
    await page.waitForTimeout(500)
  }
  return await verdict.textContent()
}

/** The amounts a contractor's own wallet decrypts from what it received. */
export const receivedBy = (app: TestAppShape, wallet: ConfidentialWallet) =>
  Effect.map(fetchAccountEvents(app.url, CONFIDENTIAL_TOKEN, wallet.account, undefined), (history) => wallet.received(history.events))
