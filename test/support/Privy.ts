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
