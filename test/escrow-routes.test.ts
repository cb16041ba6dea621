// The escrow key's routes (issue 36 §2) over HTTP: who may list, create, share and rotate the organization's escrow
// key, which points the auditor registry would refuse (OZ auditor/storage.rs `validate_point`), the share-only-adds
// rule, rotation keeping the old key with its ledger, one auditor id and one point per organization, and that the
// database keeps the envelope, the point and the ids, never the secret. Then POST /escrow/registry-calls: the
// registry operator's `register_key` prepared through the service's gateway, signed by the owner's wallet (the
// registry's "manager", as examples/confidential/auditor/src/contract.rs guards it) and sponsored.
import { expect, layer } from "@effect/vitest"
import { Keypair, rpc, type Transaction, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { H, scalarMul } from "../client/src/confidential/crypto/Grumpkin.ts"
import { prepareRegistryCall, readAuditorKey } from "../client/src/escrow/AuditorRegistry.ts"
import { EscrowKeyPair, pointHex } from "../client/src/escrow/EscrowKey.ts"
import { openEscrowSecret, sealEscrowSecret, shareEscrowSecretWith } from "../client/src/escrow/SealedEscrowSecret.ts"
import type { Recipient, SealedEnvelope } from "../client/src/sealing/Envelope.ts"
import { SealingKeyPair } from "../client/src/sealing/SealingKey.ts"
import type { MemberRole } from "../src/Domain/Roles.ts"
import { call } from "./support/Client.ts"
import { type Member, must, orgWithEveryRole } from "./support/Members.ts"
import { psql } from "./support/Psql.ts"
import { TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { tokenOf } from "./support/VersionedToken.ts"

const ROLES: ReadonlyArray<MemberRole> = ["owner", "admin", "initiator", "approver", "payer", "viewer", "auditor"]
const DISCLOSE: ReadonlyArray<MemberRole> = ["owner", "admin", "auditor"]
/** The `audit:disclose` members, each with a published sealing key (PUT /me/sealing-key takes `audit:disclose` too). */
const SEALABLE = DISCLOSE
const MANAGE: ReadonlyArray<MemberRole> = ["owner", "admin"]

interface Org {
  readonly orgId: string
  readonly members: Record<MemberRole, Member>
  readonly ids: Record<MemberRole, string>
  readonly keys: Record<MemberRole, SealingKeyPair>
}

/** An organization with every role, each member's sealing key published where the service lets them publish one. */
const org = (app: TestAppShape, name: string) =>
  Effect.gen(function*() {
    const members = yield* orgWithEveryRole(app, name)
    const me = yield* must(app, "GET", "/me", members.owner.token)
    const page = yield* must(app, "GET", "/org/members?limit=100", members.owner.token)
    const bySub = new Map((page.items as Array<{ id: string; sub: string }>).map((m) => [m.sub, m.id]))
    const ids = {} as Record<MemberRole, string>
    const keys = {} as Record<MemberRole, SealingKeyPair>
    for (const role of ROLES) {
      ids[role] = bySub.get(members[role].wallet.publicKey())!
      keys[role] = yield* Effect.promise(() => SealingKeyPair.fromIkm(crypto.getRandomValues(new Uint8Array(32))))
      if (role !== "viewer") yield* must(app, "PUT", "/me/sealing-key", members[role].token, { sealingKey: keys[role].publicKey })
    }
    return { orgId: me.employer.orgId as string, members, ids, keys } satisfies Org
  })

const recipients = (o: Org, roles: ReadonlyArray<MemberRole>): Array<Recipient> =>
  roles.map((role) => ({ memberId: o.ids[role], sealingKey: o.keys[role].publicKey }))

const seal = (o: Org, pair: EscrowKeyPair, auditorId: number, roles: ReadonlyArray<MemberRole>) =>
  Effect.promise(() => sealEscrowSecret(pair, { organizationId: o.orgId, auditorId }, recipients(o, roles)))

const create = (app: TestAppShape, token: string, json: unknown) => call(app, "POST", "/org/escrow-keys", { token, json })

/** Every byte the database holds for the organization's escrow keys and audit rows, as text. */
const stored = (app: TestAppShape, orgId: string) =>
  Effect.map(
    Effect.all([
      psql(app, "SELECT row_to_json(k)::text AS row FROM org_escrow_keys k WHERE org_id = $1", [orgId]),
      psql(app, "SELECT row_to_json(a)::text AS row FROM audit_log a WHERE org_id = $1", [orgId])
    ]),
    ([keys, audit]) => ({ keys: keys.map((r) => r.row as string), audit: audit.map((r) => r.row as string) })
  ).pipe(Effect.orDie)

/** Every way a secret k might be written down: hex (bare, padded, 0x), decimal, base64 and base64url of its 32 bytes. */
const forms = (k: bigint) => {
  const bytes = Buffer.from(k.toString(16).padStart(64, "0"), "hex")
  return [k.toString(16), k.toString(16).padStart(64, "0"), `0x${k.toString(16)}`, k.toString(10), bytes.toString("base64"), bytes.toString("base64url")]
}

layer(TestAppLive({}, { ledgerIntervalMs: 20 }), { timeout: 180_000 })("the escrow key's routes", (it) => {
  it.effect("each role against each route; points the registry refuses; one id and one point per organization", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const o = yield* org(app, "Escrow Roles Co")
      const pair = new EscrowKeyPair(0x5eed_1234n, 1)
      const envelope = yield* seal(o, pair, 4242, SEALABLE)
      const payload = { auditorId: 4242, point: pair.pointHex, version: 1, envelope }

      for (const role of ROLES) {
        const listed = yield* call(app, "GET", "/org/escrow-keys", { token: o.members[role].token })
        expect([role, listed.status]).toEqual([role, 200])
        expect(listed.body.keys).toEqual([])
        if (MANAGE.includes(role)) continue
        const refused = yield* create(app, o.members[role].token, payload)
        expect([role, refused.status]).toEqual([role, 403])
        expect(refused.body.error).toContain("org:manage")
      }

      const identity = yield* create(app, o.members.admin.token, { ...payload, point: "0".repeat(128) })
      expect([identity.status, identity.body._tag, identity.body.reason]).toEqual([422, "EscrowPointInvalid", "IdentityPoint"])
      const offCurve = Buffer.from(pair.pointBytes)
      offCurve[63] = offCurve[63]! ^ 1
      const off = yield* create(app, o.members.admin.token, { ...payload, point: offCurve.toString("hex") })
      expect([off.status, off.body.reason]).toEqual([422, "PointNotOnCurve"])
      const big = yield* create(app, o.members.admin.token, { ...payload, point: "f".repeat(128) })
      expect([big.status, big.body.reason]).toEqual([422, "PointNotOnCurve"])
      for (const malformed of [pair.pointHex.toUpperCase(), pair.pointHex.slice(2), `${pair.pointHex}00`, 42, "", null]) {
        const refused = yield* create(app, o.members.admin.token, { ...payload, point: malformed })
        expect([JSON.stringify(malformed).slice(0, 12), refused.status]).toEqual([JSON.stringify(malformed).slice(0, 12), 400])
      }
      const toPayer = yield* create(app, o.members.admin.token, { ...payload, envelope: yield* seal(o, pair, 4242, ["owner", "payer"]) })
      expect([toPayer.status, toPayer.body._tag]).toEqual([422, "RecipientRefused"])
      expect(toPayer.body.error).toContain("audit:disclose")
      const toViewer = yield* create(app, o.members.admin.token, { ...payload, envelope: yield* seal(o, pair, 4242, ["owner", "viewer"]) })
      expect([toViewer.status, toViewer.body._tag]).toEqual([422, "RecipientRefused"])

      const created = yield* create(app, o.members.admin.token, payload)
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ auditorId: 4242, point: pair.pointHex, version: 1, current: true })
      expect((yield* create(app, o.members.owner.token, payload)).status).toBe(409)
      for (const role of ROLES) {
        const listed = yield* must(app, "GET", "/org/escrow-keys", o.members[role].token)
        expect(listed.keys.map((k: { id: string }) => k.id)).toEqual([created.body.id])
      }

      // Another organization can take neither the auditor id nor the point.
      const other = yield* org(app, "Escrow Rival Co")
      const rival = new EscrowKeyPair(0xbeefn, 1)
      const sameId = yield* create(app, other.members.owner.token, {
        auditorId: 4242, point: rival.pointHex, version: 1, envelope: yield* seal(other, rival, 4242, ["owner"])
      })
      expect(sameId.status).toBe(409)
      const samePoint = yield* create(app, other.members.owner.token, {
        auditorId: 4243, point: pair.pointHex, version: 1, envelope: yield* seal(other, pair, 4243, ["owner"])
      })
      expect(samePoint.status).toBe(409)
      expect((yield* must(app, "GET", "/org/escrow-keys", other.members.owner.token)).keys).toEqual([])
      // Nor another organization's key, by its id.
      const foreign = yield* call(app, "POST", `/org/escrow-keys/${created.body.id}/rotate`, {
        token: other.members.owner.token, json: { point: rival.pointHex, version: 2, envelope: yield* seal(other, rival, 4242, ["owner"]), replacedAtLedger: 10 }
      })
      expect(foreign.status).toBe(404)
    }))

  it.effect("a share only adds recipients; rotation keeps the old key sealed with its ledger; audit rows carry no secret", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const o = yield* org(app, "Escrow Share Co")
      const pair = new EscrowKeyPair(0x0123_4567_89ab_cdefn, 1)
      const auditorId = 5151
      const ref = { organizationId: o.orgId, auditorId, version: 1, point: pair.pointHex }
      const first = yield* seal(o, pair, auditorId, ["owner"])
      const created = yield* must(app, "POST", "/org/escrow-keys", o.members.owner.token, { auditorId, point: pair.pointHex, version: 1, envelope: first })
      const sharePath = `/org/escrow-keys/${created.id}/sealed-secret`
      const owner = { memberId: o.ids.owner, keyPair: o.keys.owner }
      const shared = yield* Effect.promise(() => shareEscrowSecretWith(first, ref, owner, recipients(o, SEALABLE)))

      for (const role of ROLES) {
        if (DISCLOSE.includes(role)) continue
        const refused = yield* call(app, "PUT", sharePath, { token: o.members[role].token, json: shared })
        expect([role, refused.status]).toEqual([role, 403])
      }
      // Dropping the owner's entry, or sealing another secret, is refused; the auditor may share once it holds it.
      const withoutOwner = { ...shared, recipients: shared.recipients.filter((r) => r.memberId !== o.ids.owner) }
      expect((yield* call(app, "PUT", sharePath, { token: o.members.admin.token, json: withoutOwner })).status).toBe(409)
      const another = yield* seal(o, new EscrowKeyPair(99n, 1), auditorId, SEALABLE)
      expect((yield* call(app, "PUT", sharePath, { token: o.members.admin.token, json: another })).status).toBe(409)
      const toViewer = { ...shared, recipients: [...shared.recipients, { ...shared.recipients[0]!, memberId: o.ids.viewer }] }
      expect((yield* call(app, "PUT", sharePath, { token: o.members.admin.token, json: toViewer })).body._tag).toBe("RecipientRefused")
      const accepted = yield* call(app, "PUT", sharePath, { token: o.members.admin.token, json: shared })
      expect(accepted.status).toBe(200)
      expect(accepted.body.digest).toBe(created.digest)
      // The auditor holds audit:disclose: the same envelope again is a share that adds nothing.
      expect((yield* call(app, "PUT", sharePath, { token: o.members.auditor.token, json: shared })).status).toBe(200)
      const opened = yield* Effect.promise(() =>
        openEscrowSecret(accepted.body.envelope, ref, { memberId: o.ids.admin, keyPair: o.keys.admin }))
      expect(opened.secret).toBe(pair.secret)

      // Rotation: payer and auditor may not; the old key stays, sealed as it was, with the ledger it was replaced at.
      const next = new EscrowKeyPair(0xfeed_facen, 2)
      const rotate = { point: next.pointHex, version: 2, envelope: yield* seal(o, next, auditorId, SEALABLE), replacedAtLedger: 777 }
      const rotatePath = `/org/escrow-keys/${created.id}/rotate`
      for (const role of ["payer", "auditor", "viewer"] as const) {
        expect((yield* call(app, "POST", rotatePath, { token: o.members[role].token, json: rotate })).status).toBe(403)
      }
      expect((yield* call(app, "POST", rotatePath, { token: o.members.owner.token, json: { ...rotate, point: "0".repeat(128) } })).body.reason)
        .toBe("IdentityPoint")
      const rotated = yield* call(app, "POST", rotatePath, { token: o.members.admin.token, json: rotate })
      expect(rotated.status).toBe(201)
      expect(rotated.body).toMatchObject({ auditorId, point: next.pointHex, version: 2, current: true, replaces: created.id, validFromLedger: 777 })
      expect((yield* call(app, "POST", rotatePath, { token: o.members.admin.token, json: { ...rotate, replacedAtLedger: 800 } })).status).toBe(409)
      const earlier = yield* call(app, "POST", `/org/escrow-keys/${rotated.body.id}/rotate`, {
        token: o.members.admin.token, json: { ...rotate, point: new EscrowKeyPair(3n, 3).pointHex, version: 3, replacedAtLedger: 700 }
      })
      expect(earlier.status).toBe(409)
      const { keys } = yield* must(app, "GET", "/org/escrow-keys", o.members.auditor.token)
      expect(keys.map((k: { id: string; current: boolean; validUntilLedger?: number }) => [k.id, k.current, k.validUntilLedger]))
        .toEqual([[created.id, false, 777], [rotated.body.id, true, undefined]])
      expect(keys[0].envelope).toEqual(accepted.body.envelope)
      const old = yield* Effect.promise(() =>
        openEscrowSecret(keys[0].envelope, ref, { memberId: o.ids.owner, keyPair: o.keys.owner }))
      expect(old.secret).toBe(pair.secret)

      const audit = yield* must(app, "GET", "/audit?limit=100", o.members.owner.token)
      const actions = (audit.items as Array<{ action: string }>).map((a) => a.action)
      expect(actions).toEqual(expect.arrayContaining(["escrow.key_created", "escrow.key_shared", "escrow.key_rotated"]))
      const { keys: rows, audit: auditRows } = yield* stored(app, o.orgId)
      for (const text of [...rows, ...auditRows, JSON.stringify(audit)]) {
        for (const form of [...forms(pair.secret), ...forms(next.secret)]) expect(text).not.toContain(form)
      }
    }))

  it.effect("whatever envelope is stored, the rows hold the envelope, the point and the ids, never the secret", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const o = yield* org(app, "Escrow Property Co")
      const auditorId = 6161
      const firstPair = new EscrowKeyPair(7n, 1)
      let current = (yield* must(app, "POST", "/org/escrow-keys", o.members.owner.token, {
        auditorId, point: firstPair.pointHex, version: 1, envelope: yield* seal(o, firstPair, auditorId, SEALABLE)
      })).id as string
      let ledger = 10
      let version = 1
      const used = new Set<bigint>()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            // Large enough that its hex or decimal cannot turn up in a row by chance.
            fc.bigInt({ min: 1n << 200n, max: (1n << 253n) }),
            fc.subarray([...SEALABLE], { minLength: 1 }),
            async (secret, roles) => {
              // A point on file is another key's (409): each run seals a secret not stored before.
              fc.pre(!used.has(secret))
              used.add(secret)
              version += 1
              ledger += 1
              const pair = new EscrowKeyPair(secret, version)
              const envelope: SealedEnvelope = await sealEscrowSecret(pair, { organizationId: o.orgId, auditorId }, recipients(o, roles))
              const rotated = await Effect.runPromise(must(app, "POST", `/org/escrow-keys/${current}/rotate`, o.members.admin.token, {
                point: pair.pointHex, version, envelope, replacedAtLedger: ledger
              }))
              current = rotated.id
              const { keys, audit } = await Effect.runPromise(stored(app, o.orgId))
              const row = JSON.parse(keys.find((k) => k.includes(rotated.id))!) as Record<string, unknown>
              expect(Object.keys(row).sort()).toEqual([
                "auditor_id", "created_at", "created_by", "digest", "envelope", "id", "org_id", "point", "replaces", "updated_at",
                "updated_by", "valid_from_ledger", "version"
              ])
              expect(row.envelope).toEqual(JSON.parse(JSON.stringify(envelope)))
              for (const text of [...keys, ...audit]) for (const form of forms(secret)) expect(text).not.toContain(form)
            }
          ),
          { numRuns: 12 }
        ))
    }))

  it.effect("POST /escrow/registry-calls: the owner, the registry's operator, registers the organization's key, sponsored", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const o = yield* org(app, "Escrow Registry Co")
      const token = tokenOf(app)
      for (const [fn, handler] of token.auditors.functions()) app.rpc.setContractFunction(token.auditorRegistry, fn, handler)
      const auditorId = 7171
      token.removeAuditorKey(auditorId)
      const operator = o.members.owner.wallet
      token.auditors.setOperator(operator.publicKey())
      const pair = new EscrowKeyPair(0xc0ffeen, 1)
      yield* must(app, "POST", "/org/escrow-keys", o.members.owner.token, {
        auditorId, point: pair.pointHex, version: 1, envelope: yield* seal(o, pair, auditorId, SEALABLE)
      })

      // Prepared through the service's read-only gateway (its simulation of the registry's writes), as the console does.
      const gateway = (session: string) =>
        new rpc.Server(`${app.url}/stellar-rpc`, { allowHttp: true, headers: { authorization: `Bearer ${session}` } })
      const prepare = (signer: Keypair, point: string, session = o.members.owner.token) =>
        Effect.promise(async () => {
          const server = gateway(session)
          const account = await server.getAccount(signer.publicKey())
          return await prepareRegistryCall(server, app.rpc.networkPassphrase, token.auditorRegistry, account.sequenceNumber(), {
            fn: "register_key", auditorId, point, operator: signer.publicKey()
          }, { timeoutSeconds: 300 })
        })
      const signed = (tx: Transaction, signer: Keypair) => {
        const copy = TransactionBuilder.fromXDR(tx.toXDR(), app.rpc.networkPassphrase) as Transaction
        copy.sign(signer)
        return copy.toXDR()
      }
      const post = (session: string, signedXDR: string) => call(app, "POST", "/escrow/registry-calls", { token: session, json: { signedXDR } })

      const good = yield* prepare(operator, pair.pointHex)
      for (const role of ["payer", "auditor", "viewer", "initiator"] as const) {
        const refused = yield* post(o.members[role].token, signed(good, operator))
        expect([role, refused.status]).toEqual([role, 403])
      }
      // The admin may call, but the transaction's source must be the signed-in wallet.
      expect((yield* post(o.members.admin.token, signed(good, operator))).status).toBe(403)
      const otherPoint = yield* prepare(operator, new EscrowKeyPair(0xdeadn, 1).pointHex)
      const wrong = yield* post(o.members.owner.token, signed(otherPoint, operator))
      expect([wrong.status, wrong.body._tag, wrong.body.rule]).toEqual([422, "SponsorRefused", "arguments"])
      expect(wrong.body.error).toContain(`auditor id ${auditorId}`)

      const xlm = app.rpc.account(operator.publicKey())?.balance
      const landed = yield* post(o.members.owner.token, signed(good, operator))
      expect([landed.status, landed.body.status]).toEqual([200, "SUCCESS"])
      expect(app.rpc.account(operator.publicKey())?.balance).toBe(xlm)
      expect(yield* Effect.promise(() => readAuditorKey(gateway(o.members.owner.token), app.rpc.networkPassphrase, token.auditorRegistry, auditorId)))
        .toBe(pair.pointHex)
      const audit = yield* must(app, "GET", "/audit?limit=100&action=escrow.register_key", o.members.owner.token)
      expect(audit.items.length).toBe(1)

      // An admin who is not the registry's operator is refused by the registry in simulation (#2000).
      const admin = o.members.admin.wallet
      token.removeAuditorKey(auditorId)
      yield* Effect.flip(Effect.tryPromise(async () => {
        const server = gateway(o.members.admin.token)
        const account = await server.getAccount(admin.publicKey())
        return await prepareRegistryCall(server, app.rpc.networkPassphrase, token.auditorRegistry, account.sequenceNumber(), {
          fn: "register_key", auditorId, point: pair.pointHex, operator: admin.publicKey()
        }, { timeoutSeconds: 300 })
      })).pipe(Effect.map((error) => expect(String(error.error)).toMatch(/Error\(Contract, #2000\)/)))
      expect(pointHex(scalarMul(pair.secret, H))).toBe(pair.pointHex)
    }))
})
