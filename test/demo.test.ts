import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { alive } from "./support/EmbeddedCluster.ts"
import { waitUntil } from "./support/WaitFor.ts"
import { Keypair, Networks, StrKey, TransactionBuilder } from "@stellar/stellar-sdk"
import { STANDALONE_PASSPHRASE } from "../client/src/confidential/proving/CrsFiles.ts"
import { CRS_DIR, proofVerifier } from "./support/ConfidentialProving.ts"
import { LoopbackRpc } from "./support/LoopbackRpc.ts"
import { runDemo } from "./support/RunDemo.ts"

// Both ways of running `npm run demo` in one file, so that their two demos (each proving a dozen times) never run
// at once on a shared machine.
// `npm run demo` runs in CI (.ci/run) to its end; this is the other way it ends: a Ctrl-C half-way through the payroll.
describe("npm run demo", () => {
  it.live("Ctrl-C during the payroll: exit 130, the service and its PostgreSQL stopped, the temporary DATA_DIR removed", () =>
    Effect.promise(async () => {
      const { DATABASE_URL: _url, ...env } = process.env
      const demo = spawn(process.execPath, ["scripts/demo.ts"], { env, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      demo.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      demo.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => demo.once("exit", resolve))
      try {
        await waitUntil("the payroll to start", () => output.includes("Running the payroll") || demo.exitCode !== null, 240_000)
        expect(demo.exitCode, `the demo ended before its payroll:\n${output}`).toBeNull()
        const [, pid, dataDir] = /\(pid (\d+), DATA_DIR (.+)\)/.exec(output) ?? []
        expect(dataDir, output).toBeDefined()
        const postmaster = Number((await readFile(Path.join(dataDir!, "pg", "postmaster.pid"), "utf8")).split("\n")[0])
        expect(alive(Number(pid))).toBe(true)
        expect(alive(postmaster)).toBe(true)

        demo.kill("SIGINT")
        expect(await exited, output).toBe(130)
        expect(output).toContain("Interrupted: everything the demo started is stopped and removed.")
        expect(alive(Number(pid))).toBe(false)
        expect(alive(postmaster)).toBe(false)
        expect(existsSync(dataDir!)).toBe(false)
      } finally {
        if (demo.exitCode === null) demo.kill("SIGKILL")
      }
    }), 300_000)
})

// `npm run demo`'s network mode (scripts/DemoNetwork.ts): given DEMO_FUNDER_SECRET and a network's settings, the demo
// starts no ledger of its own and runs against that network: the testnet smoke test. Here the network is a loopback
// RPC this test starts and the demo only knows by its URL, as it would know testnet: a standalone network with the
// token verifying every proof (bb.js, OZ's published keys) and a funder holding XLM and the token's underlying asset.

const TOKEN = StrKey.encodeContract(Buffer.alloc(32, 0x7a))
const UNIT = 10_000_000n // XLM and USDC both have 7 decimals

const units = (text: string) => {
  const [whole = "0", fraction = ""] = text.split(".")
  return BigInt(whole) * UNIT + BigInt(fraction.padEnd(7, "0"))
}


describe("npm run demo on a network it did not start (DEMO_FUNDER_SECRET)", () => {
  it.scopedLive("pays five contractors with real proofs on that network: the funder creates the accounts and funds the employer", () =>
    Effect.gen(function*() {
      const verifier = yield* proofVerifier
      const rpc = yield* Effect.acquireRelease(
        Effect.promise(() => LoopbackRpc.start({ ledgerIntervalMs: 500, networkPassphrase: STANDALONE_PASSPHRASE })),
        (rpc) => Effect.promise(() => rpc.close())
      )
      const token = rpc.deployConfidentialToken(TOKEN, { verifier })
      const funder = Keypair.random()
      rpc.setAccount({ id: funder.publicKey(), balance: 1_000n * UNIT })
      token.mintUnderlying(funder.publicKey(), 50n * UNIT)
      const xlmBefore = rpc.account(funder.publicKey())!.balance

      const { code, output } = yield* runDemo({
        DEMO_FUNDER_SECRET: funder.secret(),
        STELLAR_RPC_URL: rpc.url,
        NETWORK_PASSPHRASE: rpc.networkPassphrase,
        CONFIDENTIAL_TOKEN_CONTRACT: TOKEN,
        CONFIDENTIAL_AUDITOR_CONTRACT: token.auditorRegistry,
        CONFIDENTIAL_VERIFIER_CONTRACT: token.verifierRegistry
      })
      expect(code, output).toBe(0)
      expect(output).toContain("the demo starts no ledger of its own")
      expect(output).not.toContain("Starting the loopback Stellar ledger")
      expect(output).not.toContain("Closing the loopback ledger")
      expect(output).not.toContain(funder.secret())

      // each contractor decrypted what was sent: the network's small amounts, 1.0000000 + i·0.1 USDC
      const paid = [...output.matchAll(/^ {2}(.+?)\s+sent\s+([\d.]+)\s+received\s+([\d.]+)\s+(✓|✗)$/gm)]
        .map(([, name, sent, received, mark]) => ({ name: name!, sent: units(sent!), received: units(received!), mark }))
      expect(paid.map((p) => p.sent), output).toEqual([10n, 11n, 12n, 13n, 14n].map((tenths) => tenths * UNIT / 10n))
      for (const p of paid) expect(p).toMatchObject({ received: p.sent, mark: "✓" })
      const total = paid.reduce((sum, p) => sum + p.sent, 0n)

      // the accounts: created by one transaction of the funder's on this network, each with the balance printed
      const created = [...output.matchAll(/^ {2}(.+?)\s+(G[A-Z2-7]{55})\s+([\d.]+) XLM$/gm)]
        .map(([, role, account, balance]) => ({ role: role!, account: account!, startingBalance: units(balance!) }))
      expect(created.map((c) => c.role)).toEqual(["employer", "sponsor", ...paid.map((p) => p.name)])
      const [, hash] = /created by the funder's transaction ([0-9a-f]{64})/.exec(output) ?? []
      const tx = rpc.transaction(hash ?? "")
      expect(tx, output).toMatchObject({ source: funder.publicKey(), status: "SUCCESS" })
      const ops = TransactionBuilder.fromXDR(tx!.envelopeXdr, rpc.networkPassphrase).operations
      expect(ops.map((op) => (op.type === "createAccount" ? [op.destination, units(op.startingBalance)] : op.type)))
        .toEqual(created.map((c) => [c.account, c.startingBalance]))
      for (const c of created) expect(rpc.account(c.account), c.role).toBeDefined()
      // the service sponsored every contractor's register: each still holds exactly its starting balance
      for (const c of created.slice(2)) expect(rpc.account(c.account)?.balance, c.role).toBe(c.startingBalance)
      expect(rpc.account(created[1]!.account)!.balance).toBeLessThan(created[1]!.startingBalance) // the sponsor paid fee-bumps

      // the funder paid the starting balances (and fees) and deposited the payroll's total into the employer's balance
      const startingBalances = created.reduce((sum, c) => sum + c.startingBalance, 0n)
      expect(xlmBefore - rpc.account(funder.publicKey())!.balance).toBeGreaterThanOrEqual(startingBalances)
      expect(token.underlyingBalance(funder.publicKey())).toBe(50n * UNIT - total)
      expect(token.underlyingBalance(created[0]!.account)).toBe(0n)
    }), 12 * 60_000)

  it.scopedLive("on testnet, refuses a CRS_DIR that is not Aztec Ignition's before the funder spends anything", () =>
    Effect.gen(function*() {
      const crsDir = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const dir = mkdtempSync(Path.join(tmpdir(), "demo-crs-"))
          const g2 = readFileSync(Path.join(CRS_DIR, "bn254_g2.dat"))
          g2[40] = g2[40]! ^ 1
          writeFileSync(Path.join(dir, "bn254_g1.dat"), readFileSync(Path.join(CRS_DIR, "bn254_g1.dat")))
          writeFileSync(Path.join(dir, "bn254_g2.dat"), g2)
          return dir
        }),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const rpc = yield* Effect.acquireRelease(
        Effect.promise(() => LoopbackRpc.start({ ledgerIntervalMs: 500, networkPassphrase: Networks.TESTNET })),
        (rpc) => Effect.promise(() => rpc.close())
      )
      const token = rpc.deployConfidentialToken(TOKEN)
      const funder = Keypair.random()
      rpc.setAccount({ id: funder.publicKey(), balance: 1_000n * UNIT })
      const { code, output } = yield* runDemo({
        DEMO_FUNDER_SECRET: funder.secret(),
        STELLAR_RPC_URL: rpc.url,
        NETWORK_PASSPHRASE: Networks.TESTNET,
        CONFIDENTIAL_TOKEN_CONTRACT: TOKEN,
        CONFIDENTIAL_AUDITOR_CONTRACT: token.auditorRegistry,
        CONFIDENTIAL_VERIFIER_CONTRACT: token.verifierRegistry,
        CRS_DIR: crsDir
      })
      expect(code, output).toBe(1)
      expect(output).toContain("bn254_g2.dat is not Aztec Ignition's")
      expect(output).toContain("CRS_DIR")
      expect(output).not.toContain("Starting the service")
      expect(rpc.transactions).toHaveLength(0)
      expect(rpc.account(funder.publicKey())?.balance).toBe(1_000n * UNIT)
    }), 60_000)

  it.live("refuses in one line, exit 1, when a setting network mode needs is missing", () =>
    Effect.gen(function*() {
      const secret = Keypair.random().secret()
      const { code, output } = yield* runDemo({
        DEMO_FUNDER_SECRET: secret,
        STELLAR_RPC_URL: "http://127.0.0.1:9/",
        NETWORK_PASSPHRASE: STANDALONE_PASSPHRASE,
        CONFIDENTIAL_VERIFIER_CONTRACT: "not-a-contract"
      })
      expect(code).toBe(1)
      const lines = output.trim().split("\n")
      expect(lines, output).toHaveLength(1)
      expect(lines[0]).toContain("DEMO_FUNDER_SECRET is set")
      expect(lines[0]).toContain("set CONFIDENTIAL_TOKEN_CONTRACT;")
      expect(lines[0]).toContain("CONFIDENTIAL_VERIFIER_CONTRACT is not a contract address")
      expect(output).not.toContain(secret)
    }), 60_000)
})
