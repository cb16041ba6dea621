import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { type Config, ConfigProvider, Effect, Either, Option } from "effect"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import * as ClientCrs from "../client/src/confidential/proving/Crs.ts"
import { G1_FILE, G2_FILE, STANDALONE_PASSPHRASE, writeCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { generateTestCrs } from "../client/src/confidential/proving/TestCrs.ts"
import { TESTNET_PASSPHRASE } from "../src/Config.ts"
import { CrsConfig } from "../src/Crs/Config.ts"
import * as DomainCrs from "../src/Domain/Crs.ts"
import { EverySetting } from "../src/Server/Settings.ts"
import { runToExit } from "./support/Spawned.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

const PUBLIC_PASSPHRASE = "Public Global Stellar Network ; September 2015"

/** Eight points: enough for the check (its pairing needs three), made in well under a second. */
const testCrs = generateTestCrs(8)

const root = mkdtempSync(Path.join(tmpdir(), "payroll-crs-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let dirs = 0
/** A fresh directory holding the given files (bytes by file name). */
const crsDir = (files: Readonly<Record<string, Uint8Array>>) => {
  const dir = Path.join(root, `crs-${dirs++}`)
  mkdirSync(dir, { recursive: true })
  for (const [name, bytes] of Object.entries(files)) writeFileSync(Path.join(dir, name), bytes)
  return dir
}

const installed = crsDir({ [G1_FILE]: testCrs.g1, [G2_FILE]: testCrs.g2 })

/** The test CRS with one G1 point's y coordinate changed: off the curve, as random corruption lands. */
const corrupted = () => {
  const g1 = Uint8Array.from(testCrs.g1)
  g1[5 * 64 + 63] = g1[5 * 64 + 63]! ^ 1
  return { g1, g2: testCrs.g2 }
}

const under = (settings: Readonly<Record<string, string>>) => <A>(config: Config.Config<A>) =>
  Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(settings))))

const refusal = <A>(config: Config.Config<A>, settings: Readonly<Record<string, string>>) =>
  Effect.map(Effect.flip(under(settings)(config)), String)

const etagOf = (bytes: Uint8Array) => `"${createHash("sha256").update(bytes).digest("hex")}"`

describe("the one CRS rule (src/Domain/Crs.ts), which the service starts by and the client proves by", () => {
  it.effect("its verdict on a test CRS on every kind of network, malformed, corrupted and mixed files", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, DomainCrs.CrsBytes, string, string]> = [
        ["a test CRS, standalone", testCrs, STANDALONE_PASSPHRASE, "test"],
        ["a test CRS, testnet", testCrs, TESTNET_PASSPHRASE, "TestCrsOnPublicNetwork"],
        ["a test CRS, public network", testCrs, PUBLIC_PASSPHRASE, "TestCrsOnPublicNetwork"],
        ["G1 not in 64-byte points", { g1: testCrs.g1.subarray(0, 100), g2: testCrs.g2 }, STANDALONE_PASSPHRASE, "Malformed"],
        ["two points only", { g1: testCrs.g1.subarray(0, 128), g2: testCrs.g2 }, STANDALONE_PASSPHRASE, "Malformed"],
        ["a point off the curve", corrupted(), STANDALONE_PASSPHRASE, "PairingFailed"],
        ["Ignition's G2 with a test G1", { g1: testCrs.g1, g2: DomainCrs.IGNITION_G2 }, STANDALONE_PASSPHRASE, "MixedFiles"]
      ]
      for (const [what, crs, network, expected] of cases) {
        // The client's Effect is the same rule: its verdict must be the domain's.
        const client = yield* Effect.either(ClientCrs.checkCrs(crs, network))
        const verdict = Either.match(client, { onLeft: ({ reason }) => reason, onRight: ({ kind }) => kind })
        expect(verdict, what).toBe(expected)
        expect(Either.isRight(DomainCrs.checkCrs(crs, network)), what).toBe(expected === "test")
      }
      expect(DomainCrs.checkCrs(testCrs, STANDALONE_PASSPHRASE)).toEqual(Either.right(expect.objectContaining({ kind: "test", points: 8 })))
    }))
})

describe("CRS_DIR, read and checked with the other settings before the database starts", () => {
  it.effect("default DATA_DIR/crs; none there is no CRS, and no refusal", () =>
    Effect.gen(function*() {
      const dataDir = Path.join(root, "data")
      const read = yield* under({ DATA_DIR: dataDir })(CrsConfig)
      expect(read.dir).toBe(Path.join(dataDir, "crs"))
      expect(read.installed).toEqual(Option.none())
      expect((yield* under({ CRS_DIR: crsDir({}), NETWORK_PASSPHRASE: TESTNET_PASSPHRASE })(CrsConfig)).installed).toEqual(Option.none())
    }))

  it.effect("a test CRS is served on a standalone network, with the bytes as they are", () =>
    Effect.gen(function*() {
      const read = yield* under({ CRS_DIR: installed, NETWORK_PASSPHRASE: STANDALONE_PASSPHRASE })(CrsConfig)
      const crs = Option.getOrThrow(read.installed)
      expect(crs).toMatchObject({ kind: "test", points: 8 })
      expect(crs.g1.bytes).toEqual(testCrs.g1)
      expect(crs.g2.etag).toBe(etagOf(testCrs.g2))
      // Read again (the start reads every setting, then the feature's layer its own): the same bytes are not checked twice.
      const again = yield* under({ CRS_DIR: installed, NETWORK_PASSPHRASE: STANDALONE_PASSPHRASE })(CrsConfig)
      expect(Option.getOrThrow(again.installed)).toBe(crs)
    }))

  it.effect("a test CRS on testnet or the public network is refused, naming CRS_DIR and why, with the other refusals", () =>
    Effect.gen(function*() {
      for (const network of [TESTNET_PASSPHRASE, PUBLIC_PASSPHRASE]) {
        const said = yield* refusal(CrsConfig, { CRS_DIR: installed, NETWORK_PASSPHRASE: network })
        expect(said).toContain(`CRS_DIR (${installed}): a test CRS cannot make proofs the "${network}" verifier accepts`)
        expect(said).toContain("Aztec Ignition's bn254_g1.dat")
      }
      // The default network is testnet.
      const all = yield* refusal(EverySetting, { CRS_DIR: installed, HOST: "not a host!", WEBHOOK_MAX_ATTEMPTS: "0" })
      for (const why of ["HOST is not an IP address or a host name", "WEBHOOK_MAX_ATTEMPTS must be from 1 to 50", "CRS_DIR ("]) {
        expect(all).toContain(why)
      }
    }))

  it.effect("malformed files, a corrupted test CRS, one file without the other, an unreadable file: refused naming CRS_DIR", () =>
    Effect.gen(function*() {
      const standalone = (dir: string) => refusal(CrsConfig, { CRS_DIR: dir, NETWORK_PASSPHRASE: STANDALONE_PASSPHRASE })
      const short = crsDir({ [G1_FILE]: testCrs.g1.subarray(0, 100), [G2_FILE]: testCrs.g2 })
      expect(yield* standalone(short)).toContain(`CRS_DIR (${short}): the CRS files are not in bb's layout (100 G1 bytes, 128 G2 bytes)`)
      const bent = crsDir({ [G1_FILE]: corrupted().g1, [G2_FILE]: testCrs.g2 })
      expect(yield* standalone(bent)).toContain(`CRS_DIR (${bent}): the test CRS in CRS_DIR fails its pairing check`)
      const half = crsDir({ [G1_FILE]: testCrs.g1 })
      expect(yield* standalone(half)).toContain(`CRS_DIR (${half}): bn254_g1.dat is there but bn254_g2.dat is not`)
      const folder = crsDir({ [G2_FILE]: testCrs.g2 })
      mkdirSync(Path.join(folder, G1_FILE))
      expect(yield* standalone(folder)).toContain(`CRS_DIR (${folder}): bn254_g1.dat cannot be read`)
    }))

  it.live("`npm start` with a test CRS on testnet stops at once: one fatal line naming CRS_DIR, before any database", () =>
    Effect.gen(function*() {
      // A DATABASE_URL nothing listens on: the settings are refused before any connection.
      const { code, lines, output } = yield* runToExit({ LOG_FORMAT: "json", CRS_DIR: installed, DATABASE_URL: "postgres://127.0.0.1:1/none" })
      expect(code).toBe(1)
      expect(lines, output).toHaveLength(1)
      const record = JSON.parse(lines[0]!)
      expect(record.level).toBe("fatal")
      expect(record.message).toMatch(/^cannot start: CRS_DIR \(.+\): a test CRS cannot make proofs the "Test SDF Network ; September 2015" verifier accepts/)
    }), 60_000)
})

layer(TestAppLive({ NETWORK_PASSPHRASE: STANDALONE_PASSPHRASE, CRS_DIR: installed }))("GET /crs/* with a CRS installed", (it) => {
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    Effect.flatMap(TestApp, (app) =>
      Effect.promise(async () => {
        const response = await fetch(`${app.url}${path}`, { method, headers })
        return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) }
      }))

  it.effect("each file's bytes as they are on disk, as application/octet-stream, with its length, ETag and a day's caching", () =>
    Effect.gen(function*() {
      for (const [path, bytes] of [["/crs/bn254_g1.dat", testCrs.g1], ["/crs/bn254_g2.dat", testCrs.g2]] as const) {
        const answer = yield* get(path)
        expect(answer.status).toBe(200)
        expect(answer.body).toEqual(bytes)
        expect(answer.headers.get("content-type")).toBe("application/octet-stream")
        expect(answer.headers.get("content-length")).toBe(String(bytes.length))
        expect(answer.headers.get("etag")).toBe(etagOf(bytes))
        expect(answer.headers.get("cache-control")).toBe("public, max-age=86400")
      }
    }))

  it.effect("If-None-Match naming the ETag (strong, weak, in a list, or *) is 304 without a body; another ETag is the file", () =>
    Effect.gen(function*() {
      const etag = etagOf(testCrs.g1)
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const answer = yield* get("/crs/bn254_g1.dat", { "if-none-match": ifNoneMatch })
        expect(answer.status, ifNoneMatch).toBe(304)
        expect(answer.body).toHaveLength(0)
        expect(answer.headers.get("etag")).toBe(etag)
        expect(answer.headers.get("cache-control")).toBe("public, max-age=86400")
      }
      const changed = yield* get("/crs/bn254_g1.dat", { "if-none-match": etagOf(testCrs.g2) })
      expect(changed.status).toBe(200)
      expect(changed.body).toEqual(testCrs.g1)
    }))

  it.effect("HEAD answers the headers alone", () =>
    Effect.gen(function*() {
      const answer = yield* get("/crs/bn254_g1.dat", {}, "HEAD")
      expect(answer.status).toBe(200)
      expect(answer.body).toHaveLength(0)
      expect(answer.headers.get("content-length")).toBe(String(testCrs.g1.length))
      expect(answer.headers.get("etag")).toBe(etagOf(testCrs.g1))
    }))

  it.effect("the OpenAPI document declares both routes: the file, 304 and 404", () =>
    Effect.gen(function*() {
      const answer = yield* get("/openapi.json")
      const paths = JSON.parse(new TextDecoder().decode(answer.body)).paths
      for (const path of ["/crs/bn254_g1.dat", "/crs/bn254_g2.dat"]) {
        const responses = paths[path].get.responses
        expect(Object.keys(responses["200"].content)).toEqual(["application/octet-stream"])
        expect(responses["304"]).toBeDefined()
        expect(responses["404"]).toBeDefined()
        expect(paths[path].get.security).toEqual([])
      }
    }))
})

layer(TestAppLive())("GET /crs/* without a CRS (the default set-up: testnet, nothing in DATA_DIR/crs)", (it) => {
  it.effect("the service starts, and each file is 404 {error} saying the CRS is not installed and how to make one", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      for (const path of ["/crs/bn254_g1.dat", "/crs/bn254_g2.dat"]) {
        const response = yield* Effect.promise(() => fetch(`${app.url}${path}`))
        expect(response.status).toBe(404)
        expect(response.headers.get("cache-control")).toBe("no-store")
        const body = yield* Effect.promise(() => response.json() as Promise<{ _tag: string; error: string }>)
        expect(body._tag).toBe("NotFound")
        expect(body.error).toMatch(/the proving CRS is not installed on this service: npm run crs puts one in CRS_DIR/)
      }
    }))
})

/** writeCrsDir is how `npm run crs` installs one: what it writes is what the service reads. */
describe("a CRS written by npm run crs's own writer", () => {
  it.effect("is read back as it was written", () =>
    Effect.gen(function*() {
      const dir = Path.join(root, "written")
      writeCrsDir(dir, testCrs)
      const read = yield* under({ CRS_DIR: dir, NETWORK_PASSPHRASE: STANDALONE_PASSPHRASE })(CrsConfig)
      expect(Option.map(read.installed, (crs) => crs.g2.bytes)).toEqual(Option.some(testCrs.g2))
    }))
})
