// What the framework-free baselines (bench/baseline.ts, bench/reads-baseline.ts) share: settings from the environment,
// the database (a pg Pool on a server, or a private embedded cluster started as the service starts its own), JSON
// bodies, Bearer HS256 sessions checked with node:crypto, and a node:http server of plain route functions.
import { Effect, Exit, Redacted, Scope } from "effect"
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"
import { startEmbedded } from "../src/EmbeddedPostgres/Embedded.ts"
import { serveAsChild } from "./support.ts"

export const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is not set`)
  return value
}

export const MAX_BODY_BYTES = 256 * 1024

export class HttpError extends Error {
  readonly status: number
  readonly extra: Record<string, unknown>
  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message)
    this.status = status
    this.extra = extra
  }
}

/**
 * A pg Pool on BASELINE_DATABASE_URL, or on a database `baseline` of a private embedded PostgreSQL cluster in
 * BASELINE_DATA_DIR/pg (the service's own embedded start, durable as the service's); 10 connections, pg's default, as the service's. An idle
 * connection the server ends (the embedded cluster stopping, say) is no request's failure: pg reports it on the pool.
 */
export const openDatabase = async (label: string): Promise<{ pool: pg.Pool; close: () => Promise<void> }> => {
  const url = process.env.BASELINE_DATABASE_URL
  const opened = await (async () => {
    if (url !== undefined && url !== "") {
      const pool = new pg.Pool({ connectionString: url, max: 10 })
      return { pool, close: () => pool.end() }
    }
    const scope = Effect.runSync(Scope.make())
    const cluster = await Effect.runPromise(
      startEmbedded({ dataDir: env("BASELINE_DATA_DIR"), durable: true, maxConnections: 40 }).pipe(Scope.extend(scope))
    )
    const server = { host: cluster.host, port: cluster.port, user: cluster.username, password: Redacted.value(cluster.password) }
    // A database of its own: the cluster's `postgres` database comes with the service's schema when it was copied from
    // the install's migrated template (src/EmbeddedPostgres/FirstStart.ts), and the baseline makes its own tables.
    const admin = new pg.Client({ ...server, database: cluster.database })
    await admin.connect()
    try {
      await admin.query("CREATE DATABASE baseline")
    } finally {
      await admin.end()
    }
    const pool = new pg.Pool({ ...server, database: "baseline", max: 10 })
    return {
      pool,
      close: async () => {
        await pool.end()
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }
  })()
  opened.pool.on("error", (error) => console.error(`${label}: an idle database connection ended: ${error.message}`))
  return opened
}

/** Bench set-up only: `sub` creates its organization and becomes its owner, as POST /orgs does in the service. */
export const insertOrg = async (pool: pg.Pool, sub: string, name: string): Promise<{ readonly id: string }> => {
  const id = randomUUID()
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    await client.query("INSERT INTO orgs (id, name, created_by) VALUES ($1, $2, $3)", [id, name, sub])
    await client.query("INSERT INTO org_members (org_id, user_sub, role) VALUES ($1, $2, 'owner')", [id, sub])
    await client.query("COMMIT")
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
  return { id }
}

const reply = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text)
}

/** A JSON object body: a JSON media type (or none), at most 256 KiB, parsed. */
export const readJson = (req: IncomingMessage): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const type = (req.headers["content-type"] ?? "").toLowerCase()
    if (type !== "" && !/^application\/([a-z0-9.+-]+\+)?json\b/.test(type)) {
      req.resume()
      return reject(new HttpError(415, "request bodies must be application/json"))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on("error", () => reject(new HttpError(400, "could not read the request body")))
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return reject(new HttpError(413, "request body too large"))
      try {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object")
        resolve(body as Record<string, unknown>)
      } catch {
        reject(new HttpError(400, "malformed JSON body"))
      }
    })
  })

/**
 * The claims of a Bearer HS256 JWT: signature (constant-time), algorithm, issuer, expiry and subject checked here;
 * `check` throws on whatever else the caller requires of the claims.
 */
export const authenticate = <A>(
  req: IncomingMessage,
  secret: Buffer,
  issuer: string,
  check: (claims: Record<string, unknown> & { readonly sub: string }) => A
): A => {
  const header = req.headers.authorization ?? ""
  const token = header.startsWith("Bearer ") ? header.slice(7) : ""
  const parts = token.split(".")
  if (parts.length !== 3) throw new HttpError(401, "missing bearer token")
  const [head, payload, signature] = parts as [string, string, string]
  const expected = createHmac("sha256", secret).update(`${head}.${payload}`).digest()
  const given = Buffer.from(signature, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new HttpError(401, "invalid session token")
  try {
    const alg = JSON.parse(Buffer.from(head, "base64url").toString("utf8")).alg
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
    if (alg !== "HS256" || claims.iss !== issuer) throw new Error("wrong token")
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now()) throw new Error("expired")
    if (typeof claims.sub !== "string" || claims.sub === "") throw new Error("claims")
    return check(claims)
  } catch {
    throw new HttpError(401, "invalid session token")
  }
}

/**
 * Serves `routes` ("METHOD /path" → handler; the query string is the handler's) on a loopback port as a bench child:
 * a handler's value is a 200, an HttpError its status, anything else a 500 (the first one logged in full).
 */
export const serveRoutes = async (
  label: string,
  routes: Record<string, (req: IncomingMessage) => Promise<unknown>>,
  close: () => Promise<void>
): Promise<void> => {
  let failures = 0
  const http = createServer((req, res) => {
    const route = routes[`${req.method} ${(req.url ?? "").split("?")[0]}`]
    if (route === undefined) return reply(res, 404, { error: "not found" })
    route(req).then(
      (body) => reply(res, 200, body),
      (error: unknown) => {
        if (error instanceof HttpError) return reply(res, error.status, { error: error.message, ...error.extra })
        if (failures++ === 0) console.error(`${label}: unexpected failure`, error)
        reply(res, 500, { error: "internal error" })
      }
    )
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  serveAsChild(`http://127.0.0.1:${port}`, async () => {
    await new Promise<void>((resolve) => {
      http.close(() => resolve())
      http.closeAllConnections()
    })
    await close()
  })
}
