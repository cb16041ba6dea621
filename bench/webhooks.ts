// Settlement → webhook delivery benchmark: how long after a payout settles its `payout.settled` webhook reaches the
// employer's endpoint, through the real service (outbox row in the settlement's transaction, NOTIFY on commit, the
// delivery worker's claim, a signed POST) on the loopback Stellar RPC.
//
//   node_modules/.bin/node bench/webhooks.ts       (BENCH_PAYOUTS, default 100; BENCH_DB=postgres as bench/transfer.ts)
//
// This process is the driver: it holds the loopback RPC, the webhook receiver (on 127.0.0.2) and the client; the
// service (bench/service.ts) runs in a child process with WEBHOOK_ALLOW_PRIVATE=true. Payouts are paid one after
// another (POST /transfer answers once the transfer settled); each delay is measured from the event's `timestamp`
// (taken inside the settlement's transaction, just before it commits) to the moment the receiver has the request.
import { Account, Address, Keypair, Networks, Operation, StrKey, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Agent, createServer } from "node:http"
import { cpus } from "node:os"
import { sourceAuthorization, transferData } from "../test/support/ConfidentialData.ts"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { addWallet, ascending, call, createOrg, deployToken, envNumber, expectOk, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, startChild, table } from "./support.ts"

const payouts = envNumber("BENCH_PAYOUTS", 100)
const CONFIDENTIAL_TOKEN = StrKey.encodeContract(Buffer.alloc(32, 9))
const DATA = xdr.ScVal.scvBytes(transferData())

/** `confidential_transfer(from = wallet, to, data)` for the wallet's next sequence number, as a client signs it. */
const payoutXdr = (rpc: LoopbackRpc, wallet: Keypair, to: string) => {
  const args = [Address.fromString(wallet.publicKey()).toScVal(), Address.fromString(to).toScVal(), DATA]
  const sequence = rpc.account(wallet.publicKey())!.sequence
  const tx = new TransactionBuilder(new Account(wallet.publicKey(), sequence.toString()), { fee: "1001", networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.invokeContractFunction({
      contract: CONFIDENTIAL_TOKEN,
      function: "confidential_transfer",
      args,
      auth: [sourceAuthorization(CONFIDENTIAL_TOKEN, "confidential_transfer", args)]
    }))
    .setTimeout(60)
    .build()
  tx.sign(wallet)
  return tx.toXDR()
}
const serverUrl = process.env.BENCH_DB === "postgres" ? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test" : undefined

/** Arrivals at the receiver by payout id: when the request was complete, and the event's own timestamp. */
const arrivals = new Map<string, { readonly at: number; readonly timestamp: number }>()
const receiver = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const at = Date.now()
    const body = JSON.parse(Buffer.concat(chunks).toString())
    if (body.type === "payout.settled") arrivals.set(body.data.payoutId, { at, timestamp: Date.parse(body.timestamp) })
    response.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.2", resolve))
const receiverPort = (receiver.address() as { port: number }).port

const ledgerMs = envNumber("BENCH_LEDGER_MS", 0)
const rpc = await LoopbackRpc.start({ ledgerIntervalMs: ledgerMs })
if (ledgerMs === 0) {
  // As bench/transfer.ts: a ledger closes the moment sendTransaction accepts a transaction.
  const send = rpc.methods.get("sendTransaction")!
  rpc.methods.set("sendTransaction", (params) => {
    const answer = send(params) as { status?: string }
    if (answer.status === "PENDING") rpc.advanceLedger()
    return answer
  })
}
const db = await freshDatabase("webhooks", serverUrl)
const sponsor = Keypair.random()
rpc.setAccount({ id: sponsor.publicKey() })
deployToken(rpc, CONFIDENTIAL_TOKEN)
const service = await startChild(
  "service",
  "./service.ts",
  serviceEnv(rpc, db, { sponsor, contract: CONFIDENTIAL_TOKEN, issuer: "http://payroll.bench" }, {
    SPONSOR_QUOTA: "1000000",
    WEBHOOK_ALLOW_PRIVATE: "true"
  })
)

try {
  const agent = new Agent({ keepAlive: true })
  const wallet = Keypair.random()
  addWallet(rpc, CONFIDENTIAL_TOKEN, wallet)
  const token = await sep10SignIn(agent, service.url, wallet)
  await createOrg(agent, service.url, token)
  const endpoint = await call(agent, service.url, "POST", "/webhooks", {
    token,
    json: { url: `http://127.0.0.2:${receiverPort}/hook`, events: ["payout.settled"] }
  })
  if (endpoint.status !== 201) throw new Error(`POST /webhooks: ${endpoint.status} ${JSON.stringify(endpoint.body)}`)

  const recipients = Array.from({ length: payouts }, () => Keypair.random().publicKey())
  const contractorIds: Array<string> = []
  for (const [i, address] of recipients.entries()) {
    rpc.registerConfidential(CONFIDENTIAL_TOKEN, address)
    const created = expectOk("POST /contractors", await call(agent, service.url, "POST", "/contractors", { token, json: { name: `C${i}`, address } }))
    contractorIds.push(created.id)
  }
  const batch = expectOk("POST /batches", await call(agent, service.url, "POST", "/batches", { token, json: { name: "Bench" } }))
  const added = expectOk("POST /batches/{id}/payouts", await call(agent, service.url, "POST", `/batches/${batch.id}/payouts`, { token, json: { contractorIds } }))
  expectOk("POST /batches/{id}/ready", await call(agent, service.url, "POST", `/batches/${batch.id}/ready`, { token }))
  const toOf = new Map(contractorIds.map((id, i) => [id, recipients[i]!]))

  const started = Date.now()
  for (const payout of added as Array<{ id: string; contractorId: string }>) {
    const signedXDR = payoutXdr(rpc, wallet, toOf.get(payout.contractorId)!)
    expectOk("POST /transfer", await call(agent, service.url, "POST", "/transfer", { token, json: { signedXDR, payoutId: payout.id } }))
  }
  const paidIn = Date.now() - started
  const until = Date.now() + 30_000
  while (arrivals.size < payouts && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  const delays = ascending([...arrivals.values()].map((a) => a.at - a.timestamp))

  console.log(`settlement → payout.settled delivery, ${payouts} payouts paid one after another in ${(paidIn / 1000).toFixed(1)} s ` +
    `(${cpus().length} cores, ${serverUrl === undefined ? "embedded PostgreSQL" : "PostgreSQL server"})`)
  console.log(table(["delivered", "p50 ms", "p95 ms", "p99 ms", "max ms"], [[
    `${arrivals.size}/${payouts}`,
    fixed(percentile(delays, 50)),
    fixed(percentile(delays, 95)),
    fixed(percentile(delays, 99)),
    fixed(delays[delays.length - 1] ?? NaN)
  ]]))
  agent.destroy()
} finally {
  await service.stop()
  await rpc.close()
  await db.drop()
  receiver.close()
}
