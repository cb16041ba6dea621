// Compiles OpenZeppelin/stellar-contracts' confidential-token circuits (packages/tokens/src/confidential/circuits at
// 8af46e2c) with @noir-lang/noir_wasm into client/circuits/<commit>/, keeping bytecode and ABI only, and writes a
// manifest that pins each circuit's ACIR by sha256 next to the header of OZ's committed verification key.
//
//   node_modules/.bin/node scripts/compile-circuits.ts <oz-checkout-root> [--out client/circuits/8af46e2c]
//        [--git-dir <repo.git>] [--commit <sha>] [--check]
//
// The commit is the checkout's git HEAD (or that of --git-dir, for a checkout without .git); any other commit than
// the pinned one is refused unless --commit names it. With a git directory every circuit source is compared to the
// commit's blob first. --check compiles again and exits 1 if anything differs from the manifest or the files.
import { compile_program, createFileManager } from "@noir-lang/noir_wasm"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { gunzipSync } from "node:zlib"
import type { CircuitArtifact, Manifest, ManifestCircuit, VkHeader } from "../client/src/confidential/proving/Artifacts.ts"
import { CIRCUITS, publicInputCount } from "../client/src/confidential/proving/Artifacts.ts"
import { parseFieldsVk, PAIRING_POINTS } from "../client/src/confidential/proving/VerificationKey.ts"

const PINNED_COMMIT = "8af46e2c3ba3501ff6ddd0a5d72290e410ace9ca"
const REPOSITORY = "OpenZeppelin/stellar-contracts"
const CIRCUITS_PATH = "packages/tokens/src/confidential/circuits"
/** The circuits the client needs; the delegation ones are kept when they compile. */
const REQUIRED = new Set(["register", "transfer", "withdraw"])
const projectRoot = Path.resolve(import.meta.dirname, "..")

const fail = (message: string): never => {
  console.error(`compile-circuits: ${message}`)
  process.exit(1)
}

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const at = args.indexOf(name)
  if (at < 0) return undefined
  const value = args[at + 1]
  if (value === undefined || value.startsWith("--")) fail(`${name} needs a value`)
  args.splice(at, 2)
  return value
}
const check = args.includes("--check")
if (check) args.splice(args.indexOf("--check"), 1)
const explicitCommit = option("--commit")
const gitDirOption = option("--git-dir")
const outDir = Path.resolve(option("--out") ?? Path.join(projectRoot, "client/circuits/8af46e2c"))
if (args.length !== 1) fail("usage: compile-circuits.ts <oz-checkout-root> [--out dir] [--git-dir dir] [--commit sha] [--check]")
const ozRoot = Path.resolve(args[0]!)
const circuitsDir = Path.join(ozRoot, CIRCUITS_PATH)
if (!existsSync(circuitsDir)) fail(`${circuitsDir} does not exist`)

const git = (gitArgs: ReadonlyArray<string>): string | undefined => {
  try {
    return execFileSync("git", gitArgs, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  } catch {
    return undefined
  }
}
const gitArgsFor = gitDirOption !== undefined ? ["--git-dir", gitDirOption] : ["-C", ozRoot]
const head = git([...gitArgsFor, "rev-parse", "HEAD"])
const commit = explicitCommit ?? head ?? fail(`no git HEAD at ${gitDirOption ?? ozRoot}: pass --git-dir <repository> or --commit <sha>`)
if (explicitCommit === undefined && commit !== PINNED_COMMIT) {
  fail(`the checkout is at ${commit}, not ${PINNED_COMMIT}; pass --commit ${commit} to compile it anyway`)
}

const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = Path.join(dir, name)
    return statSync(path).isDirectory() ? (name === "target" ? [] : walk(path)) : [path]
  })
const sources = walk(circuitsDir).filter((path) => /\.(nr|toml)$/.test(path) || path.endsWith(".vk.json"))

// A checkout without .git (or with edits) could hold anything: tie every source to the commit's blob.
if (head !== undefined) {
  const tree = git([...gitArgsFor, "ls-tree", "-r", commit, "--", CIRCUITS_PATH]) ?? fail(`git cannot list ${commit}:${CIRCUITS_PATH}`)
  const blobs = new Map(tree.split("\n").map((line) => [line.split("\t")[1]!, line.split(/\s+/)[2]!] as const))
  for (const path of sources) {
    const relative = Path.relative(ozRoot, path)
    const content = readFileSync(path)
    const blob = createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex")
    if (blobs.get(relative) !== blob) fail(`${relative} is not the file of ${commit}`)
  }
  console.log(`${sources.length} circuit sources match ${commit}`)
}

const packageVersion = (name: string): string =>
  `${name}@${(JSON.parse(readFileSync(Path.join(projectRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version}`

const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")

const ozVkHeader = (name: string): VkHeader => {
  const fields = JSON.parse(readFileSync(Path.join(circuitsDir, "vks", `${name}.vk.json`), "utf8")) as unknown
  const vk = parseFieldsVk(fields)
  return { circuitSize: vk.circuitSize, numPublicInputs: vk.numPublicInputs, pubInputsOffset: vk.pubInputsOffset }
}

interface Compiled {
  readonly name: string
  readonly json: string
  readonly entry: ManifestCircuit
}

const { Barretenberg } = await import("@aztec/bb.js")
const bb = await Barretenberg.new({ threads: 1 })
const compiled: Array<Compiled> = []
for (const name of CIRCUITS) {
  let program
  try {
    // The file manager's root is the workspace, so `path = "../lib"` dependencies resolve.
    program = (await compile_program(createFileManager(circuitsDir), Path.join(circuitsDir, name), () => {}, () => {})).program
  } catch (error) {
    if (REQUIRED.has(name)) fail(`${name} does not compile: ${String(error)}`)
    console.warn(`${name} does not compile with this compiler; left out`)
    continue
  }
  const artifact: CircuitArtifact = { noir_version: program.noir_version, hash: String(program.hash), abi: program.abi, bytecode: program.bytecode }
  const gzipped = Buffer.from(artifact.bytecode, "base64")
  const acir = gunzipSync(gzipped)
  const [, circuitSize] = await bb.acirGetCircuitSizes(acir, false, true)
  const publicInputs = publicInputCount(artifact.abi)
  const ozVk = ozVkHeader(name)
  if (publicInputs + PAIRING_POINTS !== ozVk.numPublicInputs || circuitSize !== ozVk.circuitSize) {
    fail(`${name}: ${publicInputs} + ${PAIRING_POINTS} public inputs and size ${circuitSize}; OZ's VK says ${ozVk.numPublicInputs} and ${ozVk.circuitSize}`)
  }
  const entry: ManifestCircuit = {
    acirSha256: sha256(acir),
    bytecodeSha256: sha256(gzipped),
    noirHash: artifact.hash,
    publicInputs,
    parameters: artifact.abi.parameters.map((p) => p.name),
    circuitSize,
    ozVk
  }
  compiled.push({ name, json: `${JSON.stringify(artifact, null, 2)}\n`, entry })
}
await bb.destroy()

const manifest: Manifest = {
  commit,
  repository: REPOSITORY,
  circuitsPath: CIRCUITS_PATH,
  compiler: packageVersion("@noir-lang/noir_wasm"),
  executor: packageVersion("@noir-lang/noir_js"),
  prover: `${packageVersion("@aztec/bb.js")} UltraHonk, keccak transcript, not zk`,
  circuits: Object.fromEntries(compiled.map((c) => [c.name, c.entry]))
}
const manifestJson = `${JSON.stringify(manifest, null, 2)}\n`

// No OZ source may travel with the artifacts: no file map or debug symbols, and no line of a .nr file.
const sourceLines = sources
  .filter((path) => path.endsWith(".nr"))
  .flatMap((path) => readFileSync(path, "utf8").split("\n"))
  .map((line) => line.trim())
  .filter((line) => line.length >= 20 && /[a-z]/i.test(line))
for (const c of compiled) {
  if (/"(file_map|debug_symbols)"/.test(c.json)) fail(`${c.name}: the artifact still has a file map or debug symbols`)
  const leaked = sourceLines.find((line) => c.json.includes(line) || c.json.includes(JSON.stringify(line).slice(1, -1)))
  if (leaked !== undefined) fail(`${c.name}: the artifact holds a line of OZ's Noir source`)
}

if (check) {
  const path = Path.join(outDir, "manifest.json")
  if (!existsSync(path)) fail(`${path} does not exist`)
  const drift = [
    ...(readFileSync(path, "utf8") === manifestJson ? [] : ["manifest.json"]),
    ...compiled.filter((c) => !existsSync(Path.join(outDir, `${c.name}.json`)) || readFileSync(Path.join(outDir, `${c.name}.json`), "utf8") !== c.json).map((c) => `${c.name}.json`)
  ]
  if (drift.length > 0) fail(`drift against ${outDir}: ${drift.join(", ")}`)
  console.log(`no drift: ${compiled.length} circuits reproduce ${Path.relative(projectRoot, outDir)} byte for byte`)
} else {
  mkdirSync(outDir, { recursive: true })
  for (const c of compiled) writeFileSync(Path.join(outDir, `${c.name}.json`), c.json)
  writeFileSync(Path.join(outDir, "manifest.json"), manifestJson)
  for (const c of compiled) console.log(`${c.name.padEnd(17)} acir ${c.entry.acirSha256}  public ${c.entry.publicInputs}+${PAIRING_POINTS}  size ${c.entry.circuitSize}`)
  console.log(`wrote ${compiled.length} circuits and manifest.json to ${Path.relative(projectRoot, outDir)}`)
}
