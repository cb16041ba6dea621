// CPU per answer of the service on a few read routes: the service's process CPU time over its answers, under a closed
// loop of BENCH_CLIENTS clients, each route measured twice (the first run warms it) for BENCH_SECONDS. It is how the
// per-request work of issue 18 was followed change by change; bench/reads.ts gives the ratios against the baseline.
//
//   node_modules/.bin/node bench/answer-cost.ts    (BENCH_PATHS=/health/live,/me,/contractors?limit=50 by default)
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Agent } from "node:http"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { call, createOrg, envNumber, expectOk, fixed, freshDatabase, sep10SignIn, serviceEnv, startChild, table } from "./support.ts"

const clients = envNumber("BENCH_CLIENTS", 8)
const seconds = envNumber("BENCH_SECONDS", 4)
const paths = (process.env.BENCH_PATHS ?? "/health/live,/me,/contractors?limit=50").split(",").map((p) => p.trim())

const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
const db = await freshDatabase("answer_cost", process.env.BENCH_DB === "postgres" ? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test" : undefined)
const sponsor = Keypair.random()
rpc.setAccount({ id: sponsor.publicKey() })
const service = await startChild(
  "service",
  "./service.ts",
  serviceEnv(rpc, db, { sponsor, contract: StrKey.encodeContract(Buffer.alloc(32, 7)), issuer: "http://payroll.bench" })
)
try {
  // Each client an employer of its own organization with 60 contractors (a page of 50 and a next one).
  const setup = new Agent({ keepAlive: true })
  const tokens: Array<string> = []
  for (let c = 0; c < clients; c++) {
    const wallet = Keypair.random()
    rpc.setAccount({ id: wallet.publicKey() })
    const token = await sep10SignIn(setup, service.url, wallet)
    await createOrg(setup, service.url, token)
    const rows = Array.from({ length: 60 }, (_, k) => ({ name: `Contractor ${k}`, email: `c${k}.${c}@example.com`, amount: "10.5" }))
    expectOk("bulk", await call(setup, service.url, "POST", "/contractors/bulk", { token, json: { rows } }))
    tokens.push(token)
  }
  setup.destroy()

  const measure = async (path: string) => {
    const agent = new Agent({ keepAlive: true, maxSockets: clients })
    const cpu0 = await service.cpuMicros()
    const started = performance.now()
    let answers = 0
    await Promise.all(tokens.map(async (token) => {
      while (performance.now() - started < seconds * 1000) {
        const reply = await call(agent, service.url, "GET", path, { token })
        if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
        answers += 1
      }
    }))
    const elapsed = performance.now() - started
    const cpu = (await service.cpuMicros()) - cpu0
    agent.destroy()
    return [path, fixed((answers / elapsed) * 1000), fixed(cpu / answers), fixed((cpu / 1000 / elapsed) * 100)]
  }

  const rows: Array<Array<string>> = []
  for (const path of paths) {
    await measure(path)
    rows.push(await measure(path))
  }
  console.log(`CPU per answer, ${clients} clients, ${seconds} s per route after a run as long to warm it, ${db.url === undefined ? "embedded" : "PostgreSQL server"}`)
  console.log(table(["route", "answers/s", "CPU µs per answer", "service CPU %"], rows))
} finally {
  await service.stop()
  await rpc.close()
  await db.drop()
}
