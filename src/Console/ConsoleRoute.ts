import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option, Ref } from "effect"
import { existsSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ConsoleConfig } from "../Config.ts"
import { errorResponse } from "../Http/ErrorBody.ts"
import { type ConsoleFile, type ConsoleFiles, loadConsoleFiles } from "./ConsoleFiles.ts"
import { ASSET_CACHE, CONSOLE_HEADERS, INDEX_CACHE } from "./ConsolePolicy.ts"

/**
 * Where `npm run build` puts the console (console/vite.config.ts). Two levels under the repository, from this module
 * as from the server bundle that holds it (dist/server/launch.mjs).
 */
export const CONSOLE_DIR = fileURLToPath(new URL("../../dist/console", import.meta.url))

const where = (dir: string) => Path.relative(process.cwd(), Path.join(dir, "index.html")) || Path.join(dir, "index.html")

const notBuilt = (dir: string) =>
  `the web console is not built: ${where(dir)} is missing (npm run build, or npm install, builds it into ${Path.relative(process.cwd(), dir) || dir})`

const withConsoleHeaders = (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.setHeaders(response, CONSOLE_HEADERS)

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const ASSETS = /^\/app\/assets\//i

/**
 * `/app` and everything under it: the hashed files of `/app/assets/` (cached for a year), and for any other path
 * `index.html` (never cached), so that every page of the console is an address of its own (client-side routing).
 */
const answer = (files: ConsoleFiles) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const path = pathOf(request.url)
    const asset = ASSETS.test(path)
    const file: ConsoleFile | undefined = asset ? files.assets.get(path.replace(ASSETS, "")) : files.index
    if (file === undefined) return withConsoleHeaders(errorResponse(404, "no such file in the web console"))
    const gzipped = /\bgzip\b/i.test(request.headers["accept-encoding"] ?? "") ? file.gzipped : Option.none()
    return HttpServerResponse.uint8Array(Option.getOrElse(gzipped, () => file.body), {
      contentType: file.contentType,
      headers: {
        ...CONSOLE_HEADERS,
        "cache-control": asset ? ASSET_CACHE : INDEX_CACHE,
        vary: "accept-encoding",
        ...(Option.isSome(gzipped) ? { "content-encoding": "gzip" } : {})
      }
    })
  })

/**
 * The web console at `/app` (console/), unless `CONSOLE=false`. Its files are read (and gzipped) in the background as
 * the service starts, or on the first request, and kept; while they are missing, `/app` answers 501 saying so (the
 * start log says it too), and a later build is picked up without a restart. Not part of the HttpApi contract, so not
 * in the OpenAPI document: these are pages, not an API.
 */
export const ConsoleRoute = (dir: string = CONSOLE_DIR) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const { enabled } = yield* ConsoleConfig
    if (!enabled) return Layer.empty
    if (!existsSync(Path.join(dir, "index.html"))) yield* Effect.logWarning(`${notBuilt(dir)}; /app answers 501 until then`)
    return HttpApiBuilder.Router.use((router) =>
      Effect.gen(function*() {
        const loaded = yield* Ref.make(Option.none<ConsoleFiles>())
        const files = Effect.flatMap(Ref.get(loaded), (known) =>
          Option.isSome(known)
            ? Effect.succeed(known.value)
            : Effect.tap(loadConsoleFiles(dir), (found) => Ref.set(loaded, Option.some(found))))
        yield* Effect.forkScoped(Effect.ignore(files))
        const handler = files.pipe(
          Effect.flatMap(answer),
          Effect.catchAll(() => Effect.succeed(withConsoleHeaders(errorResponse(501, notBuilt(dir)))))
        )
        for (const path of ["/app", "/app/*"] as const) {
          yield* router.get(path, handler)
          yield* router.head(path, handler)
        }
      })
    )
  }))
