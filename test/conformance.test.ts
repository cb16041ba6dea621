import { describe, expect, it } from "@effect/vitest"
import { Keypair, nativeToScVal, StrKey, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { randomBytes, randomUUID } from "node:crypto"
import { conformanceDocument } from "./support/ConformanceDocument.ts"
import { conformanceFixtures } from "./support/ConformanceFixtures.ts"
import { sendRaw } from "./support/ConformanceHttp.ts"
import { type Run, pastTheRateLimit, started, validAndInvalid, withDatabaseDown, withRpcDown } from "./support/ConformancePhases.ts"
import { conformanceRecorder, describeFindings } from "./support/ConformanceRecorder.ts"
import type { OtherSessions } from "./support/ConformanceVariants.ts"
import { privateCluster } from "./support/PrivateCluster.ts"
import { privyConfig } from "./support/Privy.ts"
import { type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"

const USDC = StrKey.encodeContract(randomBytes(32))
const FUNDING = { USDC_CONTRACT: USDC, VAULT_CONTRACT: StrKey.encodeContract(randomBytes(32)) }
const FAST = { STELLAR_RPC_TIMEOUT: "500 millis", TRANSFER_POLL_MARGIN: "1 second", WEBHOOK_ALLOW_PRIVATE: "true" }

/** The funding routes answer from the loopback USDC contract. */
const stubUsdc = (app: TestAppShape) => {
  app.rpc.setContractFunction(USDC, "balance", () => nativeToScVal(0n, { type: "i128" }))
  app.rpc.setContractFunction(USDC, "transfer", () => xdr.ScVal.scvVoid())
}

/** Session JWTs as the service issues them (HS256, its issuer), which it must refuse: one with a stranger's key, one expired. */
const badSessions = (app: TestAppShape): Effect.Effect<Omit<OtherSessions, "stranger">> =>
  Effect.gen(function*() {
    const now = Math.floor(Date.now() / 1000)
    const sign = (secret: Uint8Array, iat: number) =>
      Effect.promise(() =>
        new SignJWT({ method: "sep10" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuer(app.config.PUBLIC_URL!)
          .setSubject(Keypair.random().publicKey()).setIssuedAt(iat).setExpirationTime(iat + 3600).setJti(randomUUID()).sign(secret)
      )
    return {
      forged: yield* sign(randomBytes(32), now),
      expired: yield* sign(new TextEncoder().encode(app.jwtSecret), now - 7200)
    }
  })

describe("OpenAPI conformance", () => {
  it.live("every operation of /openapi.json answers declared statuses with bodies that validate: valid, invalid, refused, rate-limited, RPC down, database down", () =>
    Effect.gen(function*() {
      const cluster = yield* privateCluster
      const app = yield* started(TestAppLive({ DATABASE_URL: cluster.url, ...FUNDING, ...FAST, ...privyConfig }, { ledgerIntervalMs: 20 }))
      stubUsdc(app)
      const served = yield* sendRaw(app.url, { method: "GET", target: "/openapi.json", headers: {} })
      if (served._tag !== "Answered" || served.status !== 200) return expect.fail(`GET /openapi.json: ${JSON.stringify(served)}`)
      const document = conformanceDocument(JSON.parse(served.text))
      const log = conformanceRecorder(document)
      const employer = yield* walletEmployer(app, "Conformance Co")
      const run: Run = { app, cluster, document, log, employer, fx: conformanceFixtures(app) }

      yield* validAndInvalid(run, yield* badSessions(app))
      yield* withRpcDown(run)
      yield* pastTheRateLimit(run)
      yield* withDatabaseDown(run)

      const unexercised = log.unexercised((o) => ["valid", "rpc down", "database down", ...(o.security.length === 0 ? ["rate limited" as const] : [])])
      const violations = log.findings.filter((f) => f.problems.length > 0)
      const surprises = log.findings.filter((f) => f.problems.length === 0)
      console.log(`[conformance] ${document.operations.length} operations, ${log.requests()} requests, ${violations.length} violations`)
      console.log(`[conformance] answers by phase: ${log.tally()}`)
      if (violations.length > 0) console.log(`[conformance] violations:\n${describeFindings(violations).join("\n")}`)
      if (surprises.length > 0) console.log(`[conformance] declared, but not what a correct service answers:\n${describeFindings(surprises).join("\n")}`)
      expect(unexercised).toEqual([])
      expect(describeFindings(violations)).toEqual([])
      expect(describeFindings(surprises)).toEqual([])
    }).pipe(Effect.scoped), 240_000)
})
