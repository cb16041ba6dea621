import { Keypair, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { SignedChallenge } from "../../src/Auth/Api.ts"
import { CreateOrg } from "../../src/Domain/Session.ts"
import { api } from "./Api.ts"
import type { TestAppShape } from "./TestApp.ts"

export interface Reply {
  readonly status: number
  readonly body: any
  readonly headers: Headers
}

/** One real HTTP request to the service under test. */
export const call = (
  app: Pick<TestAppShape, "url">,
  method: string,
  path: string,
  options: { readonly token?: string; readonly json?: unknown; readonly body?: string; readonly headers?: Record<string, string> } = {}
) =>
  Effect.promise(async (): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined = options.body
    if (options.json !== undefined) {
      headers["content-type"] ??= "application/json"
      body = JSON.stringify(options.json)
    }
    const response = await fetch(`${app.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // not JSON: the raw text is the body
    }
    return { status: response.status, body: parsed, headers: response.headers }
  })

/** Signs a challenge transaction as a wallet would. */
export const signChallenge = (xdr: string, passphrase: string, ...signers: ReadonlyArray<Keypair>) => {
  const tx = TransactionBuilder.fromXDR(xdr, passphrase)
  for (const signer of signers) tx.sign(signer)
  return tx.toXDR()
}

/** SEP-10 sign-in of a wallet through the typed client; returns the session token. */
export const signIn = (app: Pick<TestAppShape, "url">, wallet: Keypair = Keypair.random()) =>
  Effect.gen(function*() {
    const client = yield* api(app)
    const challenge = yield* client.auth.sep10Challenge({ urlParams: { account: wallet.publicKey() } })
    const transaction = signChallenge(challenge.transaction, challenge.network_passphrase, wallet)
    const session = yield* client.auth.sep10Verify({ payload: new SignedChallenge({ transaction }) })
    return session.token
  }).pipe(Effect.orDie)

/** A signed-in wallet that owns a new organization (typed client). */
export const employer = (app: Pick<TestAppShape, "url">, orgName = "Acme Inc") =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    const token = yield* signIn(app, wallet)
    const client = yield* api(app, token)
    const org = yield* client.account.createOrg({ payload: new CreateOrg({ name: orgName }) }).pipe(Effect.orDie)
    return { token, wallet, orgId: org.id as string }
  })
