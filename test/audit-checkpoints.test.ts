import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { employer } from "./support/Client.ts"
import { batchOf, must } from "./support/Members.ts"
import { psql } from "./support/Psql.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { registerWebhook } from "./support/WebhookPayroll.ts"
import { type Received, webhookReceiver } from "./support/WebhookReceiver.ts"

/** Loopback receivers allowed; a checkpoint every 2 seconds instead of every day. */
const CONFIG = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE: "200 millis", AUDIT_CHECKPOINT_INTERVAL: "2 seconds" }
const INTERVAL_MS = 2_000

interface Checkpoint {
  readonly position: number
  readonly hash: string
  readonly message: string
  readonly signature: string
  readonly signingKey: string
}

const eventOf = (request: Received) =>
  JSON.parse(request.body) as {
    readonly type: string
    readonly timestamp: string
    readonly data: {
      readonly rows: number
      readonly verified: boolean
      readonly pending: number
      readonly firstBrokenId?: string
      readonly checkpoint?: Checkpoint
    }
  }

/** A transaction that has written (it holds a transaction id) and stays open until `commit`, or the scope ends. */
const openTransaction = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query("BEGIN")
      await client.query("SELECT pg_current_xact_id()")
      let open = true
      const commit = Effect.promise(async () => {
        if (!open) return
        open = false
        await client.query("COMMIT")
        await client.end()
      })
      return { commit }
    }),
    (held) => held.commit
  )

layer(TestAppLive(CONFIG), { timeout: 90_000, excludeTestServices: true })("audit checkpoints sent by webhook", (it) => {
  it.scoped("a subscriber gets its chain's signed head at once, then once an interval; each is kept; an edit is reported", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const receiver = yield* webhookReceiver("127.0.0.2")
      const quiet = yield* webhookReceiver("127.0.0.3")
      // Three instances on the one database, each looking for checkpoints due every interval.
      yield* app.startInstance
      yield* app.startInstance
      const owner = yield* employer(app, "Checkpoint Co")
      yield* batchOf(app, owner.token, 2)
      // Another organization whose endpoint takes other events: it is sent no checkpoint.
      const other = yield* employer(app, "Quiet Co")
      yield* registerWebhook(app, other.token, `${quiet.url}/hooks`, ["batch.completed"])
      // A transaction left open elsewhere on the server holds every verification back (up to 5 s, so that it covers
      // what such a transaction commits): the three instances' rounds all find the checkpoint due meanwhile, and all
      // try to send it when their verifications end. One of them does.
      const holding = yield* openTransaction(app.config.DATABASE_URL!)
      const endpoint = yield* registerWebhook(app, owner.token, `${receiver.url}/audit`, ["audit.checkpoint"])

      const [firstRequest] = yield* receiver.waitFor(1, 20_000)
      yield* holding.commit
      expect(() => new Webhook(endpoint.secret).verify(firstRequest!.body, firstRequest!.headers)).not.toThrow()
      const first = eventOf(firstRequest!)
      expect(first).toMatchObject({ type: "audit.checkpoint", data: { verified: true } })
      const checkpoint = first.data.checkpoint!
      expect(checkpoint.position).toBe(first.data.rows)
      expect(checkpoint.position).toBeGreaterThan(2)
      expect(checkpoint.message).toBe(
        `Confidential payroll audit checkpoint\norganization: ${owner.orgId}\nposition: ${checkpoint.position}\nhash: ${checkpoint.hash}`
      )
      // Signed (SEP-53) by the key stellar.toml publishes as SIGNING_KEY, checked with the SDK's own verifier.
      expect(checkpoint.signingKey).toBe(app.sep10Key.publicKey())
      const signer = Keypair.fromPublicKey(checkpoint.signingKey)
      expect(signer.verifyMessage(Buffer.from(checkpoint.message), Buffer.from(checkpoint.signature, "base64"))).toBe(true)
      expect(signer.verifyMessage(Buffer.from(checkpoint.message.replace("position", "Position")), Buffer.from(checkpoint.signature, "base64")))
        .toBe(false)

      // The trail grows; the next interval's checkpoint is further along, and the first one is still in the chain.
      yield* batchOf(app, owner.token, 1)
      const requests = yield* receiver.waitFor(2, 20_000)
      const second = eventOf(requests[1]!)
      expect(second.data.verified).toBe(true)
      expect(second.data.checkpoint!.position).toBeGreaterThan(checkpoint.position)
      const given = `${checkpoint.position}:${checkpoint.hash}`
      expect(yield* must(app, "GET", `/audit/verify?checkpoint=${given}`, owner.token)).toMatchObject({ verified: true, checkpointKept: true })
      expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(2)

      // A row edited by hand (its append-only trigger dropped): the next checkpoint says so, and names it.
      const [row] = yield* psql<{ id: string }>(app, "SELECT id FROM audit_log WHERE org_id = $1 ORDER BY seq LIMIT 1", [owner.orgId])
      yield* psql(app, "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
      yield* psql(app, "UPDATE audit_log SET action = 'org.renamed' WHERE id = $1", [row!.id])
      yield* psql(app, "ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only")
      const edited = yield* Effect.promise(async () => {
        for (;;) {
          const seen = await Effect.runPromise(receiver.waitFor(receiver.received.length + 1, 20_000))
          const event = eventOf(seen.at(-1)!)
          if (!event.data.verified) return event
        }
      })
      expect(edited.data).toMatchObject({ verified: false, firstBrokenId: row!.id })
      expect(edited.data.checkpoint).toBeUndefined()

      // One send an interval for the organization, whichever instance made it (each event's timestamp is when its
      // send was claimed); none for the organization that did not subscribe.
      const times = receiver.received.map((r) => Date.parse(eventOf(r).timestamp)).sort((a, b) => a - b)
      expect(times.length).toBeGreaterThanOrEqual(3)
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(INTERVAL_MS)
      expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(receiver.received.length)
      const sends = yield* psql<{ org_id: string }>(app, "SELECT org_id FROM audit_checkpoint_sends")
      expect(sends.map((s) => s.org_id)).toEqual([owner.orgId])
      expect(quiet.received).toEqual([])
    }))
})
