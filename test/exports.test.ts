import { expect, layer } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { Effect } from "effect"
import v8 from "node:v8"
import vm from "node:vm"
import { psql } from "./support/Psql.ts"
import { call } from "./support/Client.ts"
import { batchOf, must, orgWithEveryRole, readyContractor } from "./support/Members.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer } from "./support/Transfer.ts"

const FORMULA = /^[=+\-@\t\r]/

v8.setFlagsFromString("--expose-gc")
/** A full collection, so that `heapUsed` counts what is retained, not garbage not yet collected. */
const gc = vm.runInNewContext("gc") as () => void

/** Names a spreadsheet would run as formulas, and one that needs RFC 4180 quoting. */
const HOSTILE = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "Comma, \"Quote\" and\nnewline"]

/** A raw download: status, headers and the whole text (parsed by csv-parse, not by anything of ours). */
const download = (app: TestAppShape, token: string, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } })
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

const rows = (text: string) => parse(text, { columns: true, skip_empty_lines: false }) as Array<Record<string, string>>


layer(TestAppLive({}, { ledgerIntervalMs: 20 }), { timeout: 120_000 })("exports and statistics", (it) => {
  it.effect("payouts, contractors and the audit trail as CSV: parsed by csv-parse, formula-looking cells escaped, whole", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Export Co")
      const hostile = []
      for (const name of HOSTILE) hostile.push(yield* readyContractor(app, m.owner.token, name))
      const batch = yield* must(app, "POST", "/batches", m.owner.token, { name: "=1+1 November" })
      const payouts = yield* must(app, "POST", `/batches/${batch.id}/payouts`, m.owner.token, { contractorIds: hostile.map((c) => c.id) })
      yield* must(app, "POST", `/batches/${batch.id}/ready`, m.owner.token)
      const first = (payouts as Array<{ id: string; contractorId: string }>)[0]!
      const to = hostile.find((c) => c.id === first.contractorId)!.wallet.publicKey()
      yield* must(app, "POST", "/transfer", m.owner.token, { signedXDR: innerTransfer(app, m.owner.wallet, { to }), payoutId: first.id })

      const file = yield* download(app, m.viewer.token, `/exports/payouts.csv?batchId=${batch.id}`)
      expect(file.status).toBe(200)
      expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8")
      expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="payouts-\d{4}-\d{2}-\d{2}\.csv"$/)
      const parsed = rows(file.text)
      expect(parsed).toHaveLength(HOSTILE.length)
      expect(Object.keys(parsed[0]!)).toEqual([
        "payoutId", "batchId", "batchName", "contractorId", "contractorName", "contractorAddress", "status", "hash", "error",
        "createdAt", "updatedAt", "settledAt"
      ])
      for (const row of parsed) {
        for (const cell of Object.values(row)) expect(cell).not.toMatch(FORMULA)
        expect(row.batchName).toBe("'=1+1 November")
      }
      const names = parsed.map((r) => r.contractorName).sort()
      expect(names).toEqual(HOSTILE.map((n) => (FORMULA.test(n) ? `'${n}` : n)).sort())
      const settled = parsed.find((r) => r.payoutId === first.id)!
      expect(settled.status).toBe("settled")
      expect(settled.settledAt).toMatch(/^\d{4}-\d{2}-\d{2}T/)
      expect(parsed.filter((r) => r.status === "ready")).toHaveLength(HOSTILE.length - 1)

      const directory = rows((yield* download(app, m.viewer.token, "/exports/contractors.csv")).text)
      expect(directory.map((r) => r.name).sort()).toEqual(names)

      const audit = yield* download(app, m.viewer.token, "/exports/audit.csv")
      const trail = rows(audit.text)
      const listed = (yield* must(app, "GET", "/audit?limit=100", m.viewer.token)).items as Array<{ id: string }>
      expect(trail.map((r) => r.id).sort()).toEqual(listed.map((r) => r.id).sort())
      expect(trail.some((r) => r.actorType === "system" && r.action === "payout.settled")).toBe(true)

      const stats = yield* must(app, "GET", "/statistics", m.viewer.token)
      expect(stats.payouts).toMatchObject({ settled: 1, ready: HOSTILE.length - 1, canceled: 0 })
      expect(stats.batches).toMatchObject({ started: 1 })
      expect(stats.settleSeconds.count).toBe(1)
      expect(stats.settleSeconds.p50).toBeGreaterThanOrEqual(0)
      expect((yield* call(app, "GET", "/statistics?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z", { token: m.viewer.token })).status)
        .toBe(400)
    }))

  it.effect("10,000 payouts stream in flat memory, every row once", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const m = yield* orgWithEveryRole(app, "Big Export Co")
      const { batchId } = yield* batchOf(app, m.owner.token, 1, { ready: false })
      const [row] = yield* psql<{ org_id: string }>(app, "SELECT org_id FROM batches WHERE id = $1", [batchId])
      const orgId = row!.org_id
      const n = 10_000
      yield* psql(
        app,
        `INSERT INTO contractors (id, org_id, name, address, status)
         SELECT gen_random_uuid(), $1, 'Bulk ' || i, NULL, 'ready' FROM generate_series(1, $2) i`,
        [orgId, n - 1]
      )
      yield* psql(
        app,
        `INSERT INTO payouts (id, batch_id, org_id, contractor_id, status)
         SELECT gen_random_uuid(), $1, $2, c.id, 'draft' FROM contractors c
         WHERE c.org_id = $2 AND c.name LIKE 'Bulk %'`,
        [batchId, orgId]
      )
      gc()
      const before = process.memoryUsage()
      let peakHeap = before.heapUsed
      let peakRss = before.rss
      // Retained memory while the file streams: collected and measured every 20 ms and at every chunk received.
      const sample = () => {
        gc()
        const now = process.memoryUsage()
        peakHeap = Math.max(peakHeap, now.heapUsed)
        peakRss = Math.max(peakRss, now.rss)
      }
      const sampler = setInterval(sample, 20)
      const counted = yield* Effect.promise(async () => {
        const response = await fetch(`${app.url}/exports/payouts.csv?batchId=${batchId}`, {
          headers: { authorization: `Bearer ${m.viewer.token}` }
        })
        let lines = 0
        let bytes = 0
        let chunks = 0
        const ids = new Set<string>()
        let tail = ""
        for await (const chunk of response.body!) {
          chunks += 1
          sample()
          const text = tail + Buffer.from(chunk).toString("utf8")
          bytes += chunk.length
          const parts = text.split("\r\n")
          tail = parts.pop() ?? ""
          for (const line of parts) {
            lines += 1
            if (lines > 1) ids.add(line.slice(0, 36))
          }
        }
        return { lines, bytes, chunks, ids: ids.size }
      }).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
      expect(counted.lines).toBe(n + 1)
      expect(counted.ids).toBe(n)
      expect(counted.chunks).toBeGreaterThan(1)
      const heapMb = (peakHeap - before.heapUsed) / 2 ** 20
      const rssMb = (peakRss - before.rss) / 2 ** 20
      console.log(
        `[export figures] ${n} payouts, ${(counted.bytes / 2 ** 20).toFixed(1)} MiB of CSV in ${counted.chunks} chunks: ` +
          `peak retained heap +${heapMb.toFixed(1)} MiB, peak RSS +${rssMb.toFixed(1)} MiB over the process before the download`
      )
      // Flat: pages of 1,000 rows go out as they are read, so the heap grows by a few pages at most, not by the file
      // and its 10,000 decoded rows (which alone would be tens of MiB as JavaScript objects).
      expect(heapMb).toBeLessThan(16)
    }))
})
