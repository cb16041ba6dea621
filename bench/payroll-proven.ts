// A payroll of 20 payouts from one account, proven for real (issue 30 §4): how many ledgers it takes, whether proving
// ever holds it back, and how many proofs a failure makes us re-make. A benchmark, not a test: it prints figures.
//
//   node_modules/.bin/node bench/payroll-proven.ts     (BENCH_PAYOUTS=20, BENCH_LEDGER_MS=5000, BENCH_THREADS=1)
//
// The employer's wallet (the confidential client) proves each transfer on the previous one's pending opening while
// the transfers already proven are sent, one per ledger (a node queues one transaction per source account), straight
// to the loopback RPC, whose token verifies every proof with bb.js. Three runs:
//   clean    — nothing fails;
//   dropped  — one transfer is accepted and then never lands (a node drops it): the same signed data is sent again;
//   moved    — the account's spendable balance moves under the chain of pending proofs (a deposit and a merge land
//              after payout 10): every proof built on the old balance is stale and is proven again.
import { Keypair, rpc } from "@stellar/stellar-sdk"
import { Effect, Either } from "effect"
import { prepareCall, type TokenCall } from "../client/src/confidential/chain/Calls.ts"
import { ChainReader } from "../client/src/confidential/chain/ChainReader.ts"
import { openWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { keysFromRawRoot } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { STANDALONE_PASSPHRASE } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver } from "../client/src/confidential/proving/Prover.ts"
import { MemoryStore } from "../client/src/confidential/state/Store.ts"
import { crs, deploymentOf, proofVerifier, provingSetup } from "../test/support/ConfidentialProving.ts"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { decodeArchiveEvent } from "../client/src/confidential/state/ArchiveEvents.ts"

const PAYOUTS = Number(process.env["BENCH_PAYOUTS"] ?? "20")
const LEDGER_MS = Number(process.env["BENCH_LEDGER_MS"] ?? "5000")
const THREADS = Number(process.env["BENCH_THREADS"] ?? "1")
const TOKEN = "CBQHNAXSI55GX2GN6D67GK7BHVPSLJUGZQEU7WJ5LKR5PNUCGLIMAO4K"

type Scenario = "clean" | "dropped" | "moved"

const run = (scenario: Scenario) =>
  Effect.gen(function*() {
    const verifier = yield* proofVerifier
    const ledger = yield* Effect.acquireRelease(
      Effect.promise(() => LoopbackRpc.start({ ledgerIntervalMs: LEDGER_MS, networkPassphrase: STANDALONE_PASSPHRASE })),
      (l) => Effect.promise(() => l.close())
    )
    const token = ledger.deployConfidentialToken(TOKEN, { verifier })
    const server = new rpc.Server(ledger.url, { allowHttp: true })
    const deployment = deploymentOf(token, ledger.networkPassphrase)
    const reader = new ChainReader(server, deployment)
    const base = yield* provingSetup
    const setup = THREADS === 1 ? base : { ...base, prover: yield* makeProver({ crs: yield* crs, threads: THREADS }) }

    const send = (key: Keypair, call: TokenCall) =>
      Effect.promise(async () => {
        const sequence = (ledger.account(key.publicKey())?.sequence ?? 0n).toString()
        const tx = await prepareCall(server, deployment, { account: key.publicKey(), sequence }, call)
        tx.sign(key)
        const sent = await server.sendTransaction(tx)
        // Three ledgers without it: it was dropped (the loopback drops a scripted one at the next close), not late.
        const final = await server.pollTransaction(sent.hash, { attempts: Math.ceil((3 * LEDGER_MS) / 100), sleepStrategy: () => 100 })
        return { status: final.status, ledger: final.status === "NOT_FOUND" ? undefined : final.ledger }
      })
    // Recipients: four contractors, registered directly (their proofs are not what is measured).
    const wallet = (key: Keypair) =>
      openWallet({ keys: keysFromRawRoot(key.rawSecretKey(), { account: key.publicKey(), contract: TOKEN }), account: key.publicKey(), reader, setup, store: new MemoryStore() })
    const employerKey = Keypair.random()
    ledger.setAccount({ id: employerKey.publicKey() })
    token.mintUnderlying(employerKey.publicKey(), 1_000_000n)
    const employer = yield* wallet(employerKey)
    const payees = Array.from({ length: 4 }, () => Keypair.random())
    for (const key of [employerKey, ...payees]) {
      ledger.setAccount({ id: key.publicKey() })
      const w = key === employerKey ? employer : yield* wallet(key)
      yield* send(key, { fn: "register", account: key.publicKey(), auditorId: 0, data: yield* w.proveRegister() })
    }
    yield* send(employerKey, { fn: "deposit", from: employerKey.publicKey(), to: employerKey.publicKey(), amount: 500_000n })
    yield* send(employerKey, { fn: "merge", account: employerKey.publicKey() })
    // The employer's openings, rebuilt from the chain's events (as the archive serves them: topics and data as XDR).
    const chainEvents = () =>
      ledger.events.flatMap((e) => {
        const decoded = decodeArchiveEvent({
          id: ledger.eventId(e), ledger: e.ledger, txHash: e.txHash,
          topics: e.topics.map((t) => t.toXDR("base64")), value: e.data.toXDR("base64")
        })
        return Either.isRight(decoded) && decoded.right !== undefined ? [decoded.right] : []
      })
    yield* employer.rebuild(chainEvents())
    const started = Date.now()
    const firstLedger = ledger.latestLedger
    let proofs = 0
    let reproofs = 0
    let resends = 0
    let idleLedgers = 0
    let landedAt: number | undefined
    const proveMs: Array<number> = []
    const prove = (i: number) =>
      Effect.gen(function*() {
        const t = Date.now()
        const data = yield* employer.proveTransfer(payees[i % payees.length]!.publicKey(), 1_000n + BigInt(i))
        proveMs.push(Date.now() - t)
        proofs += 1
        return data
      })
    const proven: Array<Uint8Array> = []
    for (let i = 0; i < PAYOUTS; i++) {
      // Pipelined: while payout i is on its way, payout i+1 is already being proven.
      while (proven.length <= i) proven.push(yield* prove(proven.length))
      if (scenario === "dropped" && i === Math.floor(PAYOUTS / 2)) ledger.scriptSend({ kind: "neverLands" })
      if (landedAt !== undefined) idleLedgers += Math.max(0, ledger.latestLedger - landedAt)
      let outcome = yield* Effect.zip(
        send(employerKey, { fn: "confidential_transfer", from: employerKey.publicKey(), to: payees[i % payees.length]!.publicKey(), data: proven[i]! }),
        i + 1 < PAYOUTS && proven.length === i + 1 ? Effect.map(prove(i + 1), (d) => { proven.push(d) }) : Effect.void,
        { concurrent: true }
      ).pipe(Effect.map(([o]) => o))
      if (outcome.status !== "SUCCESS") {
        resends += 1
        outcome = yield* send(employerKey, { fn: "confidential_transfer", from: employerKey.publicKey(), to: payees[i % payees.length]!.publicKey(), data: proven[i]! })
      }
      if (outcome.status !== "SUCCESS") throw new Error(`payout ${i} ended ${outcome.status}`)
      landedAt = outcome.ledger
      if (scenario === "moved" && i === Math.floor(PAYOUTS / 2) - 1) {
        // Someone deposits and merges into the paying account: its spendable commitment is no longer the pending
        // chain's base, so every proof made on the old balance is stale.
        yield* send(employerKey, { fn: "deposit", from: employerKey.publicKey(), to: employerKey.publicKey(), amount: 10_000n })
        yield* send(employerKey, { fn: "merge", account: employerKey.publicKey() })
        const stale = proven.length - (i + 1)
        // The wallet sees it before proving again (StateMismatch), rebuilds from the events and proves anew.
        const seen = yield* Effect.either(employer.balances())
        if (Either.isRight(seen)) throw new Error("the wallet did not notice the balance move under its pending proofs")
        yield* employer.rebuild(chainEvents())
        proven.length = i + 1
        reproofs += stale
      }
    }
    const ledgers = ledger.latestLedger - firstLedger
    return {
      scenario, payouts: PAYOUTS, ledgerMs: LEDGER_MS, threads: THREADS, ledgers, seconds: (Date.now() - started) / 1000,
      proofs, reproofs, resends, idleLedgers,
      proveMsMedian: [...proveMs].sort((a, b) => a - b)[Math.floor(proveMs.length / 2)] ?? 0
    }
  }).pipe(Effect.scoped)

const main = Effect.gen(function*() {
  for (const scenario of ["clean", "dropped", "moved"] as const) {
    const f = yield* run(scenario)
    console.log(
      `${f.scenario.padEnd(8)} ${f.payouts} payouts, ${f.threads} thread(s), ${f.ledgerMs} ms ledgers: ${f.ledgers} ledgers ` +
        `(${f.seconds.toFixed(1)} s), ${f.proofs} proofs (median ${f.proveMsMedian} ms), ${f.reproofs} re-proven after the ` +
        `balance moved, ${f.resends} re-sent unchanged, ${f.idleLedgers} ledgers waited on a proof`
    )
  }
})

Effect.runPromise(main).then(() => process.exit(0), (e: unknown) => {
  console.error(e)
  process.exit(1)
})
