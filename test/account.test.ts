import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { call, employer, signIn } from "./support/Client.ts"
import { privyConfig, privyIdentityToken, privyToken } from "./support/Privy.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

const invite = (token: string, contractorId: string) =>
  Effect.flatMap(TestApp, (app) => call(app, "POST", `/contractors/${contractorId}/invites`, { token }))

layer(TestAppLive(privyConfig))("roles, organizations and invites", (it) => {
  it.effect("a new user needs onboarding; creating an organization makes an employer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const token = yield* signIn(app, wallet)
      const fresh = yield* call(app, "GET", "/me", { token })
      expect(fresh.body).toEqual({ sub: wallet.publicKey(), method: "sep10", roles: [], needsOnboarding: true })
      const org = yield* call(app, "POST", "/orgs", { token, json: { name: "  Globex  " } })
      expect(org.status).toBe(200)
      expect(org.body.name).toBe("Globex")
      const me = yield* call(app, "GET", "/me", { token })
      expect(me.body).toMatchObject({ roles: ["employer"], needsOnboarding: false, employer: { orgId: org.body.id, orgName: "Globex" } })
      const again = yield* call(app, "POST", "/orgs", { token, json: { name: "Second" } })
      expect(again.status).toBe(409)
      expect((yield* call(app, "POST", "/orgs", { token, json: { name: "" } })).status).toBe(400)
    }))

  it.effect("an invited contractor sees the invite, accepts it once, and becomes a contractor", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Initech")
      const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Peter", email: "peter@example.com" } })
      const issued = yield* invite(boss.token, created.body.id)
      expect(issued.status).toBe(200)
      expect(issued.body.contractorId).toBe(created.body.id)
      expect(issued.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/)

      const wallet = Keypair.random()
      const token = yield* signIn(app, wallet)
      const seen = yield* call(app, "GET", `/me?invite=${issued.body.token}`, { token })
      expect(seen.body).toMatchObject({
        roles: [],
        needsOnboarding: false,
        invite: { company: "Initech", role: "contractor", token: issued.body.token }
      })
      const pvk = randomBytes(32).toString("hex")
      const accepted = yield* call(app, "POST", `/invites/${issued.body.token}/accept`, { token, json: { pvk } })
      expect(accepted.status).toBe(200)
      expect(accepted.body).toMatchObject({ id: created.body.id, status: "onboarding", address: wallet.publicKey(), pvk })
      const me = yield* call(app, "GET", "/me", { token })
      expect(me.body).toMatchObject({ roles: ["contractor"], contractor: { id: created.body.id, name: "Peter" } })
      const reused = yield* call(app, "POST", `/invites/${issued.body.token}/accept`, { token, json: {} })
      expect(reused.status).toBe(404)
      const stale = yield* call(app, "GET", `/me?invite=${issued.body.token}`, { token })
      expect(stale.body.invite).toBeUndefined()
      const view = yield* call(app, "GET", `/contractors/${created.body.id}`, { token: boss.token })
      expect(view.body.status).toBe("onboarding")
    }))

  it.effect("a contractor whose wallet is registered on-chain becomes ready on accepting", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app)
      const wallet = Keypair.random()
      const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Registered Later" } })
      const issued = yield* invite(boss.token, created.body.id)
      const account = app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey(), { auditorId: 2 })
      const token = yield* signIn(app, wallet)
      const accepted = yield* call(app, "POST", `/invites/${issued.body.token}/accept`, { token, json: {} })
      expect(accepted.body).toMatchObject({ status: "ready", pvk: Buffer.from(account.viewingPublicKey).toString("hex"), auditorId: 2 })
    }))

  it.effect("re-inviting revokes the earlier token; only invited contractors can be invited", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app)
      const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Twice" } })
      const first = yield* invite(boss.token, created.body.id)
      const second = yield* invite(boss.token, created.body.id)
      const token = yield* signIn(app)
      expect((yield* call(app, "POST", `/invites/${first.body.token}/accept`, { token, json: {} })).status).toBe(404)
      expect((yield* call(app, "POST", `/invites/${second.body.token}/accept`, { token, json: {} })).status).toBe(200)
      const again = yield* invite(boss.token, created.body.id)
      expect(again.status).toBe(409)
      expect(again.body.error).toContain("onboarding")
      expect((yield* call(app, "POST", "/invites/made-up-token/accept", { token, json: {} })).status).toBe(404)
    }))

  it.effect("an inactive contractor cannot accept its invite (409)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app)
      const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Mailer", email: "mail@example.com" } })
      const issued = yield* invite(boss.token, created.body.id)
      const token = yield* signIn(app)
      const inactive = yield* call(app, "PATCH", `/contractors/${created.body.id}`, { token: boss.token, json: { status: "inactive" } })
      expect(inactive.body.status).toBe("inactive")
      const refused = yield* call(app, "POST", `/invites/${issued.body.token}/accept`, { token, json: {} })
      expect(refused.status).toBe(409)
      expect(refused.body.error).toContain("inactive")
    }))

  it.effect("GET /me discovers the pending invite of the signed-in wallet, with a token that works", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Hooli")
      const wallet = Keypair.random()
      const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Gilfoyle", address: wallet.publicKey() } })
      expect(created.body.status).toBe("invited")
      const issued = yield* invite(boss.token, created.body.id)
      const token = yield* signIn(app, wallet)
      const me = yield* call(app, "GET", "/me", { token })
      expect(me.body).toMatchObject({ needsOnboarding: false, invite: { company: "Hooli", role: "contractor", token: issued.body.token } })
      expect((yield* call(app, "GET", "/me", { token })).body.invite.token).toBe(issued.body.token)
      const accepted = yield* call(app, "POST", `/invites/${me.body.invite.token}/accept`, { token, json: {} })
      expect(accepted.status).toBe(200)
      expect(accepted.body.status).toBe("onboarding")
      expect((yield* call(app, "GET", "/me", { token })).body.invite).toBeUndefined()
      const stranger = yield* signIn(app)
      expect((yield* call(app, "GET", "/me", { token: stranger })).body).toMatchObject({ needsOnboarding: true })
    }))

  it.effect("an invited contractor nobody sent a token to gets one on discovery; re-inviting later revokes it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Pied Piper")
      const wallet = Keypair.random()
      const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Dinesh", address: wallet.publicKey() } })
      const token = yield* signIn(app, wallet)
      const first = (yield* call(app, "GET", "/me", { token })).body.invite
      expect(first).toMatchObject({ company: "Pied Piper", role: "contractor" })
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect((yield* call(app, "GET", "/me", { token })).body.invite.token).toBe(first.token)
      const reissued = yield* invite(boss.token, created.body.id)
      expect((yield* call(app, "GET", "/me", { token })).body.invite.token).toBe(reissued.body.token)
      expect((yield* call(app, "POST", `/invites/${first.token}/accept`, { token, json: {} })).status).toBe(404)
    }))

  it.effect("an email sign-in finds the invite of its verified email (Privy identity token), not of an unverified one", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* employer(app, "Aviato")
      yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Erlich", email: "Erlich@Example.com" } })
      const sub = "did:privy:erlich"
      const signInWith = (linkedAccounts: ReadonlyArray<Record<string, unknown>>) =>
        Effect.gen(function*() {
          const res = yield* call(app, "POST", "/auth/privy", {
            json: { token: yield* privyToken({ sub }), identityToken: yield* privyIdentityToken({ sub, linkedAccounts }) }
          })
          expect(res.status).toBe(200)
          return res.body.token as string
        })
      const unverified = yield* signInWith([{ type: "email", address: "erlich@example.com" }])
      expect((yield* call(app, "GET", "/me", { token: unverified })).body.invite).toBeUndefined()
      const verified = yield* signInWith([{ type: "wallet", address: "0xabc" }, { type: "email", address: "erlich@example.com", verified_at: 1_700_000_000 }])
      const me = yield* call(app, "GET", "/me", { token: verified })
      expect(me.body).toMatchObject({ method: "privy", needsOnboarding: false, invite: { company: "Aviato", role: "contractor" } })
      const accepted = yield* call(app, "POST", `/invites/${me.body.invite.token}/accept`, { token: verified, json: {} })
      expect(accepted.status).toBe(200)
      const otherUser = yield* call(app, "POST", "/auth/privy", {
        json: { token: yield* privyToken({ sub }), identityToken: yield* privyIdentityToken({ sub: "did:privy:someone-else" }) }
      })
      expect(otherUser.status).toBe(401)
    }))
})
