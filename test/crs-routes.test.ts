// The proving CRS: Aztec Ignition's prefix as the project carries it (client/crs), the one rule the service starts by
// and the client proves by (src/Domain/Crs.ts), CRS_DIR, and GET /crs/*.
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { type Config, ConfigProvider, Effect, Either } from "effect"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import * as ClientCrs from "../client/src/confidential/proving/Crs.ts"
import { BUNDLED_CRS_DIR, G1_FILE, G2_FILE } from "../client/src/confidential/proving/CrsFiles.ts"
import { BUNDLED_CRS_DIR as SERVICE_CRS_DIR, CrsConfig } from "../src/Crs/Config.ts"
import * as DomainCrs from "../src/Domain/Crs.ts"
import { EverySetting } from "../src/Server/Settings.ts"
import { runToExit } from "./support/Spawned.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

const ignition = {
  g1: new Uint8Array(readFileSync(Path.join(BUNDLED_CRS_DIR, G1_FILE))),
  g2: new Uint8Array(readFileSync(Path.join(BUNDLED_CRS_DIR, G2_FILE)))
}

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

const flipped = (bytes: Uint8Array, bit: number) => {
  const copy = Uint8Array.from(bytes)
  copy[bit >> 3] = copy[bit >> 3]! ^ (1 << (bit & 7))
  return copy
}

const under = (settings: Readonly<Record<string, string>>) => <A>(config: Config.Config<A>) =>
  Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(settings))))

const refusal = <A>(config: Config.Config<A>, settings: Readonly<Record<string, string>>) =>
  Effect.map(Effect.flip(under(settings)(config)), String)

const etagOf = (bytes: Uint8Array) => `"${createHash("sha256").update(bytes).digest("hex")}"`

/** Byte equality of two large arrays in one comparison (vitest's toEqual walks 2 MiB element by element, for seconds). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)

const verdict = (crs: DomainCrs.CrsBytes) => Either.match(DomainCrs.checkCrs(crs), { onLeft: ({ reason }) => reason, onRight: () => "ignition" })

describe("the project's copy of Aztec Ignition's CRS (client/crs)", () => {
  it("holds the pinned prefix: 32,769 G1 points, the generator first, and Ignition's G2 point", () => {
    expect(ignition.g1.length).toBe(DomainCrs.IGNITION_POINTS * 64)
    expect(createHash("sha256").update(ignition.g1).digest("hex")).toBe(DomainCrs.IGNITION_G1_SHA256)
    expect(createHash("sha256").update(ignition.g2).digest("hex")).toBe(ClientCrs.IGNITION_G2_SHA256)
    expect(ignition.g1.subarray(0, 64)).toEqual(Uint8Array.from({ length: 64 }, (_, i) => (i === 31 ? 1 : i === 63 ? 2 : 0)))
    // The service and the client find the same directory.
    expect(SERVICE_CRS_DIR).toBe(BUNDLED_CRS_DIR)
  })
})

describe("the one CRS rule (src/Domain/Crs.ts), which the service starts by and the client proves by", () => {
  it.effect("takes Ignition's prefix, and a longer Ignition G1 file cut to the prefix; the client's Effect agrees", () =>
    Effect.gen(function*() {
      const longer = new Uint8Array(ignition.g1.length + 2 * 64)
      longer.set(ignition.g1)
      for (const crs of [ignition, { g1: longer, g2: ignition.g2 }]) {
        const checked = yield* ClientCrs.checkCrs(crs)
        expect(checked.points).toBe(DomainCrs.IGNITION_POINTS)
        expect(same(checked.g1, ignition.g1)).toBe(true)
        expect(verdict(crs)).toBe("ignition")
      }
    }))

  it.effect("refuses any single flipped bit in either file, a short file and files not in bb's layout, naming the file", () =>
    Effect.gen(function*() {
      const g1Bits = ignition.g1.length * 8
      fc.assert(fc.property(fc.integer({ min: 0, max: g1Bits + 128 * 8 - 1 }), (bit) => {
        const crs = bit < g1Bits ? { g1: flipped(ignition.g1, bit), g2: ignition.g2 } : { g1: ignition.g1, g2: flipped(ignition.g2, bit - g1Bits) }
        // node:crypto's SHA-256, as the service hashes (the browser's noble is the client's Effect, checked above).
        const refused = DomainCrs.checkCrs(crs, (bytes) => createHash("sha256").update(bytes).digest("hex"))
        return Either.isLeft(refused) && refused.left.reason === "NotIgnition" &&
          refused.left.message.startsWith(bit < g1Bits ? "bn254_g1.dat (its first 32769 points" : "bn254_g2.dat is not Aztec Ignition's")
      }), { numRuns: Number(process.env["FUZZ_RUNS"] ?? 200) })
      expect(verdict({ g1: ignition.g1.subarray(0, 64 * 100), g2: ignition.g2 })).toBe("NotIgnition")
      expect(verdict({ g1: ignition.g1.subarray(0, 100), g2: ignition.g2 })).toBe("Malformed")
      expect(verdict({ g1: ignition.g1, g2: ignition.g2.subarray(0, 64) })).toBe("Malformed")
      const both = yield* Effect.flip(ClientCrs.checkCrs({ g1: flipped(ignition.g1, 9), g2: flipped(ignition.g2, 9) }))
      expect(both.message).toMatch(/^bn254_g1\.dat .* and bn254_g2\.dat are not Aztec Ignition's/)
    }))
})

describe("CRS_DIR, read and checked with the other settings before the database starts", () => {
  it.effect("by default the project's own copy, read once for both reads of the start", () =>
    Effect.gen(function*() {
      const read = yield* under({})(CrsConfig)
      expect(read.dir).toBe(BUNDLED_CRS_DIR)
      expect(read.installed.points).toBe(DomainCrs.IGNITION_POINTS)
      expect(read.installed.g1.etag).toBe(`"${DomainCrs.IGNITION_G1_SHA256}"`)
      expect(yield* under({})(CrsConfig)).toEqual(read)
    }))

  it.effect("an operator's own copy of Ignition's files, a longer G1 file among them, served as the prefix", () =>
    Effect.gen(function*() {
      const longer = new Uint8Array(ignition.g1.length + 64)
      longer.set(ignition.g1)
      const dir = crsDir({ [G1_FILE]: longer, [G2_FILE]: ignition.g2 })
      const read = yield* under({ CRS_DIR: dir })(CrsConfig)
      expect(same(read.installed.g1.bytes, ignition.g1)).toBe(true)
      expect(read.installed.g2.etag).toBe(etagOf(ignition.g2))
    }))

  it.effect("another CRS, a missing file, an empty directory, an unreadable file: refused naming CRS_DIR, with the other refusals", () =>
    Effect.gen(function*() {
      const other = crsDir({ [G1_FILE]: flipped(ignition.g1, 1000), [G2_FILE]: ignition.g2 })
      expect(yield* refusal(CrsConfig, { CRS_DIR: other })).toContain(`CRS_DIR (${other}): bn254_g1.dat (its first 32769 points, sha256 ${DomainCrs.IGNITION_G1_SHA256}) is not Aztec Ignition's`)
      const half = crsDir({ [G1_FILE]: ignition.g1 })
      expect(yield* refusal(CrsConfig, { CRS_DIR: half })).toContain(`CRS_DIR (${half}): there is no bn254_g2.dat`)
      const empty = crsDir({})
      expect(yield* refusal(CrsConfig, { CRS_DIR: empty })).toContain(`CRS_DIR (${empty}): there is no bn254_g1.dat`)
      const folder = crsDir({ [G2_FILE]: ignition.g2 })
      mkdirSync(Path.join(folder, G1_FILE))
      expect(yield* refusal(CrsConfig, { CRS_DIR: folder })).toContain(`CRS_DIR (${folder}): bn254_g1.dat cannot be read`)
      const all = yield* refusal(EverySetting, { CRS_DIR: other, HOST: "not a host!", WEBHOOK_MAX_ATTEMPTS: "0" })
      for (const why of ["HOST is not an IP address or a host name", "WEBHOOK_MAX_ATTEMPTS must be from 1 to 50", "CRS_DIR ("]) {
        expect(all).toContain(why)
      }
    }))

  it.live("`npm start` with another CRS stops at once: one fatal line naming CRS_DIR, before any database", () =>
    Effect.gen(function*() {
      const other = crsDir({ [G1_FILE]: ignition.g1, [G2_FILE]: flipped(ignition.g2, 3) })
      // A DATABASE_URL nothing listens on: the settings are refused before any connection.
      const { code, lines, output } = yield* runToExit({ LOG_FORMAT: "json", CRS_DIR: other, DATABASE_URL: "postgres://127.0.0.1:1/none" })
      expect(code).toBe(1)
      expect(lines, output).toHaveLength(1)
      const record = JSON.parse(lines[0]!)
      expect(record.level).toBe("fatal")
      expect(record.message).toMatch(/^cannot start: CRS_DIR \(.+\): bn254_g2\.dat is not Aztec Ignition's/)
    }), 60_000)
})

layer(TestAppLive())("GET /crs/* (the default set-up: the project's own copy of Ignition's files)", (it) => {
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    Effect.flatMap(TestApp, (app) =>
      Effect.promise(async () => {
        const response = await fetch(`${app.url}${path}`, { method, headers })
        return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) }
      }))

  it.effect("each file's bytes as they are on disk, as application/octet-stream, with its length, ETag and a day's caching", () =>
    Effect.gen(function*() {
      for (const [path, bytes] of [["/crs/bn254_g1.dat", ignition.g1], ["/crs/bn254_g2.dat", ignition.g2]] as const) {
        const answer = yield* get(path)
        expect(answer.status).toBe(200)
        expect(same(answer.body, bytes)).toBe(true)
        expect(answer.headers.get("content-type")).toBe("application/octet-stream")
        expect(answer.headers.get("content-length")).toBe(String(bytes.length))
        expect(answer.headers.get("etag")).toBe(etagOf(bytes))
        expect(answer.headers.get("cache-control")).toBe("public, max-age=86400")
      }
    }))

  it.effect("If-None-Match naming the ETag (strong, weak, in a list, or *) is 304 without a body; another ETag is the file", () =>
    Effect.gen(function*() {
      const etag = etagOf(ignition.g1)
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const answer = yield* get("/crs/bn254_g1.dat", { "if-none-match": ifNoneMatch })
        expect(answer.status, ifNoneMatch).toBe(304)
        expect(answer.body).toHaveLength(0)
        expect(answer.headers.get("etag")).toBe(etag)
        expect(answer.headers.get("cache-control")).toBe("public, max-age=86400")
      }
      const changed = yield* get("/crs/bn254_g1.dat", { "if-none-match": etagOf(ignition.g2) })
      expect(changed.status).toBe(200)
      expect(same(changed.body, ignition.g1)).toBe(true)
    }))

  it.effect("HEAD answers the headers alone", () =>
    Effect.gen(function*() {
      const answer = yield* get("/crs/bn254_g1.dat", {}, "HEAD")
      expect(answer.status).toBe(200)
      expect(answer.body).toHaveLength(0)
      expect(answer.headers.get("content-length")).toBe(String(ignition.g1.length))
      expect(answer.headers.get("etag")).toBe(etagOf(ignition.g1))
    }))

  it.effect("the OpenAPI document declares both routes, public: the file and 304", () =>
    Effect.gen(function*() {
      const answer = yield* get("/openapi.json")
      const paths = JSON.parse(new TextDecoder().decode(answer.body)).paths
      for (const path of ["/crs/bn254_g1.dat", "/crs/bn254_g2.dat"]) {
        const responses = paths[path].get.responses
        expect(Object.keys(responses["200"].content)).toEqual(["application/octet-stream"])
        expect(responses["304"]).toBeDefined()
        expect(paths[path].get.security).toEqual([])
      }
    }))
})
