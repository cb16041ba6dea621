import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { call } from "./Client.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"
import { innerTransfer } from "./Transfer.ts"

type App = Pick<TestAppShape, "url" | "rpc">

/** A call that must answer 2xx: its body, or the test dies saying which call failed. */
export const must = (app: Pick<TestAppShape, "url">, method: string, path: string, token?: string, json?: unknown) =>
  call(app, method, path, { ...(token === undefined ? {} : { token }), ...(json === undefined ? {} : { json }) }).pipe(
    Effect.flatMap((r) => r.status < 300 ? Effect.succeed(r.body) : Effect.dieMessage(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`))
  )

/** Registers a webhook endpoint for the employer; answers the endpoint with its secret. */
export const registerWebhook = (app: Pick<TestAppShape, "url">, token: string, url: string, events: ReadonlyArray<string>) =>
  must(app, "POST", "/webhooks", token, { url, events }).pipe(
    Effect.map((body) => body as { id: string; url: string; events: Array<string>; secret: string; createdAt: string })
  )

/** A ready batch of one payout to a contractor registered with the loopback token. */
export const readyPayout = (app: App, token: string) =>
  Effect.gen(function*() {
    const contractor = Keypair.random()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, contractor.publicKey())
    const { id: contractorId } = yield* must(app, "POST", "/contractors", token, { name: "Ada", address: contractor.publicKey() })
    const { id: batchId } = yield* must(app, "POST", "/batches", token, { name: "November" })
    const [payout] = yield* must(app, "POST", `/batches/${batchId}/payouts`, token, { contractorIds: [contractorId] })
    yield* must(app, "POST", `/batches/${batchId}/ready`, token)
    return { batchId: batchId as string, payoutId: payout.id as string, contractorId: contractorId as string, to: contractor.publicKey() }
  })

/** Pays a ready payout with a transfer from the employer's wallet; answers once it settled (POST /transfer waits). */
export const payPayout = (app: App, employer: { readonly token: string; readonly wallet: Keypair }, payout: { readonly payoutId: string; readonly to: string }) =>
  must(app, "POST", "/transfer", employer.token, { signedXDR: innerTransfer(app, employer.wallet, { to: payout.to }), payoutId: payout.payoutId })

/** An endpoint's delivery log (first page). */
export const deliveryLog = (app: Pick<TestAppShape, "url">, token: string, endpointId: string) =>
  must(app, "GET", `/webhooks/${endpointId}/deliveries`, token).pipe(Effect.map((body) => body.items as Array<any>))

/** Polls the delivery log until `done` holds of it. */
export const logUntil = (
  app: Pick<TestAppShape, "url">,
  token: string,
  endpointId: string,
  done: (items: Array<any>) => boolean,
  ms = 20_000
) =>
  Effect.gen(function*() {
    const until = Date.now() + ms
    for (;;) {
      const items = yield* deliveryLog(app, token, endpointId)
      if (done(items)) return items
      if (Date.now() > until) return yield* Effect.dieMessage(`delivery log never reached the state: ${JSON.stringify(items)}`)
      yield* Effect.sleep("50 millis")
    }
  })
