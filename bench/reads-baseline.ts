// The read routes' baseline: GET /me and GET /contractors with no framework — plain node:http and a pg Pool —
// doing the service's per-request work the straightforward way:
//   verify the Bearer HS256 session JWT (node:crypto: constant-time signature, algorithm, issuer, expiry, claims);
//   GET /me: the same three SELECTs as src/Auth/Account.ts `me` for a wallet session (the membership,
//     src/Contractors/ContractorRepo.ts `linkedTo`, src/Contractors/InviteRepo.ts `findForClaimant`), the same JSON;
//   GET /contractors?limit=N: `limit` checked (1..100), the membership SELECT (403 without one), the keyset page of
//     src/Sql/KeysetPage.ts (limit + 1 rows, the same columns and ORDER BY), each row as the API's Contractor and the
//     next page's cursor (base64url of [createdAt ms, id]).
// The schema is the service's tables and indexes these queries touch (migrations/0001_init.ts, 0005), so that the
// database does the same work for both systems.
//
// Not meant to be run by hand: bench/reads.ts forks it with its settings in the environment (BASELINE_*).
import { randomUUID } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { authenticate as verifySession, env, HttpError, insertOrg, openDatabase, readJson, serveRoutes } from "./baseline-http.ts"

const config = {
  jwtSecret: Buffer.from(env("BASELINE_JWT_SECRET")),
  issuer: env("BASELINE_JWT_ISSUER")
}

// ---- database ----

const SCHEMA = [
  `CREATE TABLE orgs (id uuid PRIMARY KEY, name text NOT NULL, created_by text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE org_members (
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_sub text NOT NULL UNIQUE,
    role text NOT NULL CHECK (role IN ('owner', 'member')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, user_sub))`,
  `CREATE TABLE contractors (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name text NOT NULL,
    email text,
    address text,
    pvk text,
    auditor_id integer,
    status text NOT NULL CHECK (status IN ('invited', 'onboarding', 'ready', 'inactive')),
    rate jsonb CHECK (rate IS NULL OR rate->>'currency' = 'USDC'),
    user_sub text,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_paid_at timestamptz)`,
  `CREATE UNIQUE INDEX contractors_org_email ON contractors (org_id, lower(email)) WHERE email IS NOT NULL`,
  `CREATE UNIQUE INDEX contractors_org_address ON contractors (org_id, address) WHERE address IS NOT NULL`,
  `CREATE INDEX contractors_org_page ON contractors (org_id, created_at DESC, id DESC)`,
  `CREATE INDEX contractors_user ON contractors (user_sub) WHERE user_sub IS NOT NULL`,
  `CREATE INDEX contractors_address ON contractors (address) WHERE address IS NOT NULL`,
  `CREATE INDEX contractors_invited_email ON contractors (lower(email)) WHERE status = 'invited' AND email IS NOT NULL`,
  `CREATE TABLE invites (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    contractor_id uuid NOT NULL REFERENCES contractors (id) ON DELETE CASCADE,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by text,
    revoked_at timestamptz,
    derived boolean NOT NULL DEFAULT false)`,
  `CREATE INDEX invites_contractor ON invites (contractor_id)`
]

const database = await openDatabase("reads baseline")
const pool = database.pool
for (const statement of SCHEMA) await pool.query(statement)

// ---- HTTP plumbing ----

interface Session {
  readonly sub: string
  readonly method: string
  readonly email: string | undefined
}

const METHODS = new Set(["sep10", "privy"])

/** Bearer HS256 JWT: signature (constant-time), algorithm, issuer, expiry, the claims the service decodes. */
const authenticate = (req: IncomingMessage): Session =>
  verifySession(req, config.jwtSecret, config.issuer, (claims) => {
    if (typeof claims.iat !== "number" || typeof claims.jti !== "string" || claims.jti === "") throw new Error("claims")
    if (typeof claims.method !== "string" || !METHODS.has(claims.method)) throw new Error("claims")
    if (claims.email !== undefined && typeof claims.email !== "string") throw new Error("claims")
    return { sub: claims.sub, method: claims.method, email: claims.email }
  })

// ---- the routes ----

interface Membership {
  readonly org_id: string
  readonly org_name: string
  readonly role: string
}

const membership = async (sub: string): Promise<Membership | undefined> => {
  const { rows } = await pool.query<Membership>(
    `SELECT m.org_id, o.name AS org_name, m.role FROM org_members m JOIN orgs o ON o.id = m.org_id WHERE m.user_sub = $1`,
    [sub]
  )
  return rows[0]
}

const COLUMNS = "id, org_id, name, email, address, pvk, auditor_id, status, rate, user_sub, created_at, last_paid_at"

interface ContractorRow {
  readonly id: string
  readonly name: string
  readonly email: string | null
  readonly address: string | null
  readonly pvk: string | null
  readonly auditor_id: number | null
  readonly status: string
  readonly rate: { readonly amount: string; readonly currency: string } | null
  readonly created_at: Date
  readonly last_paid_at: Date | null
}

/** The API's Contractor: absent optional fields are left out, times are ISO strings. */
const contractorJson = (row: ContractorRow) => ({
  id: row.id,
  name: row.name,
  ...(row.email === null ? {} : { email: row.email }),
  ...(row.address === null ? {} : { address: row.address }),
  ...(row.pvk === null ? {} : { pvk: row.pvk }),
  ...(row.auditor_id === null ? {} : { auditorId: row.auditor_id }),
  status: row.status,
  ...(row.rate === null ? {} : { rate: row.rate }),
  createdAt: row.created_at.toISOString(),
  ...(row.last_paid_at === null ? {} : { lastPaidAt: row.last_paid_at.toISOString() })
})

const me = async (req: IncomingMessage): Promise<unknown> => {
  const session = authenticate(req)
  const member = await membership(session.sub)
  const linked = await pool.query<ContractorRow>(
    `SELECT ${COLUMNS} FROM contractors WHERE (user_sub = $1 OR address = $1) AND status <> 'inactive' ORDER BY created_at DESC LIMIT 20`,
    [session.sub]
  )
  const params: Array<unknown> = [new Date()]
  const claimant: Array<string> = []
  if (session.method === "sep10") claimant.push(`c.address = $${params.push(session.sub)}`)
  if (session.email !== undefined) claimant.push(`lower(c.email) = $${params.push(session.email.toLowerCase())}`)
  let invite: { readonly company: string } | undefined
  if (claimant.length > 0) {
    const found = await pool.query<{ org_name: string; invite_id: string | null }>(
      `SELECT c.org_id, o.name AS org_name, c.id AS contractor_id, i.id AS invite_id
       FROM contractors c
       JOIN orgs o ON o.id = c.org_id
       JOIN LATERAL (
         SELECT id FROM invites
         WHERE contractor_id = c.id AND derived AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $1
         ORDER BY created_at DESC LIMIT 1) i ON true
       WHERE c.status = 'invited' AND (${claimant.join(" OR ")})
       ORDER BY c.created_at, c.id LIMIT 1`,
      params
    )
    // The bench's wallets are employers, never invited: an invite found here is not turned into a token.
    if (found.rows[0] !== undefined) invite = { company: found.rows[0].org_name }
  }
  const roles = [...(member === undefined ? [] : ["employer"]), ...(linked.rows.length > 0 ? ["contractor"] : [])]
  const first = linked.rows[0]
  return {
    sub: session.sub,
    method: session.method,
    roles,
    needsOnboarding: roles.length === 0 && invite === undefined,
    ...(member === undefined ? {} : { employer: { orgId: member.org_id, orgName: member.org_name } }),
    ...(first === undefined ? {} : { contractor: { id: first.id, name: first.name } })
  }
}

const listContractors = async (req: IncomingMessage): Promise<unknown> => {
  const session = authenticate(req)
  const raw = new URL(req.url ?? "/", "http://x").searchParams.get("limit")
  const limit = raw === null ? 50 : Number(raw)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new HttpError(400, "limit must be 1 to 100")
  const member = await membership(session.sub)
  if (member === undefined) throw new HttpError(403, "this route needs an employer: create an organization first")
  const { rows } = await pool.query<ContractorRow>(
    `SELECT ${COLUMNS} FROM contractors WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [member.org_id, limit + 1]
  )
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    items: page.map(contractorJson),
    ...(rows.length > limit && last !== undefined
      ? { nextCursor: Buffer.from(JSON.stringify([last.created_at.getTime(), last.id])).toString("base64url") }
      : {})
  }
}

/** Bench set-up only: the signed-in account creates its organization, as POST /orgs in the service. */
const createOrg = async (req: IncomingMessage): Promise<unknown> => {
  const session = authenticate(req)
  const body = await readJson(req)
  return insertOrg(pool, session.sub, String(body.name ?? "org"))
}

/** Bench set-up only: `{rows: [{name, email, amount}]}` into the caller's directory, one INSERT, as the service's bulk import. */
const seedContractors = async (req: IncomingMessage): Promise<unknown> => {
  const session = authenticate(req)
  const body = await readJson(req)
  const member = await membership(session.sub)
  if (member === undefined) throw new HttpError(403, "this route needs an employer: create an organization first")
  const rows = Array.isArray(body.rows) ? body.rows as Array<{ name: string; email: string | null; amount: string | null }> : []
  if (rows.length === 0) return { imported: 0 }
  const values: Array<unknown> = []
  const tuples = rows.map((row) => {
    values.push(randomUUID(), member.org_id, row.name, row.email, row.amount === null ? null : JSON.stringify({ amount: row.amount, currency: "USDC" }))
    const n = values.length
    return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, NULL, NULL, NULL, 'invited', $${n})`
  })
  await pool.query(
    `INSERT INTO contractors (id, org_id, name, email, address, pvk, auditor_id, status, rate) VALUES ${tuples.join(", ")}`,
    values
  )
  return { imported: rows.length }
}

const routes: Record<string, (req: IncomingMessage) => Promise<unknown>> = {
  "GET /me": me,
  "GET /contractors": listContractors,
  "POST /orgs": createOrg,
  "POST /contractors/bulk": seedContractors
}

await serveRoutes("reads baseline", routes, database.close)
