import { expect, layer } from "@effect/vitest"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { DateTime, Effect, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import type { CreateContractor, UpdateContractor } from "../src/Domain/Contractor.ts"
import type { ContractorId } from "../src/Domain/Ids.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { call, employer, signIn } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

/** Registers `address` with the emulated confidential token; its public viewing key (hex) becomes the pvk. */
const registration = (address: string) =>
  Effect.map(TestApp, (app) => {
    const account = app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address, { auditorId: 7 })
    return { pvk: Buffer.from(account.viewingPublicKey).toString("hex"), auditorId: account.auditorId }
  })
const registered = (address: string) => Effect.map(registration(address), (r) => r.pvk)

const client = (token: string) => Effect.flatMap(TestApp, (app) => api(app, token))
const create = (token: string, payload: CreateContractor) =>
  Effect.flatMap(client(token), (c) => c.contractors.create({ payload }))
/** For bodies the typed client would refuse to encode: the server must answer them itself. */
const postRaw = (token: string, json: unknown) => Effect.flatMap(TestApp, (app) => call(app, "POST", "/contractors", { token, json }))

const address = (value: string) => StellarAddress.make(value)

const contract = StrKey.encodeContract(randomBytes(32))
const badChecksum = (address: string) => address.slice(0, -1) + (address.endsWith("A") ? "B" : "A")

layer(TestAppLive())("contractor directory", (it) => {
  it.effect("a registered address starts ready with its viewing key; others start invited", () =>
    Effect.gen(function*() {
      const { token } = yield* employer(yield* TestApp)
      const wallet = Keypair.random().publicKey()
      const { pvk, auditorId } = yield* registration(wallet)
      const ready = yield* create(token, { name: "Ada", email: "ada@example.com", address: address(wallet), rate: { amount: "1500.50", currency: "USDC" } })
      expect(ready).toMatchObject({
        name: "Ada",
        email: Option.some("ada@example.com"),
        address: Option.some(wallet),
        pvk: Option.some(pvk),
        auditorId: Option.some(auditorId),
        status: "ready",
        rate: Option.some({ amount: "1500.50", currency: "USDC" })
      })
      expect(Option.getOrThrow(ready.pvk)).toMatch(/^[0-9a-f]{128}$/)
      expect(auditorId).toBe(7)
      expect(DateTime.toEpochMillis(ready.createdAt)).toBeGreaterThan(0)
      const invited = yield* create(token, { name: "Grace", address: address(Keypair.random().publicKey()) })
      expect(invited.status).toBe("invited")
      expect(Option.isNone(invited.pvk)).toBe(true)
      const noAddress = yield* create(token, { name: "Linus", email: "linus@example.com" })
      expect(noAddress.status).toBe("invited")
      const contractAddress = yield* create(token, { name: "Vault Co", address: address(contract) })
      expect(contractAddress.address).toEqual(Option.some(contract))
    }))

  it.effect("an RPC failure during the check keeps the contractor, invited, and it can be re-checked", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      yield* registered(wallet)
      // Until cleared, not counted: the archive's reactions may simulate too.
      app.rpc.setFault({ kind: "http500" }, { methods: ["simulateTransaction"] })
      const created = yield* create(token, { name: "Flaky", address: address(wallet) }).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
      expect(created.status).toBe("invited")
      const checked = yield* (yield* api(app, token)).contractors.check({ path: { id: created.id } })
      expect(checked.status).toBe("ready")
    }))

  it.effect("check: AccountNotRegistered (#3501) is an answer, 200 still invited; a failed read is 502", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      const created = yield* create(token, { name: "Later", address: address(wallet) })
      expect(created.status).toBe("invited")
      const check = (yield* api(app, token)).contractors.check({ path: { id: created.id } })
      const notYet = yield* check
      expect(notYet.status).toBe("invited")
      app.rpc.setFault({ kind: "http500" }, { methods: ["simulateTransaction"] })
      const down = yield* Effect.flip(check).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
      expect(down).toMatchObject({ _tag: "UpstreamUnavailable", error: expect.stringMatching(/registration/) })
      const { pvk } = yield* registration(wallet)
      const ready = yield* check
      expect(ready).toMatchObject({ status: "ready", pvk: Option.some(pvk), auditorId: Option.some(7) })
    }))

  it.effect("checks racing one another (and the archive's reaction) all answer ready, none the status read before", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      const created = yield* create(token, { name: "Raced", address: address(wallet) })
      expect(created.status).toBe("invited")
      yield* registration(wallet)
      const client = yield* api(app, token)
      // Each reads `invited`; one conditional update wins, the others must answer the row as it is now.
      const answers = yield* Effect.all(Array.from({ length: 8 }, () => client.contractors.check({ path: { id: created.id } })), { concurrency: "unbounded" })
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 8 }, () => "ready"))
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
        const res = yield* postRaw(token, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error).toMatch(reason)
      }
      const ok = yield* postRaw(token, { name: "  Trimmed  ", rate: { amount: "0.0000001", currency: "USDC" } })
      expect(ok.body).toMatchObject({ name: "Trimmed", rate: { amount: "0.0000001" } })
    }))

  it.effect("a duplicate email (any case) or address in one organization is 409, not across organizations", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const a = yield* employer(app, "A")
      const b = yield* employer(app, "B")
      const wallet = address(Keypair.random().publicKey())
      expect((yield* create(a.token, { name: "One", email: "dup@example.com", address: wallet })).name).toBe("One")
      const sameEmail = yield* Effect.flip(create(a.token, { name: "Two", email: "DUP@example.com" }))
      expect(sameEmail).toMatchObject({ _tag: "Conflict", error: expect.stringContaining("already exists") })
      expect((yield* Effect.flip(create(a.token, { name: "Three", address: wallet })))._tag).toBe("Conflict")
      expect((yield* create(b.token, { name: "One", email: "dup@example.com", address: wallet })).name).toBe("One")
    }))

  it.effect("another organization's contractor is 404 for reads and writes; no organization is 403", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const a = yield* employer(app, "A")
      const b = yield* employer(app, "B")
      const { id } = yield* create(a.token, { name: "Private" })
      expect((yield* (yield* api(app, a.token)).contractors.get({ path: { id } })).id).toBe(id)
      const asB = yield* api(app, b.token)
      const attempts: ReadonlyArray<readonly [string, Effect.Effect<unknown, { readonly _tag: string }>]> = [
        ["GET", asB.contractors.get({ path: { id } })],
        ["PATCH", asB.contractors.update({ path: { id }, payload: { name: "Hijack" } })],
        ["POST invites", asB.contractors.invite({ path: { id } })],
        ["POST check", asB.contractors.check({ path: { id } })]
      ]
      for (const [what, attempt] of attempts) {
        const error = yield* Effect.flip(attempt)
        expect(error, what).toMatchObject({ _tag: "NotFound", error: "contractor not found" })
      }
      const list = yield* asB.contractors.list({ urlParams: {} })
      expect(list.items.map((c) => c.id)).not.toContain(id)
      expect((yield* asB.contractors.list({ urlParams: { ids: [id] } })).items).toEqual([])
      const loner = yield* api(app, yield* signIn(app))
      const forbidden = yield* Effect.flip(loner.contractors.list({ urlParams: {} }))
      expect(forbidden._tag).toBe("Forbidden")
      expect((yield* call(app, "GET", "/contractors/not-a-uuid", { token: a.token })).status).toBe(400)
    }))

  it.effect("the list pages with a cursor, filters by status and searches name and email", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const wallet = Keypair.random().publicKey()
      yield* registered(wallet)
      for (const name of ["Alpha", "Bravo", "Charlie", "Delta"]) yield* create(token, { name, email: `${name.toLowerCase()}@corp.example` })
      yield* create(token, { name: "Echo", email: "echo@other.example", address: address(wallet) })
      const contractors = yield* api(app, token)
      const names = (page: { readonly items: ReadonlyArray<{ readonly name: string }> }) => page.items.map((c) => c.name)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* contractors.contractors.list({ urlParams: { limit: 2, ...(cursor === undefined ? {} : { cursor }) } })
        expect(page.items.length).toBeLessThanOrEqual(2)
        seen.push(...names(page))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      expect(seen).toEqual(["Echo", "Delta", "Charlie", "Bravo", "Alpha"])
      const ready = yield* contractors.contractors.list({ urlParams: { status: "ready" } })
      expect(names(ready)).toEqual(["Echo"])
      const search = yield* contractors.contractors.list({ urlParams: { q: "CORP.ex" } })
      expect(search.items).toHaveLength(4)
      const byName = yield* contractors.contractors.list({ urlParams: { q: "arl" } })
      expect(names(byName)).toEqual(["Charlie"])
      const wildcard = yield* contractors.contractors.list({ urlParams: { q: "%" } })
      expect(wildcard.items).toHaveLength(0)
      expect((yield* call(app, "GET", "/contractors?limit=101", { token })).status).toBe(400)

      // ids: the contractors a page of payouts names; an id of no contractor here is left out.
      const all = yield* contractors.contractors.list({ urlParams: {} })
      const idOf = (name: string) => all.items.find((c) => c.name === name)!.id
      const chosen = yield* contractors.contractors.list({ urlParams: { ids: [idOf("Bravo"), idOf("Echo"), randomUUID() as ContractorId] } })
      expect(names(chosen)).toEqual(["Echo", "Bravo"])
      expect(names(yield* contractors.contractors.list({ urlParams: { ids: [idOf("Bravo"), idOf("Echo")], status: "ready" } }))).toEqual(["Echo"])
      const tooMany = Array.from({ length: 101 }, () => randomUUID()).join(",")
      for (const ids of ["nope", `${idOf("Bravo")},`, tooMany]) {
        const refused = yield* call(app, "GET", `/contractors?ids=${ids}`, { token })
        expect(refused.status, ids.slice(0, 40)).toBe(400)
        expect((refused.body as { error: string }).error, ids.slice(0, 40)).toContain("ids must be contractor ids, comma-separated (at most 100)")
      }
      const garbage = yield* Effect.flip(contractors.contractors.list({ urlParams: { cursor: "garbage" } }))
      expect(garbage).toMatchObject({ _tag: "InvalidRequest", error: "invalid cursor" })
    }))

  it.effect("PATCH edits fields and moves status only as the design allows", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const created = yield* create(token, { name: "Mover", email: "m@example.com", rate: { amount: "10", currency: "USDC" } })
      const contractors = yield* api(app, token)
      const patch = (payload: UpdateContractor) => contractors.contractors.update({ path: { id: created.id }, payload })
      const renamed = yield* patch({ name: "Mover Two", email: null, rate: null })
      expect(renamed).toMatchObject({ name: "Mover Two", status: "invited" })
      expect(Option.isNone(renamed.email)).toBe(true)
      expect(Option.isNone(renamed.rate)).toBe(true)
      const illegal = yield* Effect.flip(patch({ status: "ready" }))
      expect(illegal).toMatchObject({ _tag: "Conflict", error: "cannot move a contractor from invited to ready" })
      expect((yield* Effect.flip(patch({ status: "onboarding" })))._tag).toBe("Conflict")
      expect((yield* patch({ status: "inactive" })).status).toBe("inactive")
      expect((yield* patch({ status: "inactive" })).status).toBe("inactive")
      expect((yield* patch({ status: "ready" })).status).toBe("invited")
      const wallet = Keypair.random().publicKey()
      const pvk = yield* registered(wallet)
      const withWallet = yield* patch({ address: address(wallet) })
      expect(withWallet).toMatchObject({ status: "ready", pvk: Option.some(pvk), address: Option.some(wallet) })
      expect((yield* patch({ status: "inactive" })).status).toBe("inactive")
      expect((yield* patch({ status: "invited" })).status).toBe("ready")
      const archived = yield* call(app, "PATCH", `/contractors/${created.id}`, { token, json: { status: "archived" } })
      expect(archived.status).toBe(400)
    }))
})

layer(TestAppLive())("bulk import", (it) => {
  it.effect("imports every valid row in one go and reports each invalid row with its reason", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const existing = Keypair.random().publicKey()
      yield* create(token, { name: "Existing", email: "taken@example.com", address: address(existing) })
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
      const contractors = yield* api(app, token)
      const res = yield* contractors.contractors.bulk({ payload: { rows } })
      expect(res.errors).toEqual([
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
      expect(res.imported.map((c) => c.name)).toEqual(["Valid One", "Valid Two", "Minimal"])
      expect(res.imported[0]).toMatchObject({ status: "ready", pvk: Option.some(pvk), rate: Option.some({ amount: "1200.5", currency: "USDC" }) })
      expect(res.imported[1]).toMatchObject({ status: "invited", rate: Option.some({ amount: "99.9999999", currency: "USDC" }) })
      const list = yield* contractors.contractors.list({ urlParams: { limit: 100 } })
      expect(list.items).toHaveLength(4)
    }))

  it.effect("1,000 rows import; 1,001 rows are 400", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `Worker ${i}`, email: `w${i}@example.com`, address: Keypair.random().publicKey(), amount: 10 }))
      const ok = yield* (yield* api(app, token)).contractors.bulk({ payload: { rows } })
      expect(ok.imported).toHaveLength(1000)
      expect(ok.errors).toEqual([])
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
      const created = yield* create(token, { name: "Nobody", address: address(Keypair.random().publicKey()) })
      expect(created.status).toBe("invited")
      const checked = yield* Effect.flip((yield* api(app, token)).contractors.check({ path: { id: created.id } }))
      expect(checked._tag).toBe("UpstreamUnavailable")
    }))
})
