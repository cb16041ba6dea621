// Compiles this project's selective-disclosure circuits (circuits/disclosure, a Nargo workspace) with
// @noir-lang/noir_wasm, the compiler of the token's own artifacts (client/circuits/8af46e2c/manifest.json), into
// client/circuits/disclosure/<name>.json (bytecode and ABI; no debug symbols or file map), writes manifest.json
// (ACIR and bytecode sha256, public inputs, parameters, gates and circuit size) and each circuit's verification key
// over Aztec Ignition's CRS (client/crs) in OZ's fields form: bb.js 0.87 UltraHonk, keccak transcript, the key
// proving/Prover.ts `verificationKey` computes.
//
//   node_modules/.bin/node scripts/compile-disclosure.ts [--check]
//
// --check compiles again and exits 1 if an artifact, a key or the manifest differs from the tree.
import { compile_program, createFileManager } from "@noir-lang/noir_wasm"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { gunzipSync } from "node:zlib"
import {
  DISCLOSURE_CIRCUITS,
  type DisclosureArtifact,
  type DisclosureCircuitName,
  type DisclosureManifest,
  type DisclosureManifestCircuit
} from "../client/src/confidential/disclosure/DisclosureCircuits.ts"
import { DISCLOSURE, DISCLOSURE_BIND, EPHEMERAL_KEY } from "../client/src/confidential/disclosure/Domain.ts"
import { publicInputCount } from "../client/src/confidential/proving/Artifacts.ts"
import { BUNDLED_CRS_DIR, loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { PAIRING_POINTS, parseBinaryVk, toFieldsVk, VK_BINARY_BYTES } from "../client/src/confidential/proving/VerificationKey.ts"

const root = Path.resolve(import.meta.dirname, "..")
const sourcesDir = Path.join(root, "circuits/disclosure")
const outDir = Path.join(root, "client/circuits/disclosure")
const check = process.argv.includes("--check")

const fail = (message: string): never => {
  console.error(`compile-disclosure: ${message}`)
  process.exit(1)
}

const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")
const packageVersion = (name: string): string =>
  `${name}@${(JSON.parse(readFileSync(Path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version}`

const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = Path.join(dir, name)
    return statSync(path).isDirectory() ? (name === "target" ? [] : walk(path)) : [path]
  })
/** One digest over every source file (path and content), so the manifest names the sources it was built from. */
const sourcesDigest = (): string => {
  const hash = createHash("sha256")
  for (const path of walk(sourcesDir).filter((p) => /\.(nr|toml)$/.test(p)).sort()) {
    hash.update(`${Path.relative(sourcesDir, path)}\0`).update(readFileSync(path)).update("\0")
  }
  return hash.digest("hex")
}

const crs = await Effect.runPromise(loadCrsDir(BUNDLED_CRS_DIR))
const { Barretenberg, RawBuffer } = await import("@aztec/bb.js")
const bb = await Barretenberg.new({ threads: 1 })
await bb.srsInitSrs(new RawBuffer(crs.g1), crs.points, new RawBuffer(crs.g2))

const files = new Map<string, string>()
const circuits: Array<readonly [DisclosureCircuitName, DisclosureManifestCircuit]> = []
for (const name of DISCLOSURE_CIRCUITS) {
  const { program } = await compile_program(createFileManager(sourcesDir), Path.join(sourcesDir, name), () => {}, () => {})
  const artifact: DisclosureArtifact = { noir_version: program.noir_version, hash: String(program.hash), abi: program.abi, bytecode: program.bytecode }
  const json = `${JSON.stringify(artifact, null, 2)}\n`
  if (/"(file_map|debug_symbols)"/.test(json)) fail(`${name}: the artifact still has a file map or debug symbols`)
  const gzipped = Buffer.from(artifact.bytecode, "base64")
  const acir = gunzipSync(gzipped)
  const [gates, circuitSize] = await bb.acirGetCircuitSizes(acir, false, true)
  if (circuitSize + 1 > crs.points) fail(`${name} needs ${circuitSize + 1} CRS points; Ignition's prefix in client/crs has ${crs.points}`)
  const binaryVk = await bb.acirWriteVkUltraKeccakHonk(acir)
  if (binaryVk.length !== VK_BINARY_BYTES) fail(`${name}: a ${binaryVk.length}-byte verification key`)
  const publicInputs = publicInputCount(artifact.abi)
  const vk = parseBinaryVk(binaryVk)
  if (vk.numPublicInputs !== publicInputs + PAIRING_POINTS || vk.circuitSize !== circuitSize) fail(`${name}: the key's header disagrees with the ABI`)
  const vkJson = `${JSON.stringify(toFieldsVk(vk), null, 2)}\n`
  files.set(`${name}.json`, json)
  files.set(`vks/${name}.vk.json`, vkJson)
  circuits.push([name, {
    acirSha256: sha256(acir),
    bytecodeSha256: sha256(gzipped),
    noirHash: artifact.hash,
    publicInputs,
    parameters: artifact.abi.parameters.map((p) => p.name),
    publicParameters: artifact.abi.parameters.filter((p) => p.visibility === "public").map((p) => p.name),
    gates,
    circuitSize,
    vkSha256: sha256(vkJson)
  }])
  console.log(`${name.padEnd(22)} gates ${String(gates).padStart(6)}  size ${circuitSize}  public ${publicInputs}+${PAIRING_POINTS}`)
}
await bb.destroy()

const manifest: DisclosureManifest = {
  sources: `circuits/disclosure sha256 ${sourcesDigest()}`,
  spec: "OpenZeppelin/stellar-contracts@8af46e2c packages/tokens/src/confidential/docs/SELECTIVE_DISCLOSURE.md",
  compiler: packageVersion("@noir-lang/noir_wasm"),
  executor: packageVersion("@noir-lang/noir_js"),
  prover: `${packageVersion("@aztec/bb.js")} UltraHonk, keccak transcript, not zk`,
  crs: `Aztec Ignition, the first ${crs.points} G1 points (client/crs)`,
  domainTags: { DISCLOSURE: Number(DISCLOSURE), DISCLOSURE_BIND: Number(DISCLOSURE_BIND), EPHEMERAL_KEY: Number(EPHEMERAL_KEY) },
  circuits: Object.fromEntries(circuits) as DisclosureManifest["circuits"]
}
files.set("manifest.json", `${JSON.stringify(manifest, null, 2)}\n`)

if (check) {
  const drift = [...files].filter(([file, text]) => !existsSync(Path.join(outDir, file)) || readFileSync(Path.join(outDir, file), "utf8") !== text)
  if (drift.length > 0) fail(`drift against ${Path.relative(root, outDir)}: ${drift.map(([file]) => file).join(", ")}`)
  console.log(`no drift: ${circuits.length} circuits reproduce ${Path.relative(root, outDir)} byte for byte`)
} else {
  mkdirSync(Path.join(outDir, "vks"), { recursive: true })
  for (const [file, text] of files) writeFileSync(Path.join(outDir, file), text)
  console.log(`wrote ${circuits.length} circuits, their keys and manifest.json to ${Path.relative(root, outDir)}`)
}
