// The floor under the read routes (issue 18): what the fixed stack costs per answer and per statement before any of
// the service's own work, measured as CPU time, beside the framework-free way bench/reads-baseline.ts does the same.
//
//   node_modules/.bin/node bench/floor.ts        (see bench/README.md, "The stack's floor")
//
// HTTP: a closed loop of BENCH_CONCURRENCY clients against, in turn, node:http answering a small JSON object by hand,
// an @effect/platform HttpApi of one endpoint doing the same through its schema (bench/floor-server.ts), and the
// service's own GET /health/live (the same object, through every middleware of src/Server/App.ts); CPU per answer is the
// server process's CPU time over the answers. SQL: one parameterized SELECT of one row, BENCH_SQL_QUERIES times over
// 4 connections, through a pg Pool and through @effect/sql-pg configured as src/Sql/PgLive.ts configures it (tracing
// off, as the service runs without an exporter), in this process; CPU per statement is this process's CPU time.
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Effect, Layer, Redacted, String as Str } from "effect"
import { Agent } from "node:http"
import pg from "pg"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { call, childEnv, envNumber, fixed, freshDatabase, serviceEnv, startChild, table, type Child } from "./support.ts"

const settings = {
  concurrency: envNumber("BENCH_CONCURRENCY", 16),
  seconds: envNumber("BENCH_SECONDS", 5),
  warmup: envNumber("BENCH_WARMUP_SECONDS", 2),
  queries: envNumber("BENCH_SQL_QUERIES", 8000),
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
}

/** Answers per second and server CPU per answer of a closed loop on `path`. */
const load = async (child: Child, path: string, seconds: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: settings.concurrency })
  const cpu0 = await child.cpuMicros()
  const started = performance.now()
  let answers = 0
  let failures = 0
  await Promise.all(Array.from({ length: settings.concurrency }, async () => {
    while (performance.now() - started < seconds * 1000) {
      const reply = await call(agent, child.url, "GET", path)
      if (reply.status === 200 && reply.body?.status === "ok") answers += 1
      else failures += 1
    }
  }))
  const elapsed = performance.now() - started
  const cpu = (await child.cpuMicros()) - cpu0
  agent.destroy()
  if (failures > 0) throw new Error(`${child.name} ${path}: ${failures} answers were not 200 {status: "ok"}`)
  return { rps: (answers / elapsed) * 1000, cpuPerAnswer: cpu / answers }
}

const measureHttp = async (child: Child, path: string) => {
  await load(child, path, settings.warmup)
  return load(child, path, settings.seconds)
}

const rows: Array<Array<string>> = []

console.log(`the stack's floor, ${new Date().toISOString()}, node ${process.version}`)
console.log(`HTTP: ${settings.concurrency} clients, ${settings.warmup} s warm-up + ${settings.seconds} s each; SQL: ${settings.queries} statements over 4 connections`)
console.log("")

for (const [label, server] of [["node:http, by hand", "node"], ["HttpApi, one endpoint, no middleware", "httpapi"]] as const) {
  const child = await startChild(label, "./floor-server.ts", childEnv({ FLOOR_SERVER: server }))
  try {
    const run = await measureHttp(child, "/health/live")
    rows.push([label, "GET /health/live", fixed(run.rps), fixed(run.cpuPerAnswer)])
  } finally {
    await child.stop()
  }
}

{
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
  const db = await freshDatabase("floor_service", settings.serverUrl)
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  const service = await startChild(
    "service",
    "./service.ts",
    serviceEnv(rpc, db, { sponsor, contract: StrKey.encodeContract(Buffer.alloc(32, 7)), issuer: "http://payroll.bench" })
  )
  try {
    const run = await measureHttp(service, "/health/live")
    rows.push(["the service (src/Server/App.ts)", "GET /health/live", fixed(run.rps), fixed(run.cpuPerAnswer)])
  } finally {
    await service.stop()
    await rpc.close()
    await db.drop()
  }
}

const db = await freshDatabase("floor_sql", settings.serverUrl)
try {
  const statement = "SELECT $1::int AS some_value, now() AS created_at"
  const perConnection = settings.queries / 4
  const pool = new pg.Pool({ connectionString: db.url, max: 4 })
  const rawRound = () =>
    Promise.all(Array.from({ length: 4 }, async () => {
      for (let i = 0; i < perConnection; i++) await pool.query(statement, [i])
    }))
  await rawRound()
  let cpu0 = process.cpuUsage()
  let started = performance.now()
  await rawRound()
  let cpu = process.cpuUsage(cpu0)
  rows.push(["pg Pool", "one SELECT", fixed((settings.queries / (performance.now() - started)) * 1000), fixed((cpu.user + cpu.system) / settings.queries)])
  await pool.end()

  const effectRound = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* Effect.forEach(
      Array.from({ length: 4 }),
      () => Effect.forEach(Array.from({ length: perConnection }), (_, i) => sql.unsafe(statement, [i]), { discard: true }),
      { concurrency: 4, discard: true }
    )
  })
  const client = PgClient.layer({
    url: Redacted.make(db.url!),
    maxConnections: 4,
    transformQueryNames: Str.camelToSnake,
    transformResultNames: Str.snakeToCamel
  })
  await Effect.runPromise(Effect.gen(function*() {
    yield* effectRound
    cpu0 = process.cpuUsage()
    started = performance.now()
    yield* effectRound
    cpu = process.cpuUsage(cpu0)
  }).pipe(Effect.provide(Layer.merge(client, Layer.setTracerEnabled(false)))))
  rows.push(["@effect/sql-pg (as src/Sql/PgLive.ts)", "one SELECT", fixed((settings.queries / (performance.now() - started)) * 1000), fixed((cpu.user + cpu.system) / settings.queries)])
} finally {
  await db.drop()
}

console.log(table(["system", "work", "per second", "CPU µs each"], rows))
