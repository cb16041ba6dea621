// Memory of the service after abandoned requests: clients that leave mid-body, that never send the body they
// announced, or that send it all and leave before the answer (with `application/vnd.api+json`, which once made a
// handler wait forever on a body already read). It prints heapUsed and RSS of the service process, measured after a
// full GC, before and after each batch. A measurement, not a test: it asserts nothing.
//
//   node_modules/.bin/node bench/abandoned.ts   # 10,000 requests per kind (ABANDON_COUNT), 100 at a time, ABANDON_ROUNDS=1
//
// The service runs in a child process (this file with `--service`, under --expose-gc), composed as src/Server/main.ts
// composes it, on the embedded database in a temporary directory and the loopback Stellar RPC.
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer, request } from "node:http"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import * as Path from "node:path"

interface Memory {
  readonly heapUsed: number
  readonly rss: number
}

if (process.argv.includes("--service")) {
  const { appOn } = await import("../src/Server/App.ts")
  const node = createServer()
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      appOn(NodeHttpServer.layer(() => node, { host: "127.0.0.1", port: 0 })).pipe(Layer.provide(Logger.minimumLogLevel(LogLevel.Error))),
      scope
    )
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  const gc = (globalThis as { gc?: () => void }).gc!
  process.on("message", async (message: string) => {
    if (message === "memory") {
      for (let i = 0; i < 3; i++) {
        gc()
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const { heapUsed, rss } = process.memoryUsage()
      process.send!({ type: "memory", memory: { heapUsed, rss }, connections: await new Promise((r) => node.getConnections((_, n) => r(n))) })
    }
    if (message === "stop") {
      node.closeAllConnections()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      process.exit(0)
    }
  })
  process.send!({ type: "ready", port: address._tag === "TcpAddress" ? address.port : 0 })
} else {
  const { LoopbackRpc } = await import("../test/support/LoopbackRpc.ts")
  const COUNT = Number(process.env.ABANDON_COUNT ?? 10_000)
  /** Rounds of all three kinds: RSS that levels off across rounds is the allocator keeping pages, not a leak. */
  const ROUNDS = Number(process.env.ABANDON_ROUNDS ?? 1)
  const CONCURRENCY = 100
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 1000 })
  const dataDir = await mkdtemp(Path.join(tmpdir(), "payroll-abandon-"))
  const { DATABASE_URL: _unused, ...inherited } = process.env
  const child = fork(new URL(import.meta.url), ["--service"], {
    execArgv: ["--expose-gc"],
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      STELLAR_RPC_URL: rpc.url,
      JWT_SECRET: randomBytes(32).toString("base64url"),
      SEP10_SIGNING_SECRET: Keypair.random().secret(),
      SPONSOR_SECRET: Keypair.random().secret(),
      FAUCET_SECRET: Keypair.random().secret()
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const next = <T>(type: string) => new Promise<T>((resolve) => child.on("message", function on(m: any) {
    if (m.type === type) {
      child.off("message", on)
      resolve(m)
    }
  }))
  const { port } = await next<{ port: number }>("ready")
  const memory = async () => {
    const answer = next<{ memory: Memory; connections: number }>("memory")
    child.send("memory")
    return answer
  }

  const MIB = 1024 * 1024
  const show = (label: string, m: { memory: Memory; connections: number }, base?: Memory) =>
    console.log(
      `${label.padEnd(44)} heapUsed ${(m.memory.heapUsed / MIB).toFixed(1).padStart(6)} MiB` +
        `${base === undefined ? "" : ` (${((m.memory.heapUsed - base.heapUsed) / MIB >= 0 ? "+" : "")}${((m.memory.heapUsed - base.heapUsed) / MIB).toFixed(1)})`}` +
        `   RSS ${(m.memory.rss / MIB).toFixed(1).padStart(6)} MiB` +
        `${base === undefined ? "" : ` (${((m.memory.rss - base.rss) / MIB >= 0 ? "+" : "")}${((m.memory.rss - base.rss) / MIB).toFixed(1)})`}` +
        `   open connections ${m.connections}`
    )

  /** One client: writes `head` (and `body`), then goes away after `leaveAfterMs` without reading an answer. */
  const abandon = (head: string, body: string, leaveAfterMs: number) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(head + body)
        setTimeout(() => socket.destroy(), leaveAfterMs)
      })
      socket.on("error", () => undefined)
      socket.on("close", () => resolve())
    })

  const answered = () =>
    new Promise<void>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/health", method: "GET" }, (res) => {
        res.resume()
        res.on("end", () => resolve())
      })
      req.end()
    })

  const run = async (make: () => Promise<void>) => {
    let started = 0
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (started++ < COUNT) await make()
    }))
  }

  const body = JSON.stringify({ name: "Abandoned Co".padEnd(900, ".") })
  const head = (type: string, length: number) =>
    `POST /auth/sep10/verify HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`
  const kinds: Array<[string, () => Promise<void>]> = [
    ["mid-body (100 of 1,000 bytes), then gone", () => abandon(head("application/json", 1000), body.slice(0, 100), 20)],
    ["headers only, body never sent, then gone", () => abandon(head("application/json", 1000), "", 20)],
    ["whole vnd.api+json body, gone before answer", () => abandon(head("application/vnd.api+json", Buffer.byteLength(body)), body, 20)]
  ]

  for (let i = 0; i < 300; i++) await answered()
  const base = await memory()
  show("after warm-up (300 answered requests)", base)
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [label, make] of kinds) {
      await run(make)
      await new Promise((resolve) => setTimeout(resolve, 2000))
      show(`${ROUNDS > 1 ? `round ${round}: ` : ""}after ${COUNT.toLocaleString("en")} × ${label}`, await memory(), base.memory)
    }
  }
  await answered()
  child.send("stop")
  await new Promise((resolve) => child.once("exit", resolve))
  await rpc.close()
  await rm(dataDir, { recursive: true, force: true })
}
