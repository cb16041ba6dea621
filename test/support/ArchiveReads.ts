import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { call } from "./Client.ts"
import type { TestAppShape } from "./TestApp.ts"
import { CONFIDENTIAL_TOKEN } from "./TestApp.ts"

/** The archive's routes for the loopback token, read as a wallet would read them. */
export const BASE = `/archive/tokens/${CONFIDENTIAL_TOKEN}`

export interface Served {
  readonly id: string
  readonly ledger: number
  readonly type: string
  readonly topics: ReadonlyArray<string>
  readonly value: string
}

const get = (app: Pick<TestAppShape, "url">, path: string) => call(app, "GET", path)

/** Waits until the archive has ingested `ledger`: its status then. */
export const ingestedThrough = (app: Pick<TestAppShape, "url">, ledger: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const status = yield* get(app, "/archive/status")
      if (status.status === 200 && (status.body.ingestedThrough ?? 0) >= ledger) return status.body
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage(`the archive never reached ledger ${ledger}`)
  })

/** Every page of a history (100 a page), following `cursor`. */
export const history = (app: Pick<TestAppShape, "url">, path: string, query: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const events: Array<Served> = []
    let cursor: string | null = null
    let complete = true
    do {
      const params = new URLSearchParams({ ...query, ...(cursor === null ? {} : { cursor }) })
      const reply = yield* get(app, `${path}?${params}`)
      expect(reply.status).toBe(200)
      events.push(...reply.body.events)
      complete &&= reply.body.complete
      cursor = reply.body.cursor
    } while (cursor !== null)
    return { events, complete }
  })

/** C1: the account's checkpoint at or before `atLedger`, with its replay anchor. */
export const checkpointAt = (app: Pick<TestAppShape, "url">, account: string, atLedger: number) =>
  get(app, `${BASE}/accounts/${account}/checkpoint?atLedger=${atLedger}`).pipe(
    Effect.tap((reply) => expect(reply.status).toBe(200)),
    Effect.map((reply) => reply.body as { event: Served | null; anchor: Served | null; complete: boolean })
  )
