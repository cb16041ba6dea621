import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import type { MemberRole } from "../src/Domain/Roles.ts"
import { call } from "./support/Client.ts"
import { orgWithEveryRole } from "./support/Members.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

/**
 * Issue 22's permission table, copied from the issue (not from the service's own table, which it checks): which
 * column of it each role may do. `read` is the directory, batches, the audit trail, exports and statistics. Issue 31
 * adds `amounts` (`amounts:read`: every role but viewer): sealed amounts; `keys` is publishing a sealing key and
 * listing the members whose keys things are sealed to, for whoever reads amounts or (issue 36) the escrow key.
 */
type Column = "directoryWrite" | "batchesWrite" | "approve" | "pay" | "control" | "manage" | "read" | "amounts" | "keys"
const ROW = (granted: ReadonlyArray<Column>): Readonly<Record<Column, boolean>> => ({
  directoryWrite: granted.includes("directoryWrite"),
  batchesWrite: granted.includes("batchesWrite"),
  approve: granted.includes("approve"),
  pay: granted.includes("pay"),
  control: granted.includes("control"),
  manage: granted.includes("manage"),
  read: granted.includes("read"),
  amounts: granted.includes("amounts"),
  keys: granted.includes("keys")
})
const ISSUE_TABLE: Readonly<Record<MemberRole, Readonly<Record<Column, boolean>>>> = {
  owner: ROW(["directoryWrite", "batchesWrite", "approve", "pay", "control", "manage", "read", "amounts", "keys"]),
  admin: ROW(["directoryWrite", "batchesWrite", "approve", "control", "manage", "read", "amounts", "keys"]),
  initiator: ROW(["directoryWrite", "batchesWrite", "read", "amounts", "keys"]),
  approver: ROW(["approve", "control", "read", "amounts", "keys"]),
  payer: ROW(["pay", "control", "read", "amounts", "keys"]),
  viewer: ROW(["read"]),
  // Issue 36: reads as a viewer does, and publishes a sealing key and lists the members, as the escrow key's secret is
  // sealed to it (`audit:disclose`); the escrow routes themselves are test/escrow-routes.test.ts's.
  auditor: ROW(["read", "keys"])
}

/** An envelope of the agreed shape, sealed to nobody in particular: the batches it names exist nowhere (404). */
const envelope = () => ({
  version: 2,
  suite: "X25519-HKDF-SHA256/HKDF-SHA256/ChaCha20Poly1305",
  nonce: randomBytes(12).toString("base64url"),
  ciphertext: randomBytes(32).toString("base64url"),
  keyCommitment: randomBytes(32).toString("base64url"),
  recipients: [{
    memberId: randomUUID(),
    sealingKey: randomBytes(32).toString("base64url"),
    enc: randomBytes(32).toString("base64url"),
    wrappedKey: randomBytes(48).toString("base64url")
  }]
})

interface Operation {
  readonly method: string
  readonly path: () => string
  readonly json?: () => unknown
  /** Whether an allowed caller's request succeeds (2xx); the others name ids that exist nowhere (404) or bad envelopes. */
  readonly succeeds?: true
}

const id = () => randomUUID()

/**
 * Every route the table governs, by column, each with a request the schema accepts (so that only the policy, or the
 * operation itself, can refuse it): ids that exist nowhere answer 404 to an allowed caller.
 */
const OPERATIONS: Readonly<Record<Column, ReadonlyArray<Operation>>> = {
  directoryWrite: [
    { succeeds: true, method: "POST", path: () => "/contractors", json: () => ({ name: `C ${id().slice(0, 6)}` }) },
    { succeeds: true, method: "POST", path: () => "/contractors/bulk", json: () => ({ rows: [{ name: `B ${id().slice(0, 6)}` }] }) },
    { method: "PATCH", path: () => `/contractors/${id()}`, json: () => ({ name: "Renamed" }) },
    { method: "POST", path: () => `/contractors/${id()}/invites` },
    { method: "POST", path: () => `/contractors/${id()}/check` }
  ],
  batchesWrite: [
    { succeeds: true, method: "POST", path: () => "/batches", json: () => ({ name: "Matrix" }) },
    { method: "POST", path: () => `/batches/${id()}/ready` },
    { method: "DELETE", path: () => `/batches/${id()}` },
    { method: "POST", path: () => `/batches/${id()}/payouts`, json: () => ({ contractorIds: [id()] }) },
    { method: "DELETE", path: () => `/batches/${id()}/payouts/${id()}` },
    { method: "POST", path: () => `/batches/${id()}/cancel` },
    { method: "POST", path: () => `/batches/${id()}/payouts/${id()}/cancel` }
  ],
  approve: [
    { method: "POST", path: () => `/batches/${id()}/approve` },
    { method: "POST", path: () => `/batches/${id()}/reject`, json: () => ({ reason: "not this month" }) }
  ],
  pay: [
    { method: "POST", path: () => "/transfer", json: () => ({ signedXDR: "AAAA" }) },
    { succeeds: true, method: "POST", path: () => "/batch", json: () => ({ transactions: [{ signedXDR: "AAAA" }] }) },
    { method: "POST", path: () => "/transfers/prepare", json: () => ({ to: Keypair.random().publicKey(), data: "AAAA" }) },
    // A member's own token calls (a contractor's are the contractor's, whatever their role: none of these members is one).
    { method: "POST", path: () => "/token/calls", json: () => ({ signedXDR: "AAAA" }) }
  ],
  control: [
    { method: "POST", path: () => `/batches/${id()}/pause` },
    { method: "POST", path: () => `/batches/${id()}/resume` }
  ],
  manage: [
    { method: "PATCH", path: () => `/org/members/${id()}`, json: () => ({ role: "viewer" }) },
    { method: "DELETE", path: () => `/org/members/${id()}` },
    { succeeds: true, method: "POST", path: () => "/orgs/invites", json: () => ({ role: "viewer" }) },
    { succeeds: true, method: "PATCH", path: () => "/org/settings", json: () => ({ approvalsRequired: 0 }) },
    { succeeds: true, method: "GET", path: () => "/api-keys" },
    { succeeds: true, method: "POST", path: () => "/api-keys", json: () => ({ name: "Matrix", scopes: ["directory:read"] }) },
    { succeeds: true, method: "GET", path: () => "/webhooks" }
  ],
  read: [
    { succeeds: true, method: "GET", path: () => "/contractors" },
    { method: "GET", path: () => `/contractors/${id()}` },
    { succeeds: true, method: "GET", path: () => "/batches" },
    { method: "GET", path: () => `/batches/${id()}` },
    { method: "GET", path: () => `/batches/${id()}/payouts` },
    { method: "GET", path: () => `/batch/${id()}` },
    { succeeds: true, method: "GET", path: () => "/org/settings" },
    { succeeds: true, method: "GET", path: () => "/audit" },
    { succeeds: true, method: "GET", path: () => "/audit/verify" },
    { succeeds: true, method: "GET", path: () => "/exports/payouts.csv" },
    { succeeds: true, method: "GET", path: () => "/exports/contractors.csv" },
    { succeeds: true, method: "GET", path: () => "/exports/audit.csv" },
    { succeeds: true, method: "GET", path: () => "/statistics" }
  ],
  amounts: [
    { method: "GET", path: () => `/batches/${id()}/sealed-amounts` },
    { method: "PUT", path: () => `/batches/${id()}/sealed-amounts`, json: envelope }
  ],
  keys: [
    // Listing the members was `manage`'s alone; whoever seals amounts (issue 31) or the escrow key's secret (issue 36)
    // needs the readers' keys, and every reader publishes one.
    { succeeds: true, method: "GET", path: () => "/org/members" },
    { succeeds: true, method: "PUT", path: () => "/me/sealing-key", json: () => ({ sealingKey: randomBytes(32).toString("base64url") }) }
  ]
}

layer(TestAppLive({}, { ledgerIntervalMs: 20 }))("the permission matrix", (it) => {
  it.effect("every role against every operation of every column: 403 naming the permission exactly where the table says no", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const members = yield* orgWithEveryRole(app)
      const cases = (Object.keys(ISSUE_TABLE) as Array<MemberRole>).flatMap((role) =>
        (Object.keys(OPERATIONS) as Array<Column>).flatMap((column) =>
          OPERATIONS[column].map((operation) => ({ role, column, operation, allowed: ISSUE_TABLE[role][column] }))
        )
      )
      const outcomes = yield* Effect.forEach(cases, ({ role, column, operation, allowed }) =>
        Effect.map(
          call(app, operation.method, operation.path(), {
            token: members[role].token,
            ...(operation.json === undefined ? {} : { json: operation.json() })
          }),
          (reply) => ({
            role,
            column,
            operation: `${operation.method} ${operation.path()}`,
            allowed,
            succeeds: operation.succeeds === true,
            status: reply.status,
            body: reply.body
          })
        ), { concurrency: 8 })
      const wrong = outcomes.filter((o) =>
        o.allowed
          ? o.status === 403 || o.status >= 500 || (o.succeeds && o.status >= 300)
          : o.status !== 403 || !/permission/.test(String(o.body?.error))
      )
      expect(wrong.map((o) => `${o.role} ${o.operation} (${o.column}): ${o.status} ${JSON.stringify(o.body)}`)).toEqual([])
      expect(outcomes.filter((o) => !o.allowed).length).toBeGreaterThan(0)
      console.log(`[permission matrix] ${outcomes.length} requests: 7 roles × ${cases.length / 7} operations in 8 columns, ` +
        `${outcomes.filter((o) => !o.allowed).length} of them refused`)
    }), { timeout: 120_000 })

  it.effect("an admin cannot touch owners; the last owner can neither leave, be removed nor be demoted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const members = yield* orgWithEveryRole(app, "Owners Co")
      const list = (yield* call(app, "GET", "/org/members?limit=100", { token: members.owner.token })).body.items as Array<
        { id: string; sub: string; role: MemberRole }
      >
      expect(list.map((m) => m.role).sort()).toEqual(["admin", "approver", "auditor", "initiator", "owner", "payer", "viewer"])
      const idOf = (role: MemberRole) => list.find((m) => m.role === role)!.id
      const owner = idOf("owner")
      const admin = members.admin.token

      expect((yield* call(app, "POST", "/orgs/invites", { token: admin, json: { role: "owner" } })).status).toBe(403)
      expect((yield* call(app, "PATCH", `/org/members/${owner}`, { token: admin, json: { role: "viewer" } })).status).toBe(403)
      expect((yield* call(app, "DELETE", `/org/members/${owner}`, { token: admin })).status).toBe(403)
      expect((yield* call(app, "PATCH", `/org/members/${idOf("viewer")}`, { token: admin, json: { role: "owner" } })).status).toBe(403)
      const promoted = yield* call(app, "PATCH", `/org/members/${idOf("viewer")}`, { token: admin, json: { role: "payer" } })
      expect(promoted.status).toBe(200)
      expect(promoted.body.role).toBe("payer")

      const demoteLast = yield* call(app, "PATCH", `/org/members/${owner}`, { token: members.owner.token, json: { role: "admin" } })
      expect(demoteLast.status).toBe(409)
      expect(demoteLast.body.error).toContain("last owner")
      expect((yield* call(app, "DELETE", `/org/members/${owner}`, { token: members.owner.token })).status).toBe(409)

      // With a second owner, the first may step down, and the admin still cannot remove the new one.
      expect((yield* call(app, "PATCH", `/org/members/${idOf("approver")}`, { token: members.owner.token, json: { role: "owner" } })).status)
        .toBe(200)
      expect((yield* call(app, "DELETE", `/org/members/${idOf("approver")}`, { token: admin })).status).toBe(403)
      expect((yield* call(app, "DELETE", `/org/members/${owner}`, { token: members.owner.token })).status).toBe(204)
      const me = yield* call(app, "GET", "/me", { token: members.owner.token })
      expect(me.body.roles).toEqual([])
      const approverMe = yield* call(app, "GET", "/me", { token: members.approver.token })
      expect(approverMe.body.employer.role).toBe("owner")
      expect(approverMe.body.employer.permissions).toContain("transfers:submit")
    }))

  it.effect("API keys act within their member's role, narrowed when asked; a demoted or removed member's keys lose it at once; CIDRs bind (expiry: api-keys.test.ts)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const members = yield* orgWithEveryRole(app, "Keys Co")
      const admin = members.admin.token
      const create = (token: string, json: Record<string, unknown>) => call(app, "POST", "/api-keys", { token, json: { name: "k", ...json } })

      // An admin may narrow to any role within theirs, never to one that pays (admins do not pay).
      expect((yield* create(admin, { scopes: ["transfers:submit"], role: "payer" })).status).toBe(403)
      const narrowed = (yield* create(admin, { scopes: ["batches:read", "batches:write"], role: "viewer" })).body.key as string
      expect((yield* call(app, "GET", "/batches", { token: narrowed })).status).toBe(200)
      const refused = yield* call(app, "POST", "/batches", { token: narrowed, json: { name: "No" } })
      expect(refused.status).toBe(403)
      expect(refused.body.error).toContain("batches:write")

      const full = (yield* create(admin, { scopes: ["batches:read", "batches:write"] })).body.key as string
      expect((yield* call(app, "POST", "/batches", { token: full, json: { name: "Yes" } })).status).toBe(200)
      const list = (yield* call(app, "GET", "/org/members?limit=100", { token: members.owner.token })).body.items as Array<
        { id: string; role: MemberRole }
      >
      const adminId = list.find((m) => m.role === "admin")!.id
      // Demoted to viewer: the key can no longer write, at once.
      expect((yield* call(app, "PATCH", `/org/members/${adminId}`, { token: members.owner.token, json: { role: "viewer" } })).status).toBe(200)
      expect((yield* call(app, "POST", "/batches", { token: full, json: { name: "Not any more" } })).status).toBe(403)
      expect((yield* call(app, "GET", "/batches", { token: full })).status).toBe(200)
      // Removed: the key acts for no one.
      expect((yield* call(app, "DELETE", `/org/members/${adminId}`, { token: members.owner.token })).status).toBe(204)
      expect((yield* call(app, "GET", "/batches", { token: full })).status).toBe(403)

      // Networks: loopback is inside 127.0.0.0/8 and ::1/128, not inside 203.0.113.0/24.
      const inside = (yield* create(members.owner.token, { scopes: ["batches:read"], allowedCidrs: ["127.0.0.0/8", "::1/128"] })).body.key
      const outside = (yield* create(members.owner.token, { scopes: ["batches:read"], allowedCidrs: ["203.0.113.0/24"] })).body.key
      expect((yield* call(app, "GET", "/batches", { token: inside })).status).toBe(200)
      const far = yield* call(app, "GET", "/batches", { token: outside })
      expect(far.status).toBe(403)
      expect(far.body.error).toContain("network")
      expect((yield* create(members.owner.token, { scopes: ["batches:read"], allowedCidrs: ["not-a-network"] })).status).toBe(400)

    }), { timeout: 60_000 })
})
