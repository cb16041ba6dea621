// What the console's disclosure suite sets up from Node: an organization that pays one contractor through its payroll
// (so that the contractor's payouts page lists the payouts beside its "Answer a disclosure request" section), one batch
// of one payout each time; and the two pages' handles a disclosure passes through.
import { Effect, Schedule } from "effect"
import type { Download, Locator, Page } from "playwright-core"
import { fundedPayer, payPayouts } from "./FundedPayer.ts"
import { must } from "./Members.ts"
import type { TestAppShape } from "./TestApp.ts"
import { walletEmployer } from "./Transfer.ts"

/** An organization named `name` whose owner's confidential wallet holds `funds`, with `payee` ready in its directory. */
export const payingOrganization = (app: TestAppShape, name: string, payee: string, funds: bigint) =>
  Effect.gen(function*() {
    const owner = yield* walletEmployer(app, name)
    const payer = yield* fundedPayer(app, owner.wallet, funds)
    const added = yield* must(app, "POST", "/contractors", owner.token, { name: "Ada Lovelace", address: payee })
    yield* Effect.repeat(must(app, "POST", `/contractors/${added.id}/check`, owner.token), {
      schedule: Schedule.spaced("200 millis"),
      until: (answer) => answer.status === "ready"
    }).pipe(Effect.timeout("60 seconds"), Effect.orDie)
    /** A batch `batchName` of one payout of `amount` to the payee, run through the service and settled. */
    const pay = (batchName: string, amount: bigint) =>
      Effect.gen(function*() {
        const batch = yield* must(app, "POST", "/batches", owner.token, { name: batchName })
        const [payout] = (yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: [added.id] })) as Array<{ id: string }>
        yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
        yield* payPayouts(app, payer, owner.token, [{ payoutId: payout!.id, to: payee, amount }])
      })
    return { account: owner.wallet.publicKey(), pay }
  })

/** The verify page's entry for the request labelled `label`. */
export const issuedRequest = (page: Page, label: string) => page.getByRole("listitem").filter({ has: page.getByText(label, { exact: true }) })

/**
 * The recipient's page verifies `bundle` (a file) in the row of the request labelled `label`: its verdict's text, and
 * the disclosed value when it verified (null when refused).
 */
export const verifiedOnPage = async (page: Page, label: string, bundle: string) => {
  const row = issuedRequest(page, label)
  await row.getByLabel("Verify a bundle").setInputFiles(bundle)
  const verdict = row.getByTestId("disclosed").or(row.getByTestId("refused"))
  await verdict.waitFor({ timeout: 180_000 })
  return { verdict: (await verdict.textContent()) ?? "", value: await row.getByTestId("disclosed-value").textContent({ timeout: 1_000 }).catch(() => null) }
}

/** The file a click downloads, saved at `path`, and its suggested name. */
export const downloaded = async (page: Page, click: Locator, path: string, timeout = 30_000) => {
  const [file]: [Download, void] = await Promise.all([page.waitForEvent("download", { timeout }), click.click()])
  await file.saveAs(path)
  return file.suggestedFilename()
}
