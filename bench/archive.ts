// Archive benchmark (issue 17): how fast the service ingests the confidential token's events from Stellar RPC into its
// database, and how fast it answers an account's history with a million events archived.
//
//   node_modules/.bin/node bench/archive.ts        (BENCH_DB=postgres BENCH_DATABASE_URL=... for a PostgreSQL server)
//
// This process is the driver: it holds the loopback RPC (its token emulation publishes the events) and the client; the
// service (bench/service.ts) runs in a child process on a fresh database. Ingestion: BENCH_ARCHIVE_EVENTS events (one
// transaction each, BENCH_ARCHIVE_PER_LEDGER per ledger) are published while the service idles, caught up; the figure
// is events over the time from their publication to the archive's status reaching their last ledger. History: a
// million events (two accounts each, over 10,000 accounts) are bulk-inserted with SQL below the ingested ledgers, then
// BENCH_ARCHIVE_READS sequential GET /archive/tokens/{c}/accounts/{a}/events?limit=100 of random accounts are timed.
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { readFile } from "node:fs/promises"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import * as Path from "node:path"
import { performance } from "node:perf_hooks"
import pg from "pg"
import { LoopbackRpc, tokenEvents } from "../test/support/LoopbackRpc.ts"
import { ascending, call, envNumber, expectOk, fixed, freshDatabase, percentile, serviceEnv, startChild, table } from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)
const settings = {
  serverUrl: dbKind === "postgres" ? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test" : undefined,
  events: envNumber("BENCH_ARCHIVE_EVENTS", 20_000),
  perLedger: envNumber("BENCH_ARCHIVE_PER_LEDGER", 200),
  archived: envNumber("BENCH_ARCHIVE_ROWS", 1_000_000),
  accounts: envNumber("BENCH_ARCHIVE_ACCOUNTS", 10_000),
  reads: envNumber("BENCH_ARCHIVE_READS", 2_000)
}

const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 9))
const bytes = (n: number) => new Uint8Array(randomBytes(n))

const main = async () => {
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
  rpc.deployConfidentialToken(CONTRACT)
  const db = await freshDatabase("archive", settings.serverUrl)
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  const first = rpc.advanceLedger()
  const child = await startChild("service", "./service.ts", serviceEnv(rpc, db, { sponsor, contract: CONTRACT, issuer: "http://payroll.bench" }, {
    EVENTS_START_LEDGER: String(first),
    ARCHIVE_PAGE_SIZE: "1000",
    ARCHIVE_PAGES_PER_ROUND: "1000",
    ARCHIVE_POLL_INTERVAL: "20 millis",
    ARCHIVE_RATE_LIMIT: "100000000"
  }))
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const status = async () => expectOk("status", await call(agent, child.url, "GET", "/archive/status"))
  const until = async (ledger: number) => {
    for (;;) {
      if (((await status()).ingestedThrough ?? 0) >= ledger) return
      await new Promise((r) => setTimeout(r, 5))
    }
  }
  try {
    await until(first)

    // ---- ingestion ----
    const people = Array.from({ length: 200 }, () => Keypair.random().publicKey())
    const transfer = () => ({
      r_e_point: bytes(64), v_tilde: bytes(32), sigma: bytes(32), b_tilde: bytes(32), v_tilde_aud_r: bytes(32),
      r_tilde_aud_r: bytes(32), v_tilde_aud_s: bytes(32), b_tilde_aud_s: bytes(32)
    })
    const prepared = Array.from({ length: settings.events }, (_, i) => tokenEvents.transfer(people[i % 200]!, people[(i * 7 + 3) % 200]!, transfer()))
    const started = performance.now()
    let last = first
    for (let i = 0; i < prepared.length; i++) {
      rpc.publishEvents(CONTRACT, [prepared[i]!])
      if ((i + 1) % settings.perLedger === 0 || i === prepared.length - 1) last = rpc.advanceLedger()
    }
    await until(last)
    const seconds = (performance.now() - started) / 1000
    const rate = settings.events / seconds

    // ---- history with a million archived events ----
    const client = new pg.Client(await connection(db))
    await client.connect()
    const loadStarted = performance.now()
    const accountTopics = Array.from({ length: settings.accounts }, () => Keypair.random().publicKey())
    await client.query(`CREATE TEMP TABLE bench_accounts (n int PRIMARY KEY, account text NOT NULL)`)
    await client.query(`INSERT INTO bench_accounts SELECT i - 1, a FROM unnest($1::text[]) WITH ORDINALITY AS t(a, i)`, [accountTopics])
    const per = Math.ceil(settings.archived / (first - 1))
    // ledgers 1 .. first-1, below the ingested ones; each event a transfer between two of the accounts
    await client.query(`
      INSERT INTO archive_events (id, contract_id, ledger_seq, ledger_close_time, tx_hash, tx_application_order, event_index,
        type, topics, value)
      SELECT lpad(((((i / $3) + 1)::bigint << 32) | (((i % $3) + 1)::bigint << 12))::text, 19, '0') || '-0000000000', $1,
        (i / $3) + 1, now() - interval '1 day', md5(i::text) || md5((i + 1)::text), (i % $3) + 1, 0, 'transfer',
        ARRAY['AAAADwAAAAh0cmFuc2Zlcg==', 'from' || (i % $4), 'to' || ((i * 7 + 3) % $4)], 'AAAAAQ=='
      FROM generate_series(0, $2 - 1) AS i`, [CONTRACT, settings.archived, per, settings.accounts])
    await client.query(`
      INSERT INTO archive_event_accounts (contract_id, account, ledger_seq, tx_application_order, event_index, event_id, type, checkpoint)
      SELECT e.contract_id, a.account, e.ledger_seq, e.tx_application_order, 0, e.id, 'transfer', side = 'from'
      FROM archive_events e
      CROSS JOIN LATERAL (VALUES ('from', substr(e.topics[2], 5)::int), ('to', substr(e.topics[3], 3)::int)) AS s(side, n)
      JOIN bench_accounts a ON a.n = s.n
      WHERE e.ledger_seq < $1
      ON CONFLICT DO NOTHING`, [first])
    await client.query(`INSERT INTO archive_ranges (contract_id, from_ledger, to_ledger) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING`, [CONTRACT, first - 1])
    // What autovacuum does within a minute of a load this size (both tables are past its insert threshold): hint bits
    // set and statistics gathered, so that the first reads of each page do not write it.
    await client.query(`VACUUM (ANALYZE) archive_events`)
    await client.query(`VACUUM (ANALYZE) archive_event_accounts`)
    const loadSeconds = (performance.now() - loadStarted) / 1000
    const [{ n: archived }] = (await client.query(`SELECT count(*) AS n FROM archive_events`)).rows
    await client.end()

    const timings: Array<number> = []
    const checkpoints: Array<number> = []
    for (let i = 0; i < settings.reads + 100; i++) {
      const account = accountTopics[Math.floor(Math.random() * accountTopics.length)]!
      const t0 = performance.now()
      const page = expectOk("history", await call(agent, child.url, "GET", `/archive/tokens/${CONTRACT}/accounts/${account}/events?limit=100`))
      const t1 = performance.now()
      expectOk("checkpoint", await call(agent, child.url, "GET", `/archive/tokens/${CONTRACT}/accounts/${account}/checkpoint`))
      const t2 = performance.now()
      if (i >= 100) {
        timings.push(t1 - t0)
        checkpoints.push(t2 - t1)
      }
      if (page.events.length === 0) throw new Error(`no history for ${account}`)
    }
    const history = ascending(timings)
    const checkpoint = ascending(checkpoints)
    console.log(`archive benchmark: ${platform()} ${arch()}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), database ${dbKind}\n`)
    console.log(table(["ingestion", "events", "seconds", "events/s"], [["loopback RPC → archive", String(settings.events), fixed(seconds, 2), fixed(rate)]]))
    console.log()
    console.log(`${archived} events archived (bulk load ${fixed(loadSeconds, 1)} s), ${settings.accounts} accounts, ${settings.reads} reads each\n`)
    console.log(table(["per-account read (HTTP)", "p50 ms", "p90 ms", "p99 ms", "max ms"], [
      ["events?limit=100", fixed(percentile(history, 50), 2), fixed(percentile(history, 90), 2), fixed(percentile(history, 99), 2), fixed(history[history.length - 1]!, 2)],
      ["checkpoint", fixed(percentile(checkpoint, 50), 2), fixed(percentile(checkpoint, 90), 2), fixed(percentile(checkpoint, 99), 2), fixed(checkpoint[checkpoint.length - 1]!, 2)]
    ]))
  } finally {
    agent.destroy()
    await child.stop()
    await rpc.close()
    await db.drop()
  }
}

/** The service's database: the server's, or the embedded cluster it started in DATA_DIR (port in postmaster.pid). */
const connection = async (db: { readonly dataDir: string; readonly url: string | undefined }): Promise<pg.ClientConfig> => {
  if (db.url !== undefined) return { connectionString: db.url }
  const pid = await readFile(Path.join(db.dataDir, "pg", "postmaster.pid"), "utf8")
  const password = (await readFile(Path.join(db.dataDir, "pg.password"), "utf8")).trim()
  return { host: "127.0.0.1", port: Number(pid.split("\n")[3]), user: "postgres", password, database: "postgres" }
}

await main()
