// `npm run crs`: puts a CRS for the confidential client's prover in CRS_DIR (default DATA_DIR/crs, DATA_DIR ./.data).
//
// A CRS already there that passes its check is kept. Otherwise Aztec's Ignition prefix is fetched (the first 32,769
// G1 points of crs.aztec.network/g1.dat by a range request, and g2.dat) and kept only when both hashes match the pins
// in client/src/confidential/proving/Crs.ts. Offline, or with --test, a test CRS is written instead: it proves on a
// standalone network only, and the client refuses it for the public networks.
import { Effect } from "effect"
import { checkCrs, IGNITION_G1_SHA256, IGNITION_G2_SHA256, IGNITION_POINTS, PUBLIC_NETWORKS } from "../client/src/confidential/proving/Crs.ts"
import { crsDirFromEnv, ensureTestCrs, loadCrsDir, STANDALONE_PASSPHRASE, writeCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { sha256Hex } from "../client/src/confidential/proving/Artifacts.ts"

const IGNITION = "https://crs.aztec.network"
const dir = crsDirFromEnv()
const testOnly = process.argv.includes("--test")

const present = await Effect.runPromise(Effect.option(loadCrsDir(dir, STANDALONE_PASSPHRASE)))
if (present._tag === "Some" && present.value.points >= IGNITION_POINTS) {
  console.log(`${dir}: ${present.value.kind === "ignition" ? "Aztec Ignition's" : "a test"} CRS of ${present.value.points} points is there and checks out`)
  process.exit(0)
}

/** The first `bytes` bytes, whether the server honours the range or sends the whole file. */
const fetchPrefix = async (url: string, bytes: number | undefined): Promise<Uint8Array> => {
  const headers: Record<string, string> = bytes === undefined ? {} : { Range: `bytes=0-${bytes - 1}` }
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) })
  if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`)
  const chunks: Array<Uint8Array> = []
  let length = 0
  const reader = response.body.getReader()
  while (bytes === undefined || length < bytes) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    length += value.length
  }
  await reader.cancel()
  const out = new Uint8Array(length)
  chunks.reduce((at, chunk) => (out.set(chunk, at), at + chunk.length), 0)
  return bytes === undefined ? out : out.subarray(0, bytes)
}

if (!testOnly) {
  try {
    const [g1, g2] = await Promise.all([fetchPrefix(`${IGNITION}/g1.dat`, IGNITION_POINTS * 64), fetchPrefix(`${IGNITION}/g2.dat`, undefined)])
    if (sha256Hex(g1) !== IGNITION_G1_SHA256 || sha256Hex(g2) !== IGNITION_G2_SHA256) throw new Error("the files do not match the pinned sha256")
    await Effect.runPromise(checkCrs({ g1, g2 }, STANDALONE_PASSPHRASE))
    writeCrsDir(dir, { g1, g2 })
    console.log(`${dir}: Aztec Ignition's first ${IGNITION_POINTS} points and its G2 point, sha256-checked`)
    process.exit(0)
  } catch (error) {
    console.log(`could not fetch Aztec Ignition's CRS from ${IGNITION} (${error instanceof Error ? error.message : String(error)}): writing a test CRS, which proves on standalone networks only`)
  }
}

// A test CRS goes where the service would serve it only when it may: CRS_DIR named explicitly, or a standalone
// NETWORK_PASSPHRASE. On testnet (the default) or the public network the service refuses a test CRS in CRS_DIR, so
// it is cached beside it instead, and `npm start` keeps working.
const network = process.env["NETWORK_PASSPHRASE"] ?? "Test SDF Network ; September 2015"
const standalone = !PUBLIC_NETWORKS.includes(network)
const testDir = process.env["CRS_DIR"] !== undefined || standalone ? dir : `${dir}-test`
const started = performance.now()
const { made } = await Effect.runPromise(ensureTestCrs(testDir, IGNITION_POINTS))
console.log(`${testDir}: test CRS of ${IGNITION_POINTS} points ${made ? `made in ${((performance.now() - started) / 1000).toFixed(1)} s` : "reused"}`)
if (testDir !== dir) {
  console.log(`  it proves on a standalone network only: use it with CRS_DIR=${testDir} and such a NETWORK_PASSPHRASE (the service on "${network}" refuses it)`)
}
