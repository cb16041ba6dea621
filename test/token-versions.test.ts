import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import type { CreateContractor } from "../src/Domain/Contractor.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { employer } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp } from "./support/TestApp.ts"
import { NEWEST_TOKEN_VERSION, TestAppWithToken, TOKEN_VERSIONS, tokenOf } from "./support/VersionedToken.ts"

// Issue 23 §3: a contractor's readiness is its registration, `confidential_balance(account)`, which reads the same
// `ConfidentialAccount` in every version of the token; it does not depend on the compliance controls (no hook gates
// a read), and an upgrade of the token keeps it.

for (const version of TOKEN_VERSIONS) {
  layer(TestAppWithToken(version))(`readiness (token ${version})`, (it) => {
    const create = (token: string, payload: CreateContractor) =>
      Effect.flatMap(TestApp, (app) => Effect.flatMap(api(app, token), (c) => c.contractors.create({ payload })))

    it.effect("a registered address starts ready with its viewing key and auditor, a frozen one too; others start invited until registered", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { token } = yield* employer(app)
        const wallet = Keypair.random().publicKey()
        const account = app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet, { auditorId: 3 })
        const ready = yield* create(token, { name: "Ada", address: StellarAddress.make(wallet) })
        expect(ready).toMatchObject({
          status: "ready",
          pvk: Option.some(Buffer.from(account.viewingPublicKey).toString("hex")),
          auditorId: Option.some(3)
        })

        const controls = tokenOf(app)
        if (controls.complianceConfig() === undefined) controls.setComplianceConfig()
        const frozen = Keypair.random().publicKey()
        app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, frozen)
        controls.freeze(frozen)
        expect((yield* create(token, { name: "Frozen", address: StellarAddress.make(frozen) })).status).toBe("ready")

        const later = Keypair.random().publicKey()
        const invited = yield* create(token, { name: "Grace", address: StellarAddress.make(later) })
        expect(invited.status).toBe("invited")
        app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, later)
        const checked = yield* (yield* api(app, token)).contractors.check({ path: { id: invited.id } })
        expect(checked.status).toBe("ready")
      }))

    if (version === NEWEST_TOKEN_VERSION) return

    it.effect("an upgrade of the token to the newest version keeps every registration: a check still reads ready", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { token } = yield* employer(app)
        const wallet = Keypair.random().publicKey()
        app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet)
        const before = yield* create(token, { name: "Before", address: StellarAddress.make(wallet) })
        expect(before.status).toBe("ready")
        app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN, { version: NEWEST_TOKEN_VERSION })
        const after = yield* (yield* api(app, token)).contractors.check({ path: { id: before.id } }).pipe(
          Effect.ensuring(Effect.sync(() => app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN, { version })))
        )
        expect(after).toMatchObject({ status: "ready", pvk: before.pvk })
      }))
  })
}
