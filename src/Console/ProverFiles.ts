import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readdir, readFile } from "node:fs/promises"
import * as Path from "node:path"
import { type ConsoleFile, fileOf } from "./ConsoleFiles.ts"

/** One file of the browser prover, as it is answered. */
export interface ProverFile extends ConsoleFile {
  /** `"<sha256 of the body, hex>"`, quotes included. */
  readonly etag: string
  /** Its name carries a hash of its content (esbuild's `name-HASH.js` chunks): cached for good. */
  readonly hashed: boolean
}

/**
 * The prover as scripts/build-prover.ts leaves it (dist/prover): the worker and its chunks, bb.js's worker scripts,
 * the wasm files and `circuits/`, by their path below the folder: the only names `/app/prover/…` can answer, so no
 * request path ever reaches the file system.
 */
export type ProverFiles = ReadonlyMap<string, ProverFile>

/** A file the build writes: a plain name, at the top or in `circuits/`. */
const PROVER_NAME = /^(circuits\/)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.[a-z0-9]+$/

/** esbuild's chunk names: `[name]-[hash]`, the hash 8 characters of base32. */
const HASHED = /-[A-Z0-9]{8}\.js$/

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** Reads the prover in `dir`; fails when it is not there (not built, or built elsewhere). */
export const loadProverFiles = (dir: string): Effect.Effect<ProverFiles, unknown> =>
  Effect.tryPromise({
    try: async () => {
      const entries = await readdir(dir, { recursive: true, withFileTypes: true })
      const names = entries
        .filter((entry) => entry.isFile())
        .map((entry) => Path.relative(dir, Path.join(entry.parentPath, entry.name)).split(Path.sep).join("/"))
        .filter((name) => PROVER_NAME.test(name))
      if (!names.includes("prover-worker.js")) throw new Error(`${dir} has no prover-worker.js`)
      return Promise.all(names.map(async (name) => [name, new Uint8Array(await readFile(Path.join(dir, name)))] as const))
    },
    catch: (cause) => cause
  }).pipe(
    Effect.flatMap((bodies) =>
      Effect.forEach(bodies, ([name, body]) =>
        Effect.map(fileOf(body, name), (file) => [name, { ...file, etag: `"${sha256(body)}"`, hashed: HASHED.test(name) }] as const), {
        concurrency: "unbounded"
      })
    ),
    Effect.map((entries) => new Map(entries))
  )
