// Running a suite against each version of the confidential token the loopback emulates (ConfidentialTokenVersion.ts):
// the whole service on a ledger whose token at CONFIDENTIAL_TOKEN runs that version, and the employer's signed
// transfer carrying that version's `TransferData`.
import { Address, Keypair, xdr } from "@stellar/stellar-sdk"
import { Context, Effect, Layer } from "effect"
import { transferData } from "./ConfidentialData.ts"
import type { TokenVersion } from "./ConfidentialTokenVersion.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./TestApp.ts"
import { type InnerOptions, innerTransfer } from "./Transfer.ts"

export { DEFAULT_TOKEN_VERSION, NEWEST_TOKEN_VERSION, TOKEN_VERSIONS, type TokenVersion } from "./ConfidentialTokenVersion.ts"

/** TestAppLive, with the token at CONFIDENTIAL_TOKEN running `version` before any test sees it. */
export const TestAppWithToken = (version: TokenVersion, ...args: Parameters<typeof TestAppLive>) =>
  TestAppLive(...args).pipe(
    Layer.tap((context) => Effect.sync(() => Context.get(context, TestApp).rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN, { version })))
  )

/** The token at CONFIDENTIAL_TOKEN, for its compliance and auditor-registry controls. */
export const tokenOf = (app: Pick<TestAppShape, "rpc">) => app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN)

/**
 * `innerTransfer` whose default `data` is `version`'s real-size `TransferData` (a 14,592-byte proof unless
 * `proofBytes` says otherwise); given `args` or a whole `operation`, it is `innerTransfer` itself.
 */
export const versionedTransfer = (version: TokenVersion) =>
  (app: Pick<TestAppShape, "rpc">, wallet: Keypair, options: InnerOptions & { readonly proofBytes?: number } = {}) => {
    const { proofBytes, ...inner } = options
    if (inner.args !== undefined || inner.operation !== undefined) return innerTransfer(app, wallet, inner)
    const to = inner.to ?? Keypair.random().publicKey()
    const data = transferData({ version, ...(proofBytes === undefined ? {} : { proofBytes }) })
    const args = [Address.fromString(wallet.publicKey()).toScVal(), Address.fromString(to).toScVal(), xdr.ScVal.scvBytes(data)]
    return innerTransfer(app, wallet, { ...inner, to, args })
  }
