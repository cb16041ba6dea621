// POST /funding/faucet benchmark: how many grants the faucet lands per ledger, with no channel accounts (the faucet
// account is its own one channel) and with channel accounts, on the loopback Stellar RPC's timed ledgers.
//
//   node_modules/.bin/node bench/faucet.ts            (see bench/README.md for the settings and the figures)
//
// This process is the driver: it holds the loopback RPC and the clients; the service (bench/service.ts) runs in a
// child process with a fresh database, one per channel count.
import { Address, Keypair, StrKey, xdr } from "@stellar/stellar-sdk"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import type { BenchDatabase, Child } from "./support.ts"
import { ascending, call, envNumber, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, startChild, table } from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)

const settings = {
  db: dbKind,
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  channels: (process.env.BENCH_FAUCET_CHANNELS ?? "0,8").split(",").map((s) => Number(s.trim())),
  clients: envNumber("BENCH_FAUCET_CLIENTS", 16),
  seconds: envNumber("BENCH_FAUCET_SECONDS", 30),
  ledgerMs: envNumber("BENCH_FAUCET_LEDGER_MS", 5000)
}
if (settings.channels.some((c) => !Number.isInteger(c) || c < 0)) throw new Error("BENCH_FAUCET_CHANNELS: integers >= 0, comma-separated")

const USDC = StrKey.encodeContract(Buffer.alloc(32, 9))
const ISSUER = "http://payroll.bench"

/** USDC's `transfer(from, to, amount)`, requiring `from`'s authorization like the Stellar Asset Contract. */
const deployUsdc = (rpc: LoopbackRpc) =>
  rpc.setContractFunction(USDC, "transfer", (args, ctx) => {
    ctx.requireAuth(Address.fromScVal(args[0]!).toString())
    return xdr.ScVal.scvVoid()
  })

const startService = async (rpc: LoopbackRpc, db: BenchDatabase, channels: number): Promise<Child> => {
  const keys = { sponsor: Keypair.random(), faucet: Keypair.random(), channels: Array.from({ length: channels }, () => Keypair.random()) }
  for (const key of [keys.sponsor, keys.faucet, ...keys.channels]) rpc.setAccount({ id: key.publicKey() })
  return startChild("service", "./service.ts", serviceEnv(rpc, db, { sponsor: keys.sponsor, issuer: ISSUER }, {
    FAUCET_SECRET: keys.faucet.secret(),
    ...(channels === 0 ? {} : { CHANNEL_SECRETS: keys.channels.map((k) => k.secret()).join(",") }),
    USDC_CONTRACT: USDC
  }))
}

/** A SEP-10 session for a fresh wallet; it asks the faucet for other addresses, one grant per address. */
const signIn = (agent: Agent, child: Child): Promise<string> => sep10SignIn(agent, child.url, Keypair.random())

interface Grant {
  readonly hash: string
  readonly latencyMs: number
  readonly arrivedAt: number
}

interface Result {
  readonly channels: number
  readonly grants: Array<Grant>
  readonly busy: number
  readonly errors: number
  readonly firstError: string | undefined
  readonly perLedger: Array<number>
  readonly latency: Array<number>
  readonly afterClose: Array<number>
  readonly rpcCalls: number
}

/** Every client asks for a grant to a fresh address as soon as its previous one answered, for `seconds`. */
const run = async (channels: number): Promise<Result> => {
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: settings.ledgerMs })
  deployUsdc(rpc)
  const db = await freshDatabase(`faucet${channels}`, settings.db === "postgres" ? settings.serverUrl : undefined)
  let child: Child | undefined
  const agent = new Agent({ keepAlive: true, maxSockets: settings.clients })
  try {
    child = await startService(rpc, db, channels)
    const service = child
    const tokens = await Promise.all(Array.from({ length: settings.clients }, () => signIn(agent, service)))
    const grants: Array<Grant> = []
    let busy = 0
    let errors = 0
    let firstError: string | undefined
    rpc.resetCalls()
    const stopAt = performance.now() + settings.seconds * 1000
    await Promise.all(tokens.map(async (token) => {
      while (performance.now() < stopAt) {
        const started = performance.now()
        const address = Keypair.random().publicKey()
        const reply = await call(agent, service.url, "POST", "/funding/faucet", { token, json: { address } })
        if (reply.status === 200 && reply.body?.status === "SUCCESS") {
          grants.push({ hash: reply.body.hash, latencyMs: performance.now() - started, arrivedAt: Date.now() })
        } else if (reply.status === 429) {
          busy += 1
        } else {
          errors += 1
          firstError ??= `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`
        }
      }
    }))
    const ledgers = grants.map((g) => rpc.transaction(g.hash)?.ledger).filter((l): l is number => l !== undefined)
    const first = Math.min(...ledgers)
    const last = Math.max(...ledgers)
    const perLedger = Array.from({ length: ledgers.length === 0 ? 0 : last - first + 1 }, (_, i) => ledgers.filter((l) => l === first + i).length)
    const afterClose = grants.map((g) => g.arrivedAt - (rpc.closeTimeOf(rpc.transaction(g.hash)?.ledger ?? 0) ?? Number.NaN))
    return {
      channels,
      grants,
      busy,
      errors,
      firstError,
      perLedger,
      latency: ascending(grants.map((g) => g.latencyMs)),
      afterClose: ascending(afterClose),
      rpcCalls: rpc.calls.length / Math.max(1, grants.length)
    }
  } finally {
    agent.destroy()
    await child?.stop()
    await rpc.close()
    await db.drop()
  }
}

const cpu = cpus()
console.log(`POST /funding/faucet benchmark, ${new Date().toISOString()}`)
console.log(`node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"})`)
console.log(`database: ${settings.db === "embedded" ? "embedded PostgreSQL" : `PostgreSQL server (${new URL(settings.serverUrl).host})`}, a fresh one per run`)
console.log(
  `${settings.ledgerMs / 1000}-second ledgers; ${settings.clients} clients in a closed loop for ${settings.seconds} s per run, ` +
    "each grant to a fresh address"
)
console.log("")
const results: Array<Result> = []
for (const channels of settings.channels) {
  const result = await run(channels)
  results.push(result)
  process.stderr.write(`  ${channels} channels: ${result.grants.length} grants\n`)
}
const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / values.length
console.log(table(
  [
    "channels",
    "grants (429 busy / errors)",
    "ledgers",
    "grants per ledger mean / max",
    "latency p50 / p99 ms",
    "answer after close p50 / p99 ms",
    "rpc calls/grant"
  ],
  results.map((r) => [
    r.channels === 0 ? "0 (faucet account)" : String(r.channels),
    `${r.grants.length} (${r.busy} / ${r.errors})`,
    String(r.perLedger.length),
    `${fixed(mean(r.perLedger), 2)} / ${fixed(Math.max(0, ...r.perLedger))}`,
    `${fixed(percentile(r.latency, 50))} / ${fixed(percentile(r.latency, 99))}`,
    `${fixed(percentile(r.afterClose, 50))} / ${fixed(percentile(r.afterClose, 99))}`,
    fixed(r.rpcCalls, 2)
  ])
))
for (const r of results) if (r.errors > 0) console.log(`errors with ${r.channels} channels: ${r.errors}, the first: ${r.firstError}`)
