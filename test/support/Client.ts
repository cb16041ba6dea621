import { Keypair, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import type { TestAppShape } from "./TestApp.ts"

export interface Reply {
  readonly status: number
  readonly body: any
  readonly headers: Headers
}

/** One real HTTP request to the service under test. */
export const call = (
  app: TestAppShape,
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

/** SEP-10 sign-in of a wallet; returns the session token. */
export const signIn = (app: TestAppShape, wallet: Keypair = Keypair.random()) =>
  Effect.gen(function*() {
    const challenge = yield* call(app, "GET", `/auth/sep10/challenge?account=${wallet.publicKey()}`)
    if (challenge.status !== 200) throw new Error(`challenge failed: ${JSON.stringify(challenge.body)}`)
    const transaction = signChallenge(challenge.body.transaction, challenge.body.network_passphrase, wallet)
    const verified = yield* call(app, "POST", "/auth/sep10/verify", { json: { transaction } })
    if (verified.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verified.body)}`)
    return verified.body.token as string
  })

/** A signed-in wallet that owns a new organization. */
export const employer = (app: TestAppShape, orgName = "Acme Inc") =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    const token = yield* signIn(app, wallet)
    const org = yield* call(app, "POST", "/orgs", { token, json: { name: orgName } })
    if (org.status !== 200) throw new Error(`org failed: ${JSON.stringify(org.body)}`)
    return { token, wallet, orgId: org.body.id as string }
  })
