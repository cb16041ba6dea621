// Issue 31 §4: "The service's database, logs and exports hold no amount after a paid batch." An employer pays a
// batch of two payouts with real proofs (the confidential client, the loopback token verifying them), the amounts
// sealed for the employer as a reader; then every representation of each amount a careless implementation might
// keep (decimal, 7-decimal, hex of the 32-byte big-endian value or of the field element with or without 0x, any
// zero-padded hex number of that value, base64 of its 32-, 16- and minimal big-endian bytes) is looked for in every
// row of every table, every line the service logged, the CSV exports, the audit trail's pages, the batch, its payouts,
// its sealed amounts, the contractors' own payouts and the webhook deliveries. None may hold one. So that this cannot
// pass by looking at nothing, the same search is shown to find: every form of both amounts in a table the test makes
// (read by the same query as the service's tables), a control value planted through the service itself (in names and
// request ids, which reach the database, the logs, the exports and the audit trail), the public deposit amount where
// the archive keeps it, and the amounts where they legitimately are: the sealed document opened by the test, and what
// each contractor decrypts from the chain.
//
// Issue 36 §3: the employer's wallet is registered under the organization's escrow key, and after the batch the
// auditor's report runs from Node with the client's library (client/src/confidential/audit, reading the service as the
// console's Auditor's report page does: the escrow keys' envelopes, the payouts, the receipts, the archive). It
// decrypts both amounts; the service then holds neither them nor the escrow secret k (each form above, planted in the
// control table too, to show the search finds it).
import { expect, layer } from "@effect/vitest"
import { FetchHttpClient } from "@effect/platform"
import { Keypair, nativeToScVal, rpc, TransactionBuilder } from "@stellar/stellar-sdk"
import { Console, Effect, Layer, Schedule } from "effect"
import { auditReport } from "../client/src/confidential/audit/AuditReport.ts"
import { prepareCall } from "../client/src/confidential/chain/Calls.ts"
import type { ConfidentialWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { fetchAccountEvents } from "../client/src/confidential/state/ArchiveEvents.ts"
import { makeClient } from "../client/src/Client.ts"
import { prepareRegistryCall } from "../client/src/escrow/AuditorRegistry.ts"
import { deriveEscrowKey } from "../client/src/escrow/EscrowKey.ts"
import { openEscrowSecret, sealEscrowSecret } from "../client/src/escrow/SealedEscrowSecret.ts"
import { accountHistory, openedReceipts, sentPayouts } from "../client/src/payroll/AuditSources.ts"
import { openDocument } from "../client/src/sealing/Envelope.ts"
import { amountToDecimal, deriveSealingKey, openAmounts, SEALED_AMOUNTS_INFO, sealAmounts } from "../client/src/sealing/index.ts"
import { MemberId } from "../src/Domain/Members.ts"
import { CreateOrg } from "../src/Domain/Session.ts"
import { api } from "./support/Api.ts"
import { call, signIn } from "./support/Client.ts"
import {
  deploymentOf, keypairSigner, loopbackWallet, proofVerifier, provingSetup, sequenceOf as loopbackSequence, signAndSend,
  syncUntil as syncWallet
} from "./support/ConfidentialProving.ts"
import { must } from "./support/Members.ts"
import { psql } from "./support/Psql.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { tokenOf } from "./support/VersionedToken.ts"
import { webhookReceiver } from "./support/WebhookReceiver.ts"

/** The two payouts' amounts, in the token's units (7 decimals): 765.4321987 and 123.4567891 USDC. */
const FIRST = 7_654_321_987n
const SECOND = 1_234_567_891n
/** A value never paid, planted through the service (names, request ids) to show the search reaches each place. */
const CONTROL = 5_551_234_567n
/** Public on the chain (a deposit's amount is an argument of the call): the archive may keep it. */
const DEPOSIT = 9_000_000_000n
/** The organization's escrow key's auditor id in the loopback's registry. */
const AUDITOR_ID = 7117

/** Every line the service's logger writes, instead of the console. */
const lines: Array<string> = []
const CapturedConsole = Layer.unwrapEffect(
  Effect.map(Effect.console, (base) =>
    Console.setConsole({ ...base, unsafe: { ...console, log: (...args: ReadonlyArray<unknown>) => void lines.push(args.map(String).join(" ")) } }))
)

const CONFIG = {
  ARCHIVE_POLL_INTERVAL: "200 millis",
  LOG_FORMAT: "json",
  LOG_LEVEL: "debug",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_BASE: "150 millis"
}
const ProvingApp = Layer.unwrapScoped(Effect.map(proofVerifier, (verifier) => TestAppLive(CONFIG, { ledgerIntervalMs: 100, verifier }))).pipe(
  Layer.provide(CapturedConsole)
)

// ---------------------------------------------------------------------------------------------------------------------
// The search

interface Needle {
  /** Which value: "first", "second", "control", "deposit". */
  readonly value: string
  /** Which representation of it. */
  readonly form: string
  readonly found: (text: string) => boolean
}

const bigEndian = (amount: bigint, bytes: number) => Buffer.from(amount.toString(16).padStart(bytes * 2, "0"), "hex")
const minimalBytes = (amount: bigint) => {
  const hex = amount.toString(16)
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex")
}
const unpadded = (base64: string) => base64.replace(/=+$/, "")
/**
 * `bytes` as they read inside any longer base64 text (an XDR blob, say), at each of the three alignments a byte string
 * can have there: only the characters that these bytes alone decide.
 */
const embeddedBase64 = (bytes: Buffer) =>
  [0, 1, 2].map((k) => Buffer.concat([Buffer.alloc(k), bytes]).toString("base64").slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)))
const substring = (needle: string, ignoreCase = false) => (text: string) =>
  ignoreCase ? text.toLowerCase().includes(needle.toLowerCase()) : text.includes(needle)

/** Each representation of `amount` a careless implementation might write, as a test on a text. */
const needlesOf = (value: string, amount: bigint): ReadonlyArray<Needle> => {
  const hex32 = bigEndian(amount, 32).toString("hex")
  const minimal = amount.toString(16)
  // Any run of hex digits (with or without 0x, any case) whose value is the amount: the field element's 64 digits,
  // an i128's 32, an u64's 16 or the minimal form; bounded by non-hex characters so that chance digits inside a
  // longer hash or ciphertext do not count.
  const inXdr = embeddedBase64(bigEndian(amount, 8))
  const hexNumber = new RegExp(`(?<![0-9a-f])0*${minimal}(?![0-9a-f])`, "i")
  const forms: ReadonlyArray<readonly [string, (text: string) => boolean]> = [
    ["decimal", substring(amount.toString())],
    ["7 decimals", substring(amountToDecimal(amount))],
    ["32-byte big-endian hex", substring(hex32, true)],
    ["32-byte big-endian hex with 0x (the field element)", substring(`0x${hex32}`, true)],
    ["minimal hex with 0x", substring(`0x${minimal}`, true)],
    ["any zero-padded hex number of the value", (text) => hexNumber.test(text)],
    ["base64 of the 32 bytes", substring(unpadded(bigEndian(amount, 32).toString("base64")))],
    ["base64url of the 32 bytes", substring(unpadded(bigEndian(amount, 32).toString("base64url")))],
    ["base64 of the 16 bytes (i128)", substring(unpadded(bigEndian(amount, 16).toString("base64")))],
    ["base64 of the minimal bytes", substring(unpadded(minimalBytes(amount).toString("base64")))],
    // An i128's low half, an u64, an i64: XDR writes each as these 8 bytes, wherever the value sits in a blob.
    ["its 8 big-endian bytes inside any base64 (XDR), at any alignment", (text) => inXdr.some((n) => text.includes(n))]
  ]
  return forms.map(([form, found]) => ({ value, form, found }))
}

/** The literal strings of `amount`'s forms, as a careless implementation would write them (to plant as controls). */
const formsOf = (amount: bigint) => {
  const be32 = bigEndian(amount, 32)
  return {
    decimal: amount.toString(),
    sevenDecimals: amountToDecimal(amount),
    hex32: be32.toString("hex"),
    field: `0x${be32.toString("hex")}`,
    minimalHex: `0x${amount.toString(16)}`,
    bareHex: `"${amount.toString(16)}"`,
    base64: be32.toString("base64"),
    base64url: be32.toString("base64url"),
    base64i128: bigEndian(amount, 16).toString("base64"),
    base64minimal: minimalBytes(amount).toString("base64"),
    // An escrow secret (up to 2^254) is no i128: its 32 bytes are in the forms above.
    ...(amount < 1n << 127n ? { xdrI128: nativeToScVal(amount, { type: "i128" }).toXDR("base64") } : {})
  }
}

/** One place searched: what kind (database, logs, export, api, webhook), which one, and its whole text. */
interface Source {
  readonly kind: string
  readonly name: string
  readonly text: string
}

interface Hit {
  readonly kind: string
  readonly name: string
  readonly value: string
  readonly form: string
}

const search = (needles: ReadonlyArray<Needle>, sources: ReadonlyArray<Source>): Array<Hit> =>
  sources.flatMap((s) => needles.filter((n) => n.found(s.text)).map((n) => ({ kind: s.kind, name: s.name, value: n.value, form: n.form })))

const CONTROL_TABLE = "zz_no_amounts_control"

/** Every row of every table of the app's database (all schemas but the system's), one source per table. */
const databaseSources = (app: TestAppShape) =>
  Effect.gen(function*() {
    const tables = yield* psql<{ table_schema: string; table_name: string }>(
      app,
      "SELECT table_schema, table_name FROM information_schema.tables " +
        "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
    )
    const sources: Array<Source & { rows: number }> = []
    for (const t of tables) {
      const quoted = `"${t.table_schema.replaceAll("\"", "\"\"")}"."${t.table_name.replaceAll("\"", "\"\"")}"`
      const rows = yield* psql<{ row: string }>(app, `SELECT t::text AS row FROM ${quoted} t`)
      sources.push({ kind: "database", name: `${t.table_schema}.${t.table_name}`, text: rows.map((r) => r.row).join("\n"), rows: rows.length })
    }
    return sources
  }).pipe(Effect.orDie)

/** Every page of a listing (`items`, `nextCursor`), as the raw JSON texts the service answered. */
const pages = (app: TestAppShape, token: string, path: string, limit: number) =>
  Effect.gen(function*() {
    const texts: Array<string> = []
    let items = 0
    let cursor: string | undefined
    do {
      const sep = path.includes("?") ? "&" : "?"
      const reply = yield* call(app, "GET", `${path}${sep}limit=${limit}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { token })
      expect(reply.status, `${path} ${JSON.stringify(reply.body)}`).toBe(200)
      texts.push(JSON.stringify(reply.body))
      items += (reply.body.items as Array<unknown>).length
      cursor = reply.body.nextCursor ?? undefined
    } while (cursor !== undefined)
    return { texts, items }
  })

/** A raw download: its whole text. */
const download = (app: TestAppShape, token: string, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } })
    expect(response.status, path).toBe(200)
    return await response.text()
  })

// ---------------------------------------------------------------------------------------------------------------------
// Paying

const sequenceOf = (app: TestAppShape, account: string) => loopbackSequence(app.rpc, account)

const walletFor = (app: TestAppShape, key: Keypair) =>
  Effect.flatMap(provingSetup, (setup) => loopbackWallet(app.rpc, CONFIDENTIAL_TOKEN, setup, key))

const syncUntil = (app: TestAppShape, wallet: ConfidentialWallet, done: (b: { spendable: bigint; receiving: bigint }) => boolean) =>
  syncWallet(app.url, CONFIDENTIAL_TOKEN, wallet, done)

const control = formsOf(CONTROL)
/** The control's forms in one name (at most 200 characters), for a contractor and for the paid batch. */
const CONTROL_NAME = `Control ${control.decimal} ${control.sevenDecimals} ${control.field} ${control.base64}`

layer(ProvingApp, { timeout: "400 seconds" })("no amount in the service", (it) => {
  it.effect("after a batch paid with real proofs, no table, log line, export, audit page or payload holds an amount", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const server = new rpc.Server(app.rpc.url, { allowHttp: true })
      const deployment = deploymentOf(tokenOf(app), app.rpc.networkPassphrase)
      const send = (key: Keypair, invocation: Parameters<typeof prepareCall>[3]) =>
        Effect.gen(function*() {
          const tx = yield* Effect.promise(() => prepareCall(server, deployment, { account: key.publicKey(), sequence: sequenceOf(app, key.publicKey()) }, invocation))
          expect(yield* signAndSend(server, tx, key)).toBe("SUCCESS")
        })

      // The employer signs in, creates the organization and publishes its sealing key (a reader of amounts).
      const employerKey = Keypair.random()
      app.rpc.setAccount({ id: employerKey.publicKey() })
      const session = yield* signIn(app, employerKey)
      const employerApi = yield* api(app, session)
      const org = yield* employerApi.account.createOrg({ payload: new CreateOrg({ name: "No Amounts Co" }) })
      const sealingKey = yield* Effect.promise(() =>
        deriveSealingKey({ organizationId: org.id, account: employerKey.publicKey(), signer: keypairSigner(employerKey) }))
      yield* must(app, "PUT", "/me/sealing-key", session, { sealingKey: sealingKey.publicKey })
      const members = yield* must(app, "GET", "/org/members?limit=100", session)
      const memberId = (members.items as Array<{ id: string; sub: string }>).find((m) => m.sub === employerKey.publicKey())!.id
      const receiver = yield* webhookReceiver("127.0.0.2")
      yield* must(app, "POST", "/webhooks", session, {
        url: `${receiver.url}/hooks`,
        events: ["contractor.ready", "payout.settled", "payout.failed", "batch.completed"]
      })

      // The organization's escrow key: derived from the employer's signature, sealed to the employer, stored, and
      // registered in the auditor registry by the employer as its operator (the example contract's "manager").
      const escrow = yield* Effect.promise(() =>
        deriveEscrowKey({ signer: keypairSigner(employerKey), account: employerKey.publicKey(), organizationId: org.id, version: 1 }))
      const escrowEnvelope = yield* Effect.promise(() =>
        sealEscrowSecret(escrow, { organizationId: org.id, auditorId: AUDITOR_ID }, [{ memberId, sealingKey: sealingKey.publicKey }]))
      yield* must(app, "POST", "/org/escrow-keys", session, { auditorId: AUDITOR_ID, point: escrow.pointHex, version: 1, envelope: escrowEnvelope })
      tokenOf(app).removeAuditorKey(AUDITOR_ID)
      tokenOf(app).auditors.setOperator(employerKey.publicKey())
      const registerKey = yield* Effect.promise(() =>
        prepareRegistryCall(server, app.rpc.networkPassphrase, tokenOf(app).auditorRegistry, sequenceOf(app, employerKey.publicKey()), {
          fn: "register_key", auditorId: AUDITOR_ID, point: escrow.pointHex, operator: employerKey.publicKey()
        }))
      expect(yield* signAndSend(server, registerKey, employerKey)).toBe("SUCCESS")

      // The employer registers its wallet with the token under the escrow key's auditor id, deposits and merges.
      const employer = yield* walletFor(app, employerKey)
      yield* send(employerKey, { fn: "register", account: employerKey.publicKey(), auditorId: AUDITOR_ID, data: yield* employer.proveRegister() })
      tokenOf(app).mintUnderlying(employerKey.publicKey(), 10_000_000_000n)
      yield* send(employerKey, { fn: "deposit", from: employerKey.publicKey(), to: employerKey.publicKey(), amount: DEPOSIT })
      yield* send(employerKey, { fn: "merge", account: employerKey.publicKey() })
      expect(yield* syncUntil(app, employer, (b) => b.spendable === DEPOSIT)).toEqual({ spendable: DEPOSIT, receiving: 0n })

      // Two contractors, each registering with the token from their own wallet (sponsored by the service); a third,
      // never paid, is named with the control value (it reaches the directory, its export and the database).
      const contractors: Array<{ id: string; key: Keypair; wallet: ConfidentialWallet; session: string }> = []
      for (const name of ["Ada", "Grace"]) {
        const key = Keypair.random()
        app.rpc.setAccount({ id: key.publicKey(), balance: 0n })
        const created = yield* must(app, "POST", "/contractors", session, { name, address: key.publicKey() })
        const wallet = yield* walletFor(app, key)
        const register = yield* Effect.promise(() =>
          prepareCall(server, deployment, { account: key.publicKey(), sequence: sequenceOf(app, key.publicKey()) }, {
            fn: "register", account: key.publicKey(), auditorId: 0, data: new Uint8Array()
          }).catch(() => undefined))
        expect(register).toBeUndefined() // the token verifies proofs: an empty one fails the simulation
        const data = yield* wallet.proveRegister()
        const signed = yield* Effect.promise(() =>
          prepareCall(server, deployment, { account: key.publicKey(), sequence: sequenceOf(app, key.publicKey()) }, {
            fn: "register", account: key.publicKey(), auditorId: 0, data
          }))
        signed.sign(key)
        const contractorSession = yield* signIn(app, key)
        expect((yield* must(app, "POST", "/contractor/register", contractorSession, { signedXDR: signed.toXDR() })).status).toBe("SUCCESS")
        const checked = yield* must(app, "POST", `/contractors/${created.id}/check`, session)
        expect(checked.status).toBe("ready")
        contractors.push({ id: created.id as string, key, wallet, session: contractorSession })
      }
      // Request ids a caller chooses are kept (logged, and recorded in the audit trail): the control's forms that a
      // request id may spell ([A-Za-z0-9._:-], 64 at most).
      const controlIds = [`ctl-${control.decimal}`, `ctl.${control.sevenDecimals}`, control.hex32, control.base64url]
      const controlContractor = yield* call(app, "POST", "/contractors", {
        token: session,
        json: { name: CONTROL_NAME, address: Keypair.random().publicKey() },
        headers: { "x-request-id": controlIds[0]! }
      })
      expect(controlContractor.status, JSON.stringify(controlContractor.body)).toBeLessThan(300)

      // The batch (named with the control value), its two payouts, the amounts sealed for the employer, readied.
      const batch = yield* call(app, "POST", "/batches", { token: session, json: { name: CONTROL_NAME }, headers: { "x-request-id": controlIds[1]! } })
      expect(batch.status, JSON.stringify(batch.body)).toBeLessThan(300)
      const batchId = batch.body.id as string
      const added = (yield* must(app, "POST", `/batches/${batchId}/payouts`, session, { contractorIds: contractors.map((c) => c.id) })) as Array<{
        id: string
        contractorId: string
      }>
      const amountOf = new Map([[contractors[0]!.id, FIRST], [contractors[1]!.id, SECOND]])
      const payouts = added.map((p) => ({ id: p.id, contractor: contractors.find((c) => c.id === p.contractorId)!, amount: amountOf.get(p.contractorId)! }))
      const envelope = yield* Effect.promise(() =>
        sealAmounts(batchId, payouts.map((p) => ({ payoutId: p.id, amount: p.amount })), [{ memberId, sealingKey: sealingKey.publicKey }]))
      const sealed = yield* call(app, "PUT", `/batches/${batchId}/sealed-amounts`, { token: session, json: envelope, headers: { "x-request-id": controlIds[2]! } })
      expect(sealed.status, JSON.stringify(sealed.body)).toBe(200)
      const readied = yield* call(app, "POST", `/batches/${batchId}/ready`, { token: session, headers: { "x-request-id": controlIds[3]! } })
      expect(readied.status, JSON.stringify(readied.body)).toBe(200)

      // Each payout proven (the second on the first's new balance), prepared and sent with its payoutId.
      const proven = []
      for (const p of payouts) proven.push({ ...p, data: yield* employer.proveTransfer(p.contractor.key.publicKey(), p.amount) })
      for (const p of proven) {
        const prepared = yield* must(app, "POST", "/transfers/prepare", session, {
          to: p.contractor.key.publicKey(),
          data: Buffer.from(p.data).toString("base64"),
          payoutId: p.id
        })
        const tx = TransactionBuilder.fromXDR(prepared.xdr as string, app.rpc.networkPassphrase)
        tx.sign(employerKey)
        expect((yield* must(app, "POST", "/transfer", session, { signedXDR: tx.toXDR(), payoutId: p.id })).status).toBe("SUCCESS")
      }
      const completed = yield* must(app, "GET", `/batches/${batchId}`, session).pipe(
        Effect.filterOrFail((b) => b.status === "completed", () => "not yet" as const),
        Effect.retry({ times: 300, schedule: Schedule.spaced("200 millis"), while: (e) => e === "not yet" })
      )
      expect(completed).toMatchObject({ status: "completed", settledCount: 2, failedCount: 0 })

      // Where the amounts legitimately are: each contractor decrypts what they received from the chain (through the
      // service's archive), and the sealed document opens, for the employer, to the amounts sealed.
      const received: Array<string> = []
      for (const p of payouts) {
        expect(yield* syncUntil(app, p.contractor.wallet, (b) => b.receiving === p.amount)).toEqual({ spendable: 0n, receiving: p.amount })
        const events = (yield* fetchAccountEvents(app.url, CONFIDENTIAL_TOKEN, p.contractor.key.publicKey(), undefined)).events
        const amounts = p.contractor.wallet.received(events).map((r): bigint => r.amount)
        expect(amounts).toEqual([p.amount])
        received.push(`${p.contractor.key.publicKey()} received ${amounts.join(",")} (0x${amounts[0]!.toString(16).padStart(64, "0")})`)
      }
      yield* syncUntil(app, employer, (b) => b.spendable === DEPOSIT - FIRST - SECOND)
      const stored = yield* must(app, "GET", `/batches/${batchId}/sealed-amounts`, session)
      const opened = yield* Effect.promise(() => openAmounts(stored.envelope, batchId, memberId, sealingKey))
      expect(opened).toEqual(payouts.map((p) => ({ payoutId: p.id, amount: p.amount })))
      const plaintext = yield* Effect.promise(() =>
        openDocument(
          { info: SEALED_AMOUNTS_INFO, contentAad: batchId, wrapAad: (m) => `${batchId}\n${m}` },
          stored.envelope,
          { memberId, keyPair: sealingKey }
        ))
      const legitimate: ReadonlyArray<Source> = [
        { kind: "held by the test", name: "the sealed document, opened", text: Buffer.from(plaintext).toString("utf8") },
        { kind: "held by the test", name: "what the contractors decrypt", text: received.join("\n") }
      ]
      // The auditor's report, from Node with the client's library, reading only what the service already serves.
      const client = yield* makeClient(app.url, session)
      const { keys } = yield* client.escrow.list()
      expect(keys.map((k) => [k.auditorId, k.point])).toEqual([[AUDITOR_ID, escrow.pointHex]])
      const escrowOpened = yield* Effect.promise(() =>
        openEscrowSecret(keys[0]!.envelope, { organizationId: org.id, auditorId: AUDITOR_ID, version: 1, point: escrow.pointHex }, { memberId, keyPair: sealingKey }))
      const sent = yield* sentPayouts(client)
      const history = yield* accountHistory(app.url, CONFIDENTIAL_TOKEN, employerKey.publicKey())
      const report = auditReport({
        events: history.events,
        auditorSecret: escrowOpened.secret,
        wallets: [employerKey.publicKey()],
        period: { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) },
        payouts: sent,
        receipts: (yield* openedReceipts(client, { orgId: org.id, account: employerKey.publicKey(), memberId: MemberId.make(memberId), keyPair: sealingKey }, sent)).receipts
      })
      expect(report.rows.filter((r) => r.kind === "transfer").map((r) => [r.amount, r.match.kind === "payout" ? r.match.payoutId : r.match.kind, r.continuity?.status]))
        .toEqual(payouts.map((p) => [p.amount, p.id, "continuous"]))
      expect(report.checks).toMatchObject({ breaks: 0, undecryptable: 0 })

      // The batch's last webhook (batch.completed) has been delivered before anything is read.
      const delivered = yield* Effect.sync(() => receiver.received.some((r) => r.body.includes("batch.completed"))).pipe(
        Effect.filterOrFail((yes) => yes, () => "not yet" as const),
        Effect.retry({ times: 100, schedule: Schedule.spaced("200 millis") }),
        Effect.orElseSucceed(() => false)
      )
      expect(delivered, "batch.completed was delivered").toBe(true)

      // Everything the service holds or hands out, read after the batch is done.
      const service: Array<Source> = []
      const tables = yield* databaseSources(app)
      service.push(...tables)
      service.push({ kind: "logs", name: "the service's log lines", text: lines.join("\n") })
      const exports = {
        payouts: yield* download(app, session, "/exports/payouts.csv"),
        batchPayouts: yield* download(app, session, `/exports/payouts.csv?batchId=${batchId}`),
        contractors: yield* download(app, session, "/exports/contractors.csv"),
        audit: yield* download(app, session, "/exports/audit.csv")
      }
      service.push(
        { kind: "export", name: "/exports/payouts.csv", text: exports.payouts },
        { kind: "export", name: "/exports/payouts.csv?batchId", text: exports.batchPayouts },
        { kind: "export", name: "/exports/contractors.csv", text: exports.contractors },
        { kind: "export", name: "/exports/audit.csv", text: exports.audit }
      )
      const audit = yield* pages(app, session, "/audit", 10)
      audit.texts.forEach((text, i) => service.push({ kind: "api", name: `GET /audit page ${i + 1}`, text }))
      const batchPayouts = yield* pages(app, session, `/batches/${batchId}/payouts`, 1)
      batchPayouts.texts.forEach((text, i) => service.push({ kind: "api", name: `GET /batches/{id}/payouts page ${i + 1}`, text }))
      const batches = yield* pages(app, session, "/batches", 100)
      const directory = yield* pages(app, session, "/contractors", 100)
      service.push(
        { kind: "api", name: "GET /batches/{id}", text: JSON.stringify((yield* call(app, "GET", `/batches/${batchId}`, { token: session })).body) },
        { kind: "api", name: "GET /batches/{id}/sealed-amounts", text: JSON.stringify(stored) },
        { kind: "api", name: "GET /batches", text: batches.texts.join("\n") },
        { kind: "api", name: "GET /contractors", text: directory.texts.join("\n") },
        { kind: "api", name: "GET /statistics", text: JSON.stringify((yield* call(app, "GET", "/statistics", { token: session })).body) }
      )
      for (const [i, c] of contractors.entries()) {
        service.push({ kind: "api", name: `GET /contractor/payouts (contractor ${i + 1})`, text: JSON.stringify((yield* call(app, "GET", "/contractor/payouts", { token: c.session })).body) })
      }
      service.push({ kind: "webhook", name: "the webhook deliveries' bodies and headers", text: receiver.received.map((r) => JSON.stringify(r)).join("\n") })

      // The control table: every form of the paid amounts (and the control's), read by the same query as the
      // service's tables. Made after the service's tables were read, and read on its own.
      yield* psql(app, `CREATE TABLE ${CONTROL_TABLE} (value text, form text, planted text)`).pipe(Effect.orDie)
      for (const [value, amount] of [["first", FIRST], ["second", SECOND], ["control", CONTROL], ["escrow secret", escrow.secret]] as const) {
        for (const [form, text] of Object.entries(formsOf(amount))) {
          yield* psql(app, `INSERT INTO ${CONTROL_TABLE} VALUES ($1, $2, $3)`, [value, form, `{"amount": ${text}}`]).pipe(Effect.orDie)
        }
      }
      const controlTable = (yield* databaseSources(app)).filter((s) => s.name === `public.${CONTROL_TABLE}`)
      expect(controlTable).toHaveLength(1)

      const paid = [...needlesOf("first", FIRST), ...needlesOf("second", SECOND), ...needlesOf("escrow secret", escrow.secret)]
      const planted = needlesOf("control", CONTROL)
      const deposit = needlesOf("deposit", DEPOSIT)

      // The scanner works on these very inputs: it finds every form of both amounts in the control table, in the
      // document the test opened and in what the contractors decrypted...
      const inControl = search(paid, controlTable)
      expect(new Set(inControl.map((h) => `${h.value}: ${h.form}`))).toEqual(new Set(paid.map((n) => `${n.value}: ${n.form}`)))
      const inLegitimate = search(paid, legitimate)
      for (const value of ["first", "second"]) {
        expect(inLegitimate.filter((h) => h.value === value && h.name === "the sealed document, opened").map((h) => h.form)).toContain("7 decimals")
        expect(inLegitimate.filter((h) => h.value === value && h.name === "what the contractors decrypt").map((h) => h.form))
          .toEqual(expect.arrayContaining(["decimal", "32-byte big-endian hex with 0x (the field element)", "any zero-padded hex number of the value"]))
      }
      // ...the control value where the service put what the test sent it (names, request ids)...
      const controlHits = search(planted, service)
      const controlIn = (name: string) => controlHits.filter((h) => h.name === name).map((h) => h.form)
      expect(controlIn("public.contractors")).toEqual(expect.arrayContaining(["decimal", "7 decimals", "32-byte big-endian hex with 0x (the field element)", "base64 of the 32 bytes"]))
      expect(controlIn("public.batches")).toEqual(expect.arrayContaining(["decimal", "7 decimals", "32-byte big-endian hex", "base64 of the 32 bytes"]))
      expect(controlIn("the service's log lines")).toEqual(expect.arrayContaining(["decimal", "7 decimals", "32-byte big-endian hex", "base64url of the 32 bytes"]))
      expect(controlIn("/exports/audit.csv")).toEqual(expect.arrayContaining(["decimal", "7 decimals", "32-byte big-endian hex", "base64url of the 32 bytes"]))
      for (const name of ["/exports/payouts.csv", "/exports/payouts.csv?batchId", "/exports/contractors.csv", "GET /batches/{id}", "GET /batches", "GET /contractors", "GET /contractor/payouts (contractor 1)"]) {
        expect(controlIn(name), name).toEqual(expect.arrayContaining(["decimal", "7 decimals", "32-byte big-endian hex with 0x (the field element)", "base64 of the 32 bytes"]))
      }
      expect(controlHits.some((h) => h.name.startsWith("GET /audit page"))).toBe(true)

      // The verdict: no form of either paid amount, nor of the escrow secret, anywhere the service keeps or hands out anything.
      const leaks = search(paid, service)
      expect(leaks).toEqual([])

      // The public deposit's amount is where the archive keeps the chain's events (XDR): the search reads inside them.
      const depositHits = search(deposit, service)
      expect(depositHits.filter((h) => h.name === "public.archive_events").map((h) => h.form)).toContain("its 8 big-endian bytes inside any base64 (XDR), at any alignment")
      const bytes = (text: string) => Buffer.byteLength(text)
      const databaseRows = tables.reduce((n, t) => n + t.rows, 0)
      const figures = [
        `[no-amounts figures] database: ${tables.length} tables, ${databaseRows} rows, ${tables.reduce((n, t) => n + bytes(t.text), 0)} bytes as text` +
          ` (non-empty: ${tables.filter((t) => t.rows > 0).map((t) => `${t.name.replace(/^public\./, "")} ${t.rows}`).join(", ")})`,
        `[no-amounts figures] logs: ${lines.length} lines, ${bytes(lines.join("\n"))} bytes`,
        `[no-amounts figures] exports: payouts.csv ${bytes(exports.payouts)} B, payouts.csv?batchId ${bytes(exports.batchPayouts)} B, contractors.csv ${bytes(exports.contractors)} B, audit.csv ${bytes(exports.audit)} B (${exports.audit.trim().split("\r\n").length - 1} rows)`,
        `[no-amounts figures] api: GET /audit ${audit.texts.length} pages, ${audit.items} entries; payouts ${batchPayouts.texts.length} pages; webhooks ${receiver.received.length} deliveries, ${bytes(receiver.received.map((r) => r.body).join(""))} B`,
        `[no-amounts figures] searched ${service.length} sources for ${paid.length} needles: ${leaks.length} hits; control value found in ${new Set(controlHits.map((h) => h.name)).size} sources; deposit (public) in ${[...new Set(depositHits.map((h) => `${h.name} (${h.form})`))].join(", ") || "none"}`
      ]
      for (const line of figures) console.log(line)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 400_000)
})
