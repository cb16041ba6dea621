// GET /auth/sep10/challenge benchmark (issue 23 §4): how many SEP-10 challenges a second the service signs, at what CPU
// cost, and what each one writes to the database, beside a framework-free baseline written the straightforward way
// (bench/challenges-baseline.ts: node:http and the SDK's own signing, stateless, no database, no limit); then one
// client flooding past its CHALLENGE_RATE_LIMIT (429s).
//
//   node_modules/.bin/node bench/challenges.ts        (see bench/README.md, "GET /auth/sep10/challenge")
//
// A closed loop of BENCH_CONCURRENCY connections, each asking for a challenge for one of 64 accounts as soon as its
// last answer arrived, each request from one of 1,024 client addresses (X-Forwarded-For, the service trusting the
// loopback proxy), as many users behind a proxy would. "rows" is the growth of every table's row count over the run,
// "WAL" the write-ahead log the database wrote (pg_current_wal_lsn), both per answer. BENCH_COMPARE_SERVICE=<another
// checkout>/bench/service.ts measures that checkout's service too (an earlier commit, say). Each system is measured
// BENCH_ROUNDS times, the systems taking turns, and the round with the median rate is shown: on a shared machine the
// load of the moment moves the figures more than anything measured here.
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import pg from "pg"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import {
  ascending,
  call,
  childEnv,
  type Child,
  databaseConnection,
  envNumber,
  fixed,
  freshDatabase,
  percentile,
  serviceEnv,
  startChild,
  table
} from "./support.ts"

const settings = {
  db: process.env.BENCH_DB ?? "embedded",
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  concurrency: envNumber("BENCH_CONCURRENCY", 16),
  seconds: envNumber("BENCH_SECONDS", 5),
  warmup: envNumber("BENCH_WARMUP_SECONDS", 2),
  rounds: envNumber("BENCH_ROUNDS", 3),
  compare: process.env.BENCH_COMPARE_SERVICE
}
if (settings.db !== "embedded" && settings.db !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${settings.db}`)

const ACCOUNTS = Array.from({ length: 64 }, () => Keypair.random().publicKey())
const CLIENTS = Array.from({ length: 1024 }, (_, i) => `198.51.${100 + (i >> 8)}.${i & 255}`)

interface Load {
  readonly answers: number
  readonly limited: number
  readonly rps: number
  readonly cpuPerAnswer: number
  readonly latency: Array<number>
}

/**
 * A closed loop on GET /auth/sep10/challenge for `seconds`: 200s and 429s are counted apart, anything else throws.
 * `oneClient`: every request from the same address, as one client flooding the service.
 */
const load = async (child: Child, seconds: number, oneClient = false): Promise<Load> => {
  const agent = new Agent({ keepAlive: true, maxSockets: settings.concurrency })
  const cpu0 = await child.cpuMicros()
  const started = performance.now()
  const latency: Array<number> = []
  let answers = 0
  let limited = 0
  await Promise.all(Array.from({ length: settings.concurrency }, async (_, client) => {
    for (let i = client; performance.now() - started < seconds * 1000; i++) {
      const sent = performance.now()
      const client = oneClient ? CLIENTS[0]! : CLIENTS[(i * 7919) % CLIENTS.length]!
      const reply = await call(agent, child.url, "GET", `/auth/sep10/challenge?account=${ACCOUNTS[i % ACCOUNTS.length]}`, {
        headers: { "x-forwarded-for": client }
      })
      latency.push(performance.now() - sent)
      if (reply.status === 200 && typeof reply.body?.transaction === "string") answers += 1
      else if (reply.status === 429) limited += 1
      else throw new Error(`${child.name}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`)
    }
  }))
  const elapsed = performance.now() - started
  const cpu = (await child.cpuMicros()) - cpu0
  agent.destroy()
  const all = answers + limited
  return { answers, limited, rps: (all / elapsed) * 1000, cpuPerAnswer: cpu / all, latency: ascending(latency) }
}

/** Rows in every table of the service's schema, and the write-ahead log's position. */
const databaseState = async (client: pg.Client) => {
  const tables = await client.query<{ name: string }>(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()"
  )
  let rows = 0
  for (const { name } of tables.rows) rows += Number((await client.query(`SELECT count(*) AS n FROM ${name}`)).rows[0].n)
  const wal = (await client.query("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0].lsn as string
  return { rows, wal }
}

const walBytes = async (client: pg.Client, from: string, to: string) =>
  Number((await client.query("SELECT pg_wal_lsn_diff($1, $2) AS bytes", [to, from])).rows[0].bytes)

interface Measured {
  readonly run: Load
  readonly writes?: { readonly rows: number; readonly wal: number }
}

const row = (label: string, { run, writes }: Measured) => [
  label,
  fixed(run.rps),
  fixed(run.cpuPerAnswer),
  fixed(percentile(run.latency, 50), 2),
  fixed(percentile(run.latency, 99), 2),
  `${run.answers} / ${run.limited}`,
  writes === undefined ? "-" : fixed(writes.rows / (run.answers + run.limited), 2),
  writes === undefined ? "-" : fixed(writes.wal / (run.answers + run.limited), 0)
]

const measureFloor = async (): Promise<Measured> => {
  const floor = await startChild("baseline", "./challenges-baseline.ts", childEnv({}))
  try {
    await load(floor, settings.warmup)
    return { run: await load(floor, settings.seconds) }
  } finally {
    await floor.stop()
  }
}

/** One service (this checkout's or `script`'s) on a fresh database, under `limit` challenges a minute. */
const measureService = (label: string, script: string, limit: string, oneClient = false) => async (): Promise<Measured> => {
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 1000 })
  const db = await freshDatabase("challenges", settings.db === "postgres" ? settings.serverUrl : undefined)
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  const env = serviceEnv(rpc, db, { sponsor, contract: StrKey.encodeContract(Buffer.alloc(32, 7)), issuer: "http://payroll.bench" }, {
    CHALLENGE_RATE_LIMIT: limit,
    TRUSTED_PROXIES: "127.0.0.1"
  })
  const service = await startChild(label, script, env)
  const client = new pg.Client(await databaseConnection(db))
  try {
    await client.connect()
    await load(service, settings.warmup, oneClient)
    const before = await databaseState(client)
    const run = await load(service, settings.seconds, oneClient)
    const after = await databaseState(client)
    return { run, writes: { rows: after.rows - before.rows, wal: await walBytes(client, before.wal, after.wal) } }
  } finally {
    await client.end()
    await service.stop()
    await rpc.close()
    await db.drop()
  }
}

const systems: Array<readonly [string, () => Promise<Measured>]> = [
  ["baseline: node:http + stellar-sdk, stateless, no limit", measureFloor],
  ["the service, under its limit", measureService("service", "./service.ts", "1000000000")],
  ["the service, one client past CHALLENGE_RATE_LIMIT=300", measureService("service", "./service.ts", "300", true)],
  ...(settings.compare === undefined ? [] : [[`compared: ${settings.compare}`, measureService("compared", settings.compare, "1000000000")] as const])
]

console.log(`GET /auth/sep10/challenge, ${new Date().toISOString()}, node ${process.version}, ${platform()} ${arch()}, ${cpus().length} CPUs`)
console.log(`${settings.concurrency} connections, ${settings.warmup} s warm-up + ${settings.seconds} s each, ${settings.rounds} rounds, database ${settings.db}`)
console.log("")

const results = systems.map((): Array<Measured> => [])
for (let round = 0; round < settings.rounds; round++) {
  for (const [i, [, measure]] of systems.entries()) results[i]!.push(await measure())
}
const median = (runs: ReadonlyArray<Measured>) => [...runs].sort((a, b) => a.run.rps - b.run.rps)[Math.floor(runs.length / 2)]!

console.log(table(
  ["system", "answers/s", "CPU µs each", "p50 ms", "p99 ms", "200 / 429", "rows each", "WAL bytes each"],
  systems.map(([label], i) => row(label, median(results[i]!)))
))
console.log(`\nanswers/s of every round: ${systems.map(([label], i) => `${label}: ${results[i]!.map((m) => fixed(m.run.rps)).join(", ")}`).join("; ")}`)
