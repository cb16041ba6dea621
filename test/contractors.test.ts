import { expect, layer } from "@effect/vitest"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { call, employer, signIn } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

/** Registers `address` with the emulated confidential token; its public viewing key (hex) becomes the pvk. */
const registration = (address: string) =>
  Effect.map(TestApp, (app) => {
    const account = app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address, { auditorId: 7 })
    return { pvk: Buffer.from(account.viewingPublicKey).toString("hex"), auditorId: account.auditorId }
  })
const registered = (address: string) => Effect.map(registration(address), (r) => r.pvk)

const post = (token: string, json: unknown) => Effect.flatMap(TestApp, (app) => call(app, "POST", "/contractors", { token, json }))

const contract = StrKey.encodeContract(randomBytes(32))
const badChecksum = (address: string) => address.slice(0, -1) + (address.endsWith("A") ? "B" : "A")

layer(TestAppLive())("contractor directory", (it) => {
  it.effect("a registered address starts ready with its viewing key; others start invited", () =>
    Effect.gen(function*() {
      const { token } = yield* employer(yield* TestApp)
      const wallet = Keypair.random().publicKey()
      const { pvk, auditorId } = yield* registration(wallet)
      const ready = yield* post(token, { name: "Ada", email: "ada@example.com", address: wallet, rate: { amount: "1500.50", currency: "USDC" } })
      expect(ready.status).toBe(200)
      expect(ready.body).toMatchObject({ name: "Ada", email: "ada@example.com", address: wallet, pvk, auditorId, status: "ready", rate: { amount: "1500.50", currency: "USDC" } })
      expect(ready.body.pvk).toMatch(/^[0-9a-f]{128}$/)
      expect(auditorId).toBe(7)
      expect(new Date(ready.body.createdAt).getTime()).toBeGreaterThan(0)
      const invited = yield* post(token, { name: "Grace", address: Keypair.random().publicKey() })
      expect(invited.body.status).toBe("invited")
      expect(invited.body.pvk).toBeUndefined()
      const noAddress = yield* post(token, { name: "Linus", email: "linus@example.com" })
      expect(noAddress.body.status).toBe("invited")
      const contractAddress = yield* post(token, { name: "Vault Co", address: contract })
      expect(contractAddress.status).toBe(200)
    }))

  it.effect("an RPC failure during the check keeps the contractor, invited, and it can be re-checked", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      yield* registered(wallet)
      app.rpc.setFault({ kind: "http500" }, { methods: ["simulateTransaction"], times: 1 })
      const created = yield* post(token, { name: "Flaky", address: wallet })
      expect(created.status).toBe(200)
      expect(created.body.status).toBe("invited")
      const checked = yield* call(app, "POST", `/contractors/${created.body.id}/check`, { token })
      expect(checked.status).toBe(200)
      expect(checked.body.status).toBe("ready")
    }))

  it.effect("check: AccountNotRegistered (#3501) is an answer, 200 still invited; a failed read is 502", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      const created = yield* post(token, { name: "Later", address: wallet })
      expect(created.body.status).toBe("invited")
      const notYet = yield* call(app, "POST", `/contractors/${created.body.id}/check`, { token })
      expect(notYet.status).toBe(200)
      expect(notYet.body.status).toBe("invited")
      app.rpc.setFault({ kind: "http500" }, { methods: ["simulateTransaction"], times: 1 })
      const down = yield* call(app, "POST", `/contractors/${created.body.id}/check`, { token })
      expect(down.status).toBe(502)
      expect(down.body.error).toMatch(/registration/)
      const { pvk } = yield* registration(wallet)
      const ready = yield* call(app, "POST", `/contractors/${created.body.id}/check`, { token })
      expect(ready.status).toBe(200)
      expect(ready.body).toMatchObject({ status: "ready", pvk, auditorId: 7 })
    }))

  it.effect("every field is validated", () =>
    Effect.gen(function*() {
      const { token } = yield* employer(yield* TestApp)
      const g = Keypair.random().publicKey()
      const bad: Array<[unknown, RegExp]> = [
        [{ name: "" }, /name/],
        [{ name: "   " }, /name/],
        [{ name: "x".repeat(201) }, /name/],
        [{ name: "A", email: "not-an-email" }, /email/],
        [{ name: "A", email: "a@b" }, /email/],
        [{ name: "A", address: "GABC" }, /address/],
        [{ name: "A", address: badChecksum(g) }, /address/],
        [{ name: "A", address: `S${g.slice(1)}` }, /address/],
        [{ name: "A", rate: { amount: "-1", currency: "USDC" } }, /amount|rate/],
        [{ name: "A", rate: { amount: "0", currency: "USDC" } }, /amount|rate/],
        [{ name: "A", rate: { amount: "1.12345678", currency: "USDC" } }, /amount|rate/],
        [{ name: "A", rate: { amount: "1e5", currency: "USDC" } }, /amount|rate/],
        [{ name: "A", rate: { amount: 100, currency: "USDC" } }, /amount|rate/],
        [{ name: "A", rate: { amount: "100", currency: "EUR" } }, /currency|rate/]
      ]
      for (const [body, reason] of bad) {
        const res = yield* post(token, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error).toMatch(reason)
      }
      const ok = yield* post(token, { name: "  Trimmed  ", rate: { amount: "0.0000001", currency: "USDC" } })
      expect(ok.body).toMatchObject({ name: "Trimmed", rate: { amount: "0.0000001" } })
    }))

  it.effect("a duplicate email (any case) or address in one organization is 409, not across organizations", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const a = yield* employer(app, "A")
      const b = yield* employer(app, "B")
      const address = Keypair.random().publicKey()
      expect((yield* post(a.token, { name: "One", email: "dup@example.com", address })).status).toBe(200)
      const sameEmail = yield* post(a.token, { name: "Two", email: "DUP@example.com" })
      expect(sameEmail.status).toBe(409)
      expect(sameEmail.body.error).toContain("already exists")
      expect((yield* post(a.token, { name: "Three", address })).status).toBe(409)
      expect((yield* post(b.token, { name: "One", email: "dup@example.com", address })).status).toBe(200)
    }))

  it.effect("another organization's contractor is 404 for reads and writes; no organization is 403", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const a = yield* employer(app, "A")
      const b = yield* employer(app, "B")
      const created = yield* post(a.token, { name: "Private" })
      const id = created.body.id
      expect((yield* call(app, "GET", `/contractors/${id}`, { token: a.token })).status).toBe(200)
      for (const [method, path, json] of [
        ["GET", `/contractors/${id}`, undefined],
        ["PATCH", `/contractors/${id}`, { name: "Hijack" }],
        ["POST", `/contractors/${id}/invites`, undefined],
        ["POST", `/contractors/${id}/check`, undefined]
      ] as const) {
        const res = yield* call(app, method, path, { token: b.token, json })
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.body.error).toBe("contractor not found")
      }
      const list = yield* call(app, "GET", "/contractors", { token: b.token })
      expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(id)
      const loner = yield* signIn(app)
      const forbidden = yield* call(app, "GET", "/contractors", { token: loner })
      expect(forbidden.status).toBe(403)
      expect((yield* call(app, "GET", "/contractors/not-a-uuid", { token: a.token })).status).toBe(400)
    }))

  it.effect("the list pages with a cursor, filters by status and searches name and email", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      yield* registered(wallet)
      for (const name of ["Alpha", "Bravo", "Charlie", "Delta"]) yield* post(token, { name, email: `${name.toLowerCase()}@corp.example` })
      yield* post(token, { name: "Echo", email: "echo@other.example", address: wallet })
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* call(app, "GET", `/contractors?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { token })
        expect(page.status).toBe(200)
        expect(page.body.items.length).toBeLessThanOrEqual(2)
        seen.push(...page.body.items.map((c: { name: string }) => c.name))
        cursor = page.body.nextCursor
      } while (cursor !== undefined)
      expect(seen).toEqual(["Echo", "Delta", "Charlie", "Bravo", "Alpha"])
      const ready = yield* call(app, "GET", "/contractors?status=ready", { token })
      expect(ready.body.items.map((c: { name: string }) => c.name)).toEqual(["Echo"])
      const search = yield* call(app, "GET", "/contractors?q=CORP.ex", { token })
      expect(search.body.items).toHaveLength(4)
      const byName = yield* call(app, "GET", "/contractors?q=arl", { token })
      expect(byName.body.items.map((c: { name: string }) => c.name)).toEqual(["Charlie"])
      const wildcard = yield* call(app, "GET", "/contractors?q=%25", { token })
      expect(wildcard.body.items).toHaveLength(0)
      expect((yield* call(app, "GET", "/contractors?limit=101", { token })).status).toBe(400)
      expect((yield* call(app, "GET", "/contractors?cursor=garbage", { token })).body).toEqual({ error: "invalid cursor", _tag: "InvalidRequest" })
    }))

  it.effect("PATCH edits fields and moves status only as the design allows", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const created = yield* post(token, { name: "Mover", email: "m@example.com", rate: { amount: "10", currency: "USDC" } })
      const path = `/contractors/${created.body.id}`
      const patch = (json: unknown) => call(app, "PATCH", path, { token, json })
      const renamed = yield* patch({ name: "Mover Two", email: null, rate: null })
      expect(renamed.status).toBe(200)
      expect(renamed.body).toMatchObject({ name: "Mover Two", status: "invited" })
      expect(renamed.body.email).toBeUndefined()
      expect(renamed.body.rate).toBeUndefined()
      const illegal = yield* patch({ status: "ready" })
      expect(illegal.status).toBe(409)
      expect(illegal.body.error).toBe("cannot move a contractor from invited to ready")
      expect((yield* patch({ status: "onboarding" })).status).toBe(409)
      expect((yield* patch({ status: "inactive" })).body.status).toBe("inactive")
      expect((yield* patch({ status: "inactive" })).body.status).toBe("inactive")
      expect((yield* patch({ status: "ready" })).body.status).toBe("invited")
      const wallet = Keypair.random().publicKey()
      const pvk = yield* registered(wallet)
      const withWallet = yield* patch({ address: wallet })
      expect(withWallet.body).toMatchObject({ status: "ready", pvk, address: wallet })
      expect((yield* patch({ status: "inactive" })).body.status).toBe("inactive")
      expect((yield* patch({ status: "invited" })).body.status).toBe("ready")
      expect((yield* patch({ status: "archived" })).status).toBe(400)
    }))
})

layer(TestAppLive())("bulk import", (it) => {
  it.effect("imports every valid row in one go and reports each invalid row with its reason", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const existing = Keypair.random().publicKey()
      yield* post(token, { name: "Existing", email: "taken@example.com", address: existing })
      const wallet = Keypair.random().publicKey()
      const pvk = yield* registered(wallet)
      const a = Keypair.random().publicKey()
      const rows = [
        { name: "Valid One", email: "one@example.com", address: wallet, amount: 1200.5 },
        { name: "", email: "noname@example.com", address: Keypair.random().publicKey(), amount: 1 },
        { name: "Bad Email", email: "nope", address: Keypair.random().publicKey(), amount: 1 },
        { name: "Bad Address", email: "addr@example.com", address: badChecksum(a), amount: 1 },
        { name: "Bad Amount", email: "amt@example.com", address: Keypair.random().publicKey(), amount: -5 },
        { name: "Too Precise", email: "prec@example.com", address: Keypair.random().publicKey(), amount: 0.123456789 },
        { name: "Dup Email", email: "ONE@example.com", address: Keypair.random().publicKey(), amount: 1 },
        { name: "Dup Address", email: "dupaddr@example.com", address: wallet, amount: 1 },
        { name: "Taken Email", email: "taken@example.com", address: Keypair.random().publicKey(), amount: 1 },
        { name: "Taken Address", email: "takenaddr@example.com", address: existing, amount: 1 },
        "not a row",
        { name: "Valid Two", email: "two@example.com", address: a, amount: "99.9999999" },
        { name: "Minimal" }
      ]
      const res = yield* call(app, "POST", "/contractors/bulk", { token, json: { rows } })
      expect(res.status).toBe(200)
      expect(res.body.errors).toEqual([
        { row: 1, reason: "invalid name: must be 1 to 200 characters" },
        { row: 2, reason: "invalid email" },
        { row: 3, reason: "invalid address: must be a Stellar G... or C... address" },
        { row: 4, reason: "invalid amount: must be a positive number with at most 7 decimal places" },
        { row: 5, reason: "invalid amount: must be a positive number with at most 7 decimal places" },
        { row: 6, reason: "duplicate email in the import" },
        { row: 7, reason: "duplicate address in the import" },
        { row: 8, reason: "email already in the directory" },
        { row: 9, reason: "address already in the directory" },
        { row: 10, reason: "row must be an object" }
      ])
      expect(res.body.imported.map((c: { name: string }) => c.name)).toEqual(["Valid One", "Valid Two", "Minimal"])
      expect(res.body.imported[0]).toMatchObject({ status: "ready", pvk, rate: { amount: "1200.5", currency: "USDC" } })
      expect(res.body.imported[1]).toMatchObject({ status: "invited", rate: { amount: "99.9999999", currency: "USDC" } })
      const list = yield* call(app, "GET", "/contractors?limit=100", { token })
      expect(list.body.items).toHaveLength(4)
    }))

  it.effect("1,000 rows import; 1,001 rows are 400", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `Worker ${i}`, email: `w${i}@example.com`, address: Keypair.random().publicKey(), amount: 10 }))
      const ok = yield* call(app, "POST", "/contractors/bulk", { token, json: { rows } })
      expect(ok.status).toBe(200)
      expect(ok.body.imported).toHaveLength(1000)
      expect(ok.body.errors).toEqual([])
      const tooMany = yield* call(app, "POST", "/contractors/bulk", { token, json: { rows: [...rows, rows[0]] } })
      expect(tooMany.status).toBe(400)
      expect(tooMany.body.error).toContain("at most 1000 rows")
    }))
})

layer(TestAppLive({ CONFIDENTIAL_TOKEN_CONTRACT: contract }))("a token contract the chain does not have", (it) => {
  it.effect("only #3501 means unregistered: any other host error keeps the contractor invited and the check answers 502", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const created = yield* post(token, { name: "Nobody", address: Keypair.random().publicKey() })
      expect(created.status).toBe(200)
      expect(created.body.status).toBe("invited")
      const checked = yield* call(app, "POST", `/contractors/${created.body.id}/check`, { token })
      expect(checked.status).toBe(502)
    }))
})
