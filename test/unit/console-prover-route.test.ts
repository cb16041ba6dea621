import { HttpApi, HttpApiBuilder, HttpServer } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { gunzipSync, gzipSync } from "node:zlib"
import { ConsoleRoute } from "../../src/Console/ConsoleRoute.ts"
import { CONTENT_SECURITY_POLICY } from "../../src/Console/ConsolePolicy.ts"

/** The console's route alone, on an empty Api; `prover` holds (or not) a built prover, as dist/prover. */
const serve = (console: string, prover: string) =>
  HttpApiBuilder.toWebHandler(
    Layer.mergeAll(
      HttpApiBuilder.api(HttpApi.make("empty")),
      ConsoleRoute(console, prover).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))),
      HttpServer.layerContext
    )
  )

const WORKER = `import "./chunk-AB12CD34.js"; postMessage("the prover")`.repeat(20)
const WASM = new Uint8Array(4096).fill(7)
const BB_WASM = gzipSync(new Uint8Array(4096).fill(9))
const MANIFEST = JSON.stringify({ commit: "8af46e2c", circuits: {} })

const built = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await mkdtemp(Path.join(tmpdir(), "prover-"))
    await mkdir(Path.join(dir, "prover", "circuits"), { recursive: true })
    await mkdir(Path.join(dir, "console"))
    await writeFile(Path.join(dir, "prover", "prover-worker.js"), WORKER)
    await writeFile(Path.join(dir, "prover", "chunk-AB12CD34.js"), "export const chunk = 1")
    await writeFile(Path.join(dir, "prover", "acvm_js_bg.wasm"), WASM)
    await writeFile(Path.join(dir, "prover", "barretenberg.wasm.gz"), BB_WASM)
    await writeFile(Path.join(dir, "prover", "circuits", "manifest.json"), MANIFEST)
    await writeFile(Path.join(dir, "prover", "not served"), "a name the build never writes")
    await writeFile(Path.join(dir, "secret.txt"), "not served")
    return dir
  }),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const get = (web: ReturnType<typeof serve>, path: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await web.handler(new Request(`http://console.test${path}`, { headers }))
    return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) }
  })

const WORKER_CSP = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")

describe("the browser prover's route (/app/prover/)", () => {
  it.scoped("answers the built files by name, each with the worker's policy and cross-origin isolation", () =>
    Effect.gen(function*() {
      const dir = yield* built
      const web = serve(Path.join(dir, "console"), Path.join(dir, "prover"))
      yield* Effect.addFinalizer(() => Effect.promise(web.dispose))
      const cases = [
        ["/app/prover/prover-worker.js", "text/javascript; charset=utf-8", "no-cache"],
        ["/app/prover/chunk-AB12CD34.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"],
        ["/app/prover/acvm_js_bg.wasm", "application/wasm", "no-cache"],
        ["/app/prover/barretenberg.wasm.gz", "application/gzip", "no-cache"],
        ["/app/prover/circuits/manifest.json", "application/json", "no-cache"]
      ] as const
      for (const [path, type, cache] of cases) {
        const answer = yield* get(web, path)
        expect([path, answer.status, answer.headers.get("content-type"), answer.headers.get("cache-control")]).toEqual([path, 200, type, cache])
        expect(answer.headers.get("content-security-policy")).toBe(WORKER_CSP)
        expect(answer.headers.get("cross-origin-embedder-policy")).toBe("require-corp")
        expect(answer.headers.get("cross-origin-opener-policy")).toBe("same-origin")
        expect(answer.headers.get("cross-origin-resource-policy")).toBe("same-origin")
        expect(answer.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/)
      }
      expect(WORKER_CSP).not.toBe(CONTENT_SECURITY_POLICY)
      expect(WORKER_CSP).not.toMatch(/'unsafe-eval'|https?:/)
    }))

  it.scoped("gzips scripts and wasm when asked, never bb's gzipped wasm; 304 while the ETag holds", () =>
    Effect.gen(function*() {
      const dir = yield* built
      const web = serve(Path.join(dir, "console"), Path.join(dir, "prover"))
      yield* Effect.addFinalizer(() => Effect.promise(web.dispose))
      const wasm = yield* get(web, "/app/prover/acvm_js_bg.wasm", { "accept-encoding": "gzip" })
      expect(wasm.headers.get("content-encoding")).toBe("gzip")
      expect(gunzipSync(wasm.body)).toEqual(Buffer.from(WASM))
      const bb = yield* get(web, "/app/prover/barretenberg.wasm.gz", { "accept-encoding": "gzip" })
      expect(bb.headers.get("content-encoding")).toBeNull()
      expect(bb.body).toEqual(new Uint8Array(BB_WASM))
      const etag = (yield* get(web, "/app/prover/prover-worker.js")).headers.get("etag") ?? ""
      const unchanged = yield* get(web, "/app/prover/prover-worker.js", { "if-none-match": `W/"other", ${etag}` })
      expect([unchanged.status, unchanged.body.length, unchanged.headers.get("etag")]).toEqual([304, 0, etag])
      expect((yield* get(web, "/app/prover/prover-worker.js", { "if-none-match": `"other"` })).status).toBe(200)
    }))

  it.scoped("answers 404 for any other name, and never reaches outside the folder", () =>
    Effect.gen(function*() {
      const dir = yield* built
      const web = serve(Path.join(dir, "console"), Path.join(dir, "prover"))
      yield* Effect.addFinalizer(() => Effect.promise(web.dispose))
      for (const path of [
        "/app/prover/missing.js",
        "/app/prover/not%20served",
        "/app/prover/circuits",
        "/app/prover/circuits/",
        "/app/prover/..%2fsecret.txt",
        "/app/prover/circuits/..%2f..%2fsecret.txt"
      ]) {
        const answer = yield* get(web, path)
        expect([path, answer.status]).toEqual([path, 404])
        expect(answer.headers.get("content-security-policy")).toBe(WORKER_CSP)
        expect(new TextDecoder().decode(answer.body)).not.toContain("not served")
      }
    }))

  it.scoped("answers 501 naming the missing build while dist/prover is not there, and picks up a later build", () =>
    Effect.gen(function*() {
      const dir = yield* built
      const later = Path.join(dir, "later")
      const web = serve(Path.join(dir, "console"), later)
      yield* Effect.addFinalizer(() => Effect.promise(web.dispose))
      const missing = yield* get(web, "/app/prover/prover-worker.js")
      expect(missing.status).toBe(501)
      expect(JSON.parse(new TextDecoder().decode(missing.body)).error).toMatch(/the browser prover is not built: .*prover-worker\.js is missing \(npm run build/)
      yield* Effect.promise(async () => {
        await mkdir(later)
        await writeFile(Path.join(later, "prover-worker.js"), WORKER)
      })
      expect((yield* get(web, "/app/prover/prover-worker.js")).status).toBe(200)
    }))
})
