import { Effect } from "effect"
import { exportSPKI, generateKeyPair, SignJWT } from "jose"
import { randomUUID } from "node:crypto"

export const PRIVY_APP = "privy-test-app"
export const privyKeys = await generateKeyPair("ES256")
export const privyPem = await exportSPKI(privyKeys.publicKey)
export const privyConfig = { PRIVY_APP_ID: PRIVY_APP, PRIVY_VERIFICATION_KEY: privyPem }

/** A Privy access token as Privy issues it (ES256, issuer privy.io, audience the app id). */
export const privyToken = (
  options: {
    key?: typeof privyKeys.privateKey
    audience?: string
    expiresIn?: string | number
    issuer?: string
    sub?: string
  } = {}
) =>
  Effect.promise(() =>
    new SignJWT({ sid: randomUUID() })
      .setProtectedHeader({ alg: "ES256", typ: "JWT" })
      .setIssuer(options.issuer ?? "privy.io")
      .setAudience(options.audience ?? PRIVY_APP)
      .setSubject(options.sub ?? "did:privy:cm0abc")
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "1h")
      .sign(options.key ?? privyKeys.privateKey)
  )

/**
 * A Privy identity token (`privy-id-token`) as Privy issues it: ES256, issuer privy.io, audience the app id, and
 * `linked_accounts` as a JSON string of the user's linked accounts (docs.privy.io, "Identity tokens").
 */
export const privyIdentityToken = (
  options: { sub?: string; linkedAccounts?: ReadonlyArray<Record<string, unknown>>; key?: typeof privyKeys.privateKey } = {}
) =>
  Effect.promise(() =>
    new SignJWT({ linked_accounts: JSON.stringify(options.linkedAccounts ?? []) })
      .setProtectedHeader({ alg: "ES256", typ: "JWT" })
      .setIssuer("privy.io")
      .setAudience(PRIVY_APP)
      .setSubject(options.sub ?? "did:privy:cm0abc")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(options.key ?? privyKeys.privateKey)
  )
