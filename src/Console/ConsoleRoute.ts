import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Layer, Option, Ref } from "effect"
import { existsSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ConsoleConfig } from "../Config.ts"
import { errorResponse } from "../Http/ErrorBody.ts"
import { unchanged } from "../Http/IfNoneMatch.ts"
import { type ConsoleFile, type ConsoleFiles, loadConsoleFiles } from "./ConsoleFiles.ts"
import { ASSET_CACHE, CONSOLE_HEADERS, INDEX_CACHE, PROVER_HEADERS, REVALIDATED_CACHE } from "./ConsolePolicy.ts"
import { loadProverFiles, type ProverFile, type ProverFiles } from "./ProverFiles.ts"

/**
 * Where `npm run build` puts the console (console/vite.config.ts) and the browser prover (scripts/build-prover.ts).
 * Two levels under the repository, from this module as from the server bundle that holds it (dist/server/launch.mjs).
 */
export const CONSOLE_DIR = fileURLToPath(new URL("../../dist/console", import.meta.url))
export const PROVER_DIR = fileURLToPath(new URL("../../dist/prover", import.meta.url))

const shown = (path: string) => Path.relative(process.cwd(), path) || path

const notBuilt = (dir: string) =>
  `the web console is not built: ${shown(Path.join(dir, "index.html"))} is missing (npm run build, or npm install, builds it into ${shown(dir)})`

const proverNotBuilt = (dir: string) =>
  `the browser prover is not built: ${shown(Path.join(dir, "prover-worker.js"))} is missing (npm run build, or npm run build:prover, builds it into ${shown(dir)})`

const withConsoleHeaders = (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.setHeaders(response, CONSOLE_HEADERS)

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const ASSETS = /^\/app\/assets\//i
const PROVER = /^\/app\/prover\//i

type Request = HttpServerRequest.HttpServerRequest

const body = (request: Request, file: ConsoleFile) => {
  const gzipped = /\bgzip\b/i.test(request.headers["accept-encoding"] ?? "") ? file.gzipped : Option.none()
  return {
    bytes: Option.getOrElse(gzipped, () => file.body),
    headers: { vary: "accept-encoding", ...(Option.isSome(gzipped) ? { "content-encoding": "gzip" } : {}) }
  }
}

/**
 * `/app` and everything under it: the hashed files of `/app/assets/` (cached for a year), and for any other path
 * `index.html` (never cached), so that every page of the console is an address of its own (client-side routing).
 */
const answerConsole = (files: ConsoleFiles, request: Request, path: string) => {
  const asset = ASSETS.test(path)
  const file: ConsoleFile | undefined = asset ? files.assets.get(path.replace(ASSETS, "")) : files.index
  if (file === undefined) return withConsoleHeaders(errorResponse(404, "no such file in the web console"))
  const { bytes, headers } = body(request, file)
  return HttpServerResponse.uint8Array(bytes, {
    contentType: file.contentType,
    headers: { ...CONSOLE_HEADERS, "cache-control": asset ? ASSET_CACHE : INDEX_CACHE, ...headers }
  })
}

/**
 * `/app/prover/…`: the browser prover's files by their exact names, the worker's policy on each, a year's cache for
 * hashed names, a revalidation by ETag for the others.
 */
const answerProver = (files: ProverFiles, request: Request, path: string) => {
  const file: ProverFile | undefined = files.get(path.replace(PROVER, ""))
  if (file === undefined) return HttpServerResponse.setHeaders(errorResponse(404, "no such file in the browser prover"), PROVER_HEADERS)
  const cache = { "cache-control": file.hashed ? ASSET_CACHE : REVALIDATED_CACHE, etag: file.etag }
  if (unchanged(request.headers["if-none-match"], file.etag)) {
    return HttpServerResponse.empty({ status: 304, headers: { ...PROVER_HEADERS, ...cache } })
  }
  const { bytes, headers } = body(request, file)
  return HttpServerResponse.uint8Array(bytes, { contentType: file.contentType, headers: { ...PROVER_HEADERS, ...cache, ...headers } })
}

/**
 * The console's files are read and gzipped this long after the route is built rather than at once: done at once, the
 * reads and the level-9 gzip of its ~2 MB shared the CPU and libuv's pool with the start itself (its database
 * connections' address lookups among them). A request before then reads them itself.
 */
const PRELOAD_AFTER = Duration.seconds(3)

/** Files read once and kept; while they are missing each request tries again, so a later build is picked up. */
const kept = <A, E>(load: Effect.Effect<A, E>) =>
  Effect.map(Ref.make(Option.none<A>()), (loaded) =>
    Effect.flatMap(Ref.get(loaded), (known) =>
      Option.isSome(known) ? Effect.succeed(known.value) : Effect.tap(load, (found) => Ref.set(loaded, Option.some(found)))))

/**
 * The web console at `/app` (console/) and its browser prover at `/app/prover/` (dist/prover), unless
 * `CONSOLE=false`. The console's files are read (and gzipped) in the background once the service has started, or on
 * the first request, and kept; the prover's (about 10 MB) on the first request for one of them. While either is missing,
 * its paths answer 501 saying so (the start log says it for the console), and a later build is picked up without a
 * restart. Not part of the HttpApi contract, so not in the OpenAPI document: these are pages, not an API.
 */
export const ConsoleRoute = (dir: string = CONSOLE_DIR, proverDir: string = PROVER_DIR) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const { enabled } = yield* ConsoleConfig
    if (!enabled) return Layer.empty
    if (!existsSync(Path.join(dir, "index.html"))) yield* Effect.logWarning(`${notBuilt(dir)}; /app answers 501 until then`)
    return HttpApiBuilder.Router.use((router) =>
      Effect.gen(function*() {
        const consoleFiles = yield* kept(loadConsoleFiles(dir))
        const proverFiles = yield* kept(loadProverFiles(proverDir))
        yield* Effect.forkScoped(Effect.ignore(consoleFiles).pipe(Effect.delay(PRELOAD_AFTER)))
        const handler = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const path = pathOf(request.url)
          return PROVER.test(path)
            ? proverFiles.pipe(
              Effect.map((files) => answerProver(files, request, path)),
              Effect.catchAll(() => Effect.succeed(HttpServerResponse.setHeaders(errorResponse(501, proverNotBuilt(proverDir)), PROVER_HEADERS)))
            )
            : consoleFiles.pipe(
              Effect.map((files) => answerConsole(files, request, path)),
              Effect.catchAll(() => Effect.succeed(withConsoleHeaders(errorResponse(501, notBuilt(dir)))))
            )
        })
        for (const path of ["/app", "/app/*"] as const) {
          yield* router.get(path, handler)
          yield* router.head(path, handler)
        }
      })
    )
  }))
