// Where the CLI keeps what outlives one command: the sessions (`sessions.json`, 0600) and each wallet's sealed openings
// (`wallets/`), in `$XDG_CONFIG_HOME/payroll` or `~/.config/payroll` (0700). Secrets are read, never stored.
import { Keypair } from "@stellar/stellar-sdk"
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { usage } from "./Failure.ts"

export const configDir = (): string => {
  const xdg = process.env.XDG_CONFIG_HOME
  return join(xdg !== undefined && xdg !== "" ? xdg : join(homedir(), ".config"), "payroll")
}

export const walletsDir = () => join(configDir(), "wallets")

const ensureDir = () => {
  const dir = configDir()
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  return dir
}

export interface StoredSession {
  readonly account: string
  readonly token: string
  readonly expiresAt: string
}

interface SessionsFile {
  /** The service the last sign-in was made at: the default when neither --service nor PAYROLL_SERVICE_URL is given. */
  readonly current?: string
  /** By service URL: the account signed in last, and each account's session. */
  readonly services: Record<string, { readonly current: string; readonly accounts: Record<string, StoredSession> }>
}

const sessionsPath = () => join(configDir(), "sessions.json")

const readSessions = (): SessionsFile => {
  try {
    const parsed = JSON.parse(readFileSync(sessionsPath(), "utf8")) as SessionsFile
    return typeof parsed === "object" && parsed !== null && typeof parsed.services === "object" ? parsed : { services: {} }
  } catch {
    return { services: {} }
  }
}

const writeSessions = (file: SessionsFile) => {
  const path = join(ensureDir(), "sessions.json")
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify(file, null, 2), { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
}

export const normalizeService = (url: string) => {
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error()
    return parsed.origin
  } catch {
    throw usage(`the service URL ${JSON.stringify(url)} is not an http(s) URL: pass --service https://…`)
  }
}

/** --service, else PAYROLL_SERVICE_URL, else where the last sign-in was made. */
export const serviceUrl = (option: string | undefined): string => {
  const given = option ?? process.env.PAYROLL_SERVICE_URL
  if (given !== undefined && given !== "") return normalizeService(given)
  const current = readSessions().current
  if (current !== undefined) return current
  throw usage("no service: pass --service <url> or set PAYROLL_SERVICE_URL")
}

export const storedSession = (service: string, account?: string): StoredSession | undefined => {
  const entry = readSessions().services[service]
  const session = entry?.accounts[account ?? entry.current]
  return session !== undefined && Date.parse(session.expiresAt) > Date.now() + 30_000 ? session : undefined
}

export const saveSession = (service: string, session: StoredSession) => {
  const file = readSessions()
  const entry = file.services[service]
  writeSessions({
    current: service,
    services: { ...file.services, [service]: { current: session.account, accounts: { ...entry?.accounts, [session.account]: session } } }
  })
}

/** Forgets the service's sessions (all of them, or one account's); how many were forgotten. */
export const forgetSessions = (service: string, account?: string): number => {
  const file = readSessions()
  const entry = file.services[service]
  if (entry === undefined) return 0
  const { [service]: _dropped, ...others } = file.services
  if (account === undefined) {
    writeSessions({ ...(file.current === service ? {} : { current: file.current }), services: others })
    return Object.keys(entry.accounts).length
  }
  const { [account]: gone, ...rest } = entry.accounts
  writeSessions({ ...file, services: { ...others, [service]: { current: entry.current, accounts: rest } } })
  return gone === undefined ? 0 : 1
}

/** A file holding a secret, refused when anyone but its owner may read or write it. */
const readPrivateFile = (path: string, what: string): string => {
  let mode: number
  try {
    mode = statSync(path).mode
  } catch {
    throw usage(`cannot read ${what} ${path}: check the path`)
  }
  if ((mode & 0o077) !== 0) throw usage(`${what} ${path} is readable by others (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${path}`)
  return readFileSync(path, "utf8").trim()
}

/** The account's key: --secret-file, else PAYROLL_SECRET; undefined when neither is given. */
export const readSecret = (secretFile: string | undefined): Keypair | undefined => {
  const secret = secretFile !== undefined ? readPrivateFile(secretFile, "the secret file") : process.env.PAYROLL_SECRET
  if (secret === undefined || secret === "") return undefined
  try {
    return Keypair.fromSecret(secret)
  } catch {
    throw usage(`${secretFile !== undefined ? `the secret file ${secretFile}` : "PAYROLL_SECRET"} does not hold a Stellar secret key (S…)`)
  }
}

export const readApiKey = (apiKeyFile: string | undefined): string | undefined =>
  apiKeyFile === undefined ? undefined : readPrivateFile(apiKeyFile, "the API key file")
