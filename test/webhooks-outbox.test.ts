import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import type { OrgId } from "../src/Domain/Ids.ts"
import { Outbox } from "../src/Sql/Outbox.ts"
import { DeliveryRepo } from "../src/Webhooks/DeliveryRepo.ts"
import { backend, MigratedDatabase } from "./support/TestDatabase.ts"


/** An organization with endpoints: subscribed to payout.settled, subscribed but disabled, subscribed to something else. */
const organization = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const orgId = randomUUID() as OrgId
  yield* sql`INSERT INTO orgs ${sql.insert({ id: orgId, name: "Outbox Co", createdBy: "GA" })}`
  const endpoint = (events: ReadonlyArray<string>, disabled: boolean) =>
    Effect.gen(function*() {
      const id = randomUUID()
      yield* sql`
        INSERT INTO webhook_endpoints (id, org_id, url, events, secret, created_at, disabled_at)
        VALUES (${id}, ${orgId}, 'http://127.0.0.2:9/', string_to_array(${events.join(",")}, ','), 'whsec_AAAA', now(),
          ${disabled ? new Date() : null})`
      return id
    })
  return {
    orgId,
    subscribed: yield* endpoint(["payout.settled", "payout.failed"], false),
    disabled: yield* endpoint(["payout.settled"], true),
    other: yield* endpoint(["batch.completed"], false)
  }
})

const deliveriesOf = (orgId: OrgId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ endpointId: string; eventType: string; status: string }>`
      SELECT d.endpoint_id, d.event_type, d.status FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE e.org_id = ${orgId}`)

layer(Layer.mergeAll(Outbox.Default, DeliveryRepo.Default).pipe(Layer.provideMerge(MigratedDatabase)), { excludeTestServices: true })(
  `webhook outbox (${backend})`,
  (it) => {
    it.effect("an event commits and rolls back with the transaction it is emitted in, fanned out to the enabled subscribed endpoints", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* Outbox
        const { orgId, subscribed } = yield* organization
        const event = { orgId, type: "payout.settled", data: { payoutId: "p1" } }

        const rolledBack = yield* sql.withTransaction(Effect.zipRight(outbox.emit(event), Effect.fail("the change failed"))).pipe(Effect.flip)
        expect(rolledBack).toBe("the change failed")
        expect(yield* deliveriesOf(orgId)).toEqual([])
        expect(yield* sql`SELECT 1 FROM webhook_events WHERE org_id = ${orgId}`).toEqual([])

        yield* sql.withTransaction(outbox.emit(event))
        expect(yield* deliveriesOf(orgId)).toEqual([{ endpointId: subscribed, eventType: "payout.settled", status: "pending" }])
        const [stored] = yield* sql<{ body: string }>`SELECT body FROM webhook_events WHERE org_id = ${orgId}`
        expect(JSON.parse(stored!.body)).toMatchObject({ type: "payout.settled", data: { payoutId: "p1" } })

        // Nobody subscribed: nothing is stored.
        yield* outbox.emit({ orgId, type: "contractor.ready", data: {} })
        expect((yield* sql`SELECT 1 FROM webhook_events WHERE org_id = ${orgId}`).length).toBe(1)
      }))

    it.effect("a claim whose instance died lapses and another instance claims it; the dead instance's late report is ignored", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* Outbox
        const repo = yield* DeliveryRepo
        const { orgId } = yield* organization
        yield* sql`UPDATE webhook_deliveries SET status = 'delivered' WHERE status = 'pending'`
        yield* outbox.emit({ orgId, type: "payout.failed", data: {} })
        const t0 = Date.now() + 1_000
        const at = (ms: number) => new Date(t0 + ms)

        const [dead] = yield* repo.claim(at(0), at(5_000), 10, "dead-instance")
        expect(dead).toMatchObject({ attempts: 1 })
        expect(yield* repo.claim(at(4_000), at(9_000), 10, "other-instance")).toEqual([])
        const [taken] = yield* repo.claim(at(5_000), at(10_000), 10, "other-instance")
        expect(taken).toMatchObject({ id: dead!.id, attempts: 2 })

        expect(yield* repo.delivered(dead!, { at: at(6_000), statusCode: 200, error: null }, "dead-instance")).toBe(false)
        expect(yield* repo.delivered(taken!, { at: at(6_000), statusCode: 200, error: null }, "other-instance")).toBe(true)
        const [row] = yield* sql<{ status: string; attempts: number; leaseOwner: string | null }>`
          SELECT status, attempts, lease_owner FROM webhook_deliveries WHERE id = ${dead!.id}`
        expect(row).toEqual({ status: "delivered", attempts: 2, leaseOwner: null })
      }))
  }
)
