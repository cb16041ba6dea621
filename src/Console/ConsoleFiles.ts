import { Effect, Option } from "effect"
import { readdir, readFile } from "node:fs/promises"
import * as Path from "node:path"
import { gzip } from "node:zlib"

/** One file of the built console, as it is answered. */
export interface ConsoleFile {
  readonly body: Uint8Array
  readonly contentType: string
  /** Its gzip form, made when the files are read (text only: fonts and images are compressed already). */
  readonly gzipped: Option.Option<Uint8Array>
}

/** The console as `vite build` leaves it: `index.html` and the hashed files of `assets/`. */
export interface ConsoleFiles {
  readonly index: ConsoleFile
  /** By file name: the only names `/app/assets/…` can answer, so no request path ever reaches the file system. */
  readonly assets: ReadonlyMap<string, ConsoleFile>
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
  ".png": "image/png",
  ".json": "application/json",
  ".wasm": "application/wasm",
  // bb.js fetches its wasm gzipped and gunzips it itself: sent as it is, never with a Content-Encoding.
  ".gz": "application/gzip"
}

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".wasm"])

/** A name vite gives an asset (`index-BZUt2yjS.js`): nothing else in `assets/` is served. */
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.[a-z0-9]+$/

export const fileOf = (body: Uint8Array, name: string): Effect.Effect<ConsoleFile> => {
  const extension = Path.extname(name)
  const compressed = COMPRESSIBLE.has(extension)
    ? Effect.async<Option.Option<Uint8Array>>((resume) =>
      gzip(body, { level: 9 }, (error, result) => resume(Effect.succeed(error === null ? Option.some(new Uint8Array(result)) : Option.none())))
    )
    : Effect.succeedNone
  return Effect.map(compressed, (gzipped) => ({
    body,
    contentType: TYPES[extension] ?? "application/octet-stream",
    gzipped
  }))
}

/** Reads the built console in `dir`; fails when it is not there (not built, or built elsewhere). */
export const loadConsoleFiles = (dir: string) =>
  Effect.tryPromise({
    try: async () => {
      const index = await readFile(Path.join(dir, "index.html"))
      const names = (await readdir(Path.join(dir, "assets"), { withFileTypes: true }))
        .filter((entry) => entry.isFile() && ASSET_NAME.test(entry.name))
        .map((entry) => entry.name)
      const bodies = await Promise.all(names.map(async (name) => [name, await readFile(Path.join(dir, "assets", name))] as const))
      return { index, bodies }
    },
    catch: (cause) => cause
  }).pipe(
    Effect.flatMap(({ index, bodies }) =>
      Effect.all({
        index: fileOf(index, "index.html"),
        assets: Effect.map(
          Effect.forEach(bodies, ([name, body]) => Effect.map(fileOf(body, name), (file) => [name, file] as const), {
            concurrency: "unbounded"
          }),
          (entries) => new Map(entries)
        )
      })
    )
  )
