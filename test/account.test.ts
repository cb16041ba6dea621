import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { CreateContractor } from "../src/Domain/Contractor.ts"
import type { ContractorId } from "../src/Domain/Ids.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { call, employer, signIn } from "./support/Client.ts"
import { privyConfig, privyIdentityToken, privyToken } from "./support/Privy.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

const client = (token: string) => Effect.flatMap(TestApp, (app) => api(app, token))
const createContractor = (token: string, payload: CreateContractor) =>
  Effect.flatMap(client(token), (c) => c.contractors.create({ payload }))
const invite = (token: string, id: ContractorId) => Effect.flatMap(client(token), (c) => c.contractors.invite({ path: { id } }))
const me = (token: string, invite?: string) =>
  Effect.flatMap(client(token), (c) => c.account.me({ urlParams: invite === undefined ? {} : { invite } }))
const accept = (token: string, invite: string, pvk?: string) =>
  Effect.flatMap(client(token), (c) => c.account.acceptInvite({ path: { token: invite }, payload: pvk === undefined ? {} : { pvk } }))

layer(TestAppLive(privyConfig))("roles, organizations and invites", (it) => {
  it.effect("a new user needs onboarding; creating an organization makes an employer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const token = yield* signIn(app, wallet)
      const fresh = yield* me(token)
      expect(fresh).toEqual({ sub: wallet.publicKey(), method: "sep10", roles: [], needsOnboarding: true })
      const org = yield* call(app, "POST", "/orgs", { token, json: { name: "  Globex  " } })
      expect(org.status).toBe(200)
      expect(org.body.name).toBe("Globex")
      expect(yield* me(token)).toMatchObject({ roles: ["employer"], needsOnboarding: false, employer: { orgId: org.body.id, orgName: "Globex" } })
      const again = yield* Effect.flip((yield* api(app, token)).account.createOrg({ payload: { name: "Second" } }))
      expect(again._tag).toBe("Conflict")
      expect((yield* call(app, "POST", "/orgs", { token, json: { name: "" } })).status).toBe(400)
    }))

  it.effect("an invited contractor sees the invite, accepts it once, and becomes a contractor", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Initech")
      const created = yield* createContractor(boss.token, { name: "Peter", email: "peter@example.com" })
      const issued = yield* invite(boss.token, created.id)
      expect(issued.contractorId).toBe(created.id)
      expect(issued.token).toMatch(/^[A-Za-z0-9_-]{43}$/)

      const wallet = Keypair.random()
      const token = yield* signIn(app, wallet)
      const seen = yield* me(token, issued.token)
      expect(seen).toMatchObject({
        roles: [],
        needsOnboarding: false,
        invite: { company: "Initech", role: "contractor", token: issued.token }
      })
      const pvk = randomBytes(32).toString("hex")
      const accepted = yield* accept(token, issued.token, pvk)
      expect(accepted).toMatchObject({ id: created.id, status: "onboarding", address: Option.some(wallet.publicKey()), pvk: Option.some(pvk) })
      expect(yield* me(token)).toMatchObject({ roles: ["contractor"], contractor: { id: created.id, name: "Peter", status: "onboarding" } })
      const reused = yield* Effect.flip(accept(token, issued.token))
      expect(reused._tag).toBe("NotFound")
      const stale = yield* me(token, issued.token)
      expect(stale.invite).toBeUndefined()
      const view = yield* (yield* api(app, boss.token)).contractors.get({ path: { id: created.id } })
      expect(view.status).toBe("onboarding")
    }))

  it.effect("a contractor whose wallet is registered on-chain becomes ready on accepting", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app)
      const wallet = Keypair.random()
      const created = yield* createContractor(boss.token, { name: "Registered Later" })
      const issued = yield* invite(boss.token, created.id)
      const account = app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey(), { auditorId: 2 })
      const token = yield* signIn(app, wallet)
      const accepted = yield* accept(token, issued.token)
      expect(accepted).toMatchObject({
        status: "ready",
        pvk: Option.some(Buffer.from(account.viewingPublicKey).toString("hex")),
        auditorId: Option.some(2)
      })
    }))

  it.effect("re-inviting revokes the earlier token; only invited contractors can be invited", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app)
      const created = yield* createContractor(boss.token, { name: "Twice" })
      const first = yield* invite(boss.token, created.id)
      const second = yield* invite(boss.token, created.id)
      const token = yield* signIn(app)
      expect((yield* Effect.flip(accept(token, first.token)))._tag).toBe("NotFound")
      expect((yield* accept(token, second.token)).id).toBe(created.id)
      const again = yield* Effect.flip(invite(boss.token, created.id))
      expect(again).toMatchObject({ _tag: "Conflict", error: expect.stringContaining("onboarding") })
      expect((yield* Effect.flip(accept(token, "made-up-token")))._tag).toBe("NotFound")
    }))

  it.effect("an inactive contractor cannot accept its invite (409)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app)
      const created = yield* createContractor(boss.token, { name: "Mailer", email: "mail@example.com" })
      const issued = yield* invite(boss.token, created.id)
      const token = yield* signIn(app)
      const inactive = yield* (yield* api(app, boss.token)).contractors.update({ path: { id: created.id }, payload: { status: "inactive" } })
      expect(inactive.status).toBe("inactive")
      const refused = yield* Effect.flip(accept(token, issued.token))
      expect(refused).toMatchObject({ _tag: "Conflict", error: expect.stringContaining("inactive") })
    }))

  it.effect("GET /me discovers the pending invite of the signed-in wallet, with a token that works", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Hooli")
      const wallet = Keypair.random()
      const created = yield* createContractor(boss.token, { name: "Gilfoyle", address: StellarAddress.make(wallet.publicKey()) })
      expect(created.status).toBe("invited")
      const issued = yield* invite(boss.token, created.id)
      const token = yield* signIn(app, wallet)
      const seen = yield* me(token)
      expect(seen).toMatchObject({ needsOnboarding: false, invite: { company: "Hooli", role: "contractor", token: issued.token } })
      expect((yield* me(token)).invite?.token).toBe(issued.token)
      const accepted = yield* accept(token, seen.invite!.token)
      expect(accepted.status).toBe("onboarding")
      expect((yield* me(token)).invite).toBeUndefined()
      const stranger = yield* signIn(app)
      expect(yield* me(stranger)).toMatchObject({ needsOnboarding: true })
    }))

  it.effect("an invited contractor nobody sent a token to gets one on discovery; re-inviting later revokes it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Pied Piper")
      const wallet = Keypair.random()
      const created = yield* createContractor(boss.token, { name: "Dinesh", address: StellarAddress.make(wallet.publicKey()) })
      const token = yield* signIn(app, wallet)
      const first = (yield* me(token)).invite!
      expect(first).toMatchObject({ company: "Pied Piper", role: "contractor" })
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect((yield* me(token)).invite?.token).toBe(first.token)
      const reissued = yield* invite(boss.token, created.id)
      expect((yield* me(token)).invite?.token).toBe(reissued.token)
      expect((yield* Effect.flip(accept(token, first.token)))._tag).toBe("NotFound")
    }))

  it.effect("an email sign-in finds the invite of its verified email (Privy identity token), not of an unverified one", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Aviato")
      yield* createContractor(boss.token, { name: "Erlich", email: "Erlich@Example.com" })
      const sub = "did:privy:erlich"
      const anonymous = yield* api(app)
      const signInWith = (linkedAccounts: ReadonlyArray<Record<string, unknown>>) =>
        Effect.gen(function*() {
          const session = yield* anonymous.auth.privy({
            payload: { token: yield* privyToken({ sub }), identityToken: yield* privyIdentityToken({ sub, linkedAccounts }) }
          })
          return session.token
        })
      const unverified = yield* signInWith([{ type: "email", address: "erlich@example.com" }])
      expect((yield* me(unverified)).invite).toBeUndefined()
      const verified = yield* signInWith([{ type: "wallet", address: "0xabc" }, { type: "email", address: "erlich@example.com", verified_at: 1_700_000_000 }])
      const seen = yield* me(verified)
      expect(seen).toMatchObject({ method: "privy", needsOnboarding: false, invite: { company: "Aviato", role: "contractor" } })
      yield* accept(verified, seen.invite!.token)
      const otherUser = yield* Effect.flip(anonymous.auth.privy({
        payload: { token: yield* privyToken({ sub }), identityToken: yield* privyIdentityToken({ sub: "did:privy:someone-else" }) }
      }))
      expect(otherUser._tag).toBe("Unauthorized")
    }))
})
