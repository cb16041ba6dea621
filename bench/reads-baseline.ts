// The read routes' baseline: the routes bench/reads.ts measures, with no framework — plain node:http and a pg Pool —
// doing the service's per-request work the straightforward way, its SQL word for word, in the same order:
//   a session route verifies the Bearer HS256 session JWT (node:crypto: constant-time signature, algorithm, issuer,
//   expiry, claims; the service keeps verified sessions in memory, so it runs no SQL for it either), then:
//   GET /me: src/Orgs/Organizations.ts `me` for a wallet session: the membership (src/Orgs/OrgRepo.ts), the linked
//     contractor records (src/Contractors/ContractorRepo.ts `linkedTo`), the pending invite
//     (src/Contractors/InviteRepo.ts `findForClaimant`); the same JSON;
//   GET /contractors?limit=N: `limit` checked (1..100), the membership (403 without one), the keyset page of
//     src/Sql/KeysetPage.ts (limit + 1 rows, the same columns and ORDER BY), each row as the API's Contractor and the
//     next page's cursor (base64url of [createdAt ms, id]);
//   GET /batches?limit=N (src/Batches/Batches.ts `list`): the membership, the keyset page of batches;
//   GET /batches/{id}/payouts?limit=N (`payouts`): the membership, the batch (BatchRepo `find`: 404 when it is not the
//     organization's), the keyset page of its payouts;
//   GET /batch/{jobId} (src/BatchRuns/BatchRuns.ts `poll`): the membership, the job (JobRepo `find`), its results
//     (JobRepo `results`), the organization's submissions of the results' hashes (SubmissionRepo `findMany`; not run
//     when no result has a hash), each final submission's answer in place of the recorded result (`truthOf`);
//   GET /archive/tokens/{contractId}/accounts/{account}/events (public, src/Archive/Archive.ts `accountEvents`): the
//     rate limit's hit counted first (src/RateLimit/PerClientLimit.ts through src/RateLimit/RateWindow.ts: one
//     upsert into rate_limits per request, the client from the socket's peer or, behind a trusted proxy,
//     X-Forwarded-For), the ingested ranges (EventRepo `ranges`), the account's page (EventRepo `accountEvents`,
//     limit + 1 rows).
// The schema is the service's tables and indexes these queries touch, copied from migrations/ (0001, 0002, 0003, 0005,
// 0006, 0007, 0008, 0010, 0012, 0015, 0017), so that the database does the same work for both systems. The rows are
// the service's own: the driver copies them here with SQL once the service has made them through its routes.
//
// Not meant to be run by hand: bench/reads.ts forks it with its settings in the environment (BASELINE_*).
import { StrKey } from "@stellar/stellar-sdk"
import type { IncomingMessage } from "node:http"
import { clientAddress, clientNetwork, TrustedProxies } from "../src/Http/ClientAddress.ts"
import { authenticate as verifySession, env, HttpError, openDatabase, serveRoutes } from "./baseline-http.ts"

const config = {
  jwtSecret: Buffer.from(env("BASELINE_JWT_SECRET")),
  issuer: env("BASELINE_JWT_ISSUER"),
  /** The token the archive holds (CONFIDENTIAL_TOKEN_CONTRACT). */
  contract: env("BASELINE_ARCHIVE_CONTRACT"),
  /** ARCHIVE_RATE_LIMIT requests per ARCHIVE_RATE_WINDOW. */
  archiveLimit: Number(env("BASELINE_ARCHIVE_RATE_LIMIT")),
  archiveWindowMs: Number(env("BASELINE_ARCHIVE_RATE_WINDOW_MS")),
  /** TRUSTED_PROXIES and AUTH_RATE_IPV6_PREFIX, as the service reads them. */
  trusted: new TrustedProxies((process.env.BASELINE_TRUSTED_PROXIES ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")),
  ipv6Prefix: Number(process.env.BASELINE_IPV6_PREFIX ?? "64")
}

// ---- database ----

const SCHEMA = [
  // migrations/0001_init.ts, 0005, 0011
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
  `CREATE INDEX invites_contractor ON invites (contractor_id)`,
  // migrations/0003_batches.ts
  `CREATE TABLE batches (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name text NOT NULL,
    status text NOT NULL CHECK (status IN ('draft', 'ready', 'started', 'completed')),
    payout_count integer NOT NULL DEFAULT 0,
    settled_count integer NOT NULL DEFAULT 0,
    failed_count integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    started_at timestamptz,
    completed_at timestamptz)`,
  `CREATE INDEX batches_org_page ON batches (org_id, created_at DESC, id DESC)`,
  `CREATE TABLE payouts (
    id uuid PRIMARY KEY,
    batch_id uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    contractor_id uuid NOT NULL REFERENCES contractors (id),
    status text NOT NULL CHECK (status IN ('draft', 'ready', 'submitted', 'settled', 'failed')),
    hash text,
    error text,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (batch_id, contractor_id))`,
  `CREATE INDEX payouts_contractor ON payouts (contractor_id, created_at DESC)`,
  // 0018
  `CREATE INDEX payouts_batch_page ON payouts (batch_id, created_at DESC, id DESC)`,
  // 0003, with 0007's index and 0008's lease_owner
  `CREATE TABLE batch_jobs (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    session_sub text NOT NULL,
    items jsonb NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    error text,
    lease_until timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    finished_at timestamptz,
    lease_owner text)`,
  `CREATE INDEX batch_jobs_open ON batch_jobs (lease_until) WHERE state <> 'done'`,
  `CREATE INDEX batch_jobs_finished ON batch_jobs (finished_at) WHERE state = 'done'`,
  `CREATE TABLE batch_job_results (
    job_id uuid NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
    i integer NOT NULL,
    hash text NOT NULL,
    status text NOT NULL,
    error text,
    PRIMARY KEY (job_id, i))`,
  // migrations/0002_transfers.ts as 0003, 0007, 0008, 0010 and 0012 leave it
  `CREATE TABLE submissions (
    inner_hash text PRIMARY KEY,
    outer_hash text NOT NULL UNIQUE,
    envelope text NOT NULL,
    source text NOT NULL,
    session_sub text NOT NULL,
    org_id uuid REFERENCES orgs (id) ON DELETE CASCADE,
    payout_id uuid,
    state text NOT NULL CHECK (state IN ('pending', 'submitted', 'success', 'failed', 'rejected', 'expired')),
    result_code text,
    ledger integer,
    max_time timestamptz NOT NULL,
    lease_until timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    lease_owner text,
    reconcile_failures integer NOT NULL DEFAULT 0,
    sequence bigint)`,
  `CREATE INDEX submissions_in_flight ON submissions (lease_until) WHERE state IN ('pending', 'submitted')`,
  `CREATE INDEX submissions_org ON submissions (org_id, created_at DESC)`,
  `ALTER TABLE submissions ADD CONSTRAINT submissions_payout FOREIGN KEY (payout_id) REFERENCES payouts (id) ON DELETE SET NULL`,
  `CREATE INDEX submissions_final ON submissions (updated_at) WHERE state IN ('success', 'failed', 'rejected', 'expired')`,
  `CREATE INDEX submissions_payout ON submissions (payout_id) WHERE payout_id IS NOT NULL`,
  `CREATE INDEX submissions_source_in_flight ON submissions (source, sequence) WHERE state IN ('pending', 'submitted')`,
  // migrations/0006_rate_limits.ts, unlogged by 0017
  `CREATE UNLOGGED TABLE rate_limits (
    key text PRIMARY KEY,
    window_start timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    hits integer NOT NULL)`,
  `CREATE INDEX rate_limits_expires_at ON rate_limits (expires_at)`,
  // migrations/0015_archive.ts (the tables the reads touch)
  `CREATE TABLE archive_events (
    id text PRIMARY KEY,
    contract_id text NOT NULL,
    ledger_seq integer NOT NULL,
    ledger_close_time timestamptz NOT NULL,
    tx_hash text NOT NULL,
    tx_application_order integer NOT NULL,
    event_index integer NOT NULL,
    type text NOT NULL,
    topics text[] NOT NULL,
    value text NOT NULL)`,
  `CREATE UNIQUE INDEX archive_events_order ON archive_events (contract_id, ledger_seq, tx_application_order, event_index)`,
  `CREATE TABLE archive_event_accounts (
    contract_id text NOT NULL,
    account text NOT NULL,
    ledger_seq integer NOT NULL,
    tx_application_order integer NOT NULL,
    event_index integer NOT NULL,
    event_id text NOT NULL,
    type text NOT NULL,
    checkpoint boolean NOT NULL,
    PRIMARY KEY (contract_id, account, ledger_seq, tx_application_order, event_index))`,
  `CREATE INDEX archive_checkpoints ON archive_event_accounts
    (contract_id, account, ledger_seq DESC, tx_application_order DESC, event_index DESC) WHERE checkpoint`,
  `CREATE TABLE archive_ranges (
    contract_id text NOT NULL,
    from_ledger integer NOT NULL,
    to_ledger integer NOT NULL,
    PRIMARY KEY (contract_id, from_ledger),
    CHECK (from_ledger <= to_ledger))`
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The path's segments, decoded: `/batches/x/payouts` → ["batches", "x", "payouts"]. */
const segments = (url: URL) => url.pathname.split("/").slice(1).map(decodeURIComponent)

/** `limit` of a keyset page: 1 to 100, default 50 (src/Domain/Page.ts). */
const pageLimit = (url: URL) => {
  const raw = url.searchParams.get("limit")
  const limit = raw === null ? 50 : Number(raw)
  if (raw === "" || !Number.isInteger(limit) || limit < 1 || limit > 100) throw new HttpError(400, "limit must be 1 to 100")
  return limit
}

const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** src/Http/Cursor.ts: base64url of the JSON [createdAt ms, id]; anything else is 400. */
const pageCursor = (url: URL): { readonly createdAt: Date; readonly id: string } | undefined => {
  const cursor = url.searchParams.get("cursor")
  if (cursor === null) return undefined
  try {
    if (cursor.length > 200 || !/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new Error("alphabet")
    const [ms, id, ...rest] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as Array<unknown>
    if (rest.length > 0 || !Number.isInteger(ms) || (ms as number) < 0 || (ms as number) > MAX_TIME) throw new Error("time")
    if (typeof id !== "string" || !UUID.test(id)) throw new Error("id")
    return { createdAt: new Date(ms as number), id }
  } catch {
    throw new HttpError(400, "invalid cursor")
  }
}

/**
 * A newest-first keyset page (src/Sql/KeysetPage.ts): `filters` (each with one `?` for its value), after the cursor,
 * limit + 1 rows.
 */
const keysetPage = async <Row extends { readonly created_at: Date; readonly id: string }>(
  table: string,
  columns: string,
  filters: ReadonlyArray<readonly [string, unknown]>,
  after: { readonly createdAt: Date; readonly id: string } | undefined,
  limit: number
) => {
  const params: Array<unknown> = []
  const where = filters.map(([clause, value]) => clause.replace("?", `$${params.push(value)}`))
  if (after !== undefined) where.push(`(created_at, id) < ($${params.push(after.createdAt)}, $${params.push(after.id)})`)
  const { rows } = await pool.query<Row>(
    `SELECT ${columns} FROM ${table} WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT $${params.push(limit + 1)}`,
    params
  )
  return rows
}

/** src/Http/Cursor.ts `toPage`: `limit` items and, when another page follows, its cursor. */
const toPage = <Row extends { readonly created_at: Date; readonly id: string }>(rows: ReadonlyArray<Row>, limit: number, item: (row: Row) => unknown) => {
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    items: page.map(item),
    ...(rows.length > limit && last !== undefined
      ? { nextCursor: Buffer.from(JSON.stringify([last.created_at.getTime(), last.id])).toString("base64url") }
      : {})
  }
}

const iso = (key: string, value: Date | null) => (value === null ? {} : { [key]: value.toISOString() })

// ---- who the caller is ----

interface Membership {
  readonly org_id: string
  readonly org_name: string
  readonly role: string
}

/** src/Orgs/OrgRepo.ts `membership`. */
const membership = async (sub: string): Promise<Membership | undefined> => {
  const { rows } = await pool.query<Membership>(
    `SELECT m.org_id, o.name AS org_name, m.role FROM org_members m JOIN orgs o ON o.id = m.org_id WHERE m.user_sub = $1`,
    [sub]
  )
  return rows[0]
}

/** src/Orgs/Organizations.ts `asEmployer`: the caller's organization, 403 without one. */
const employerOrg = async (req: IncomingMessage): Promise<string> => {
  const session = authenticate(req)
  const member = await membership(session.sub)
  if (member === undefined) throw new HttpError(403, "this route needs an employer: create an organization first")
  return member.org_id
}

// ---- GET /me, GET /contractors ----

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
  ...iso("lastPaidAt", row.last_paid_at)
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
  const { rows } = await pool.query<ContractorRow & { readonly id: string }>(
    `SELECT ${COLUMNS} FROM contractors WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [member.org_id, limit + 1]
  )
  return toPage(rows, limit, contractorJson)
}

// ---- GET /batches, GET /batches/{id}/payouts (src/Batches/Batches.ts, BatchRepo.ts) ----

const BATCH = "id, name, status, payout_count, settled_count, failed_count, created_at, started_at, completed_at"
const PAYOUT = "id, batch_id, contractor_id, status, hash, error, created_at, updated_at"
const BATCH_STATUSES = new Set(["draft", "ready", "started", "completed"])

interface BatchRow {
  readonly id: string
  readonly name: string
  readonly status: string
  readonly payout_count: number
  readonly settled_count: number
  readonly failed_count: number
  readonly created_at: Date
  readonly started_at: Date | null
  readonly completed_at: Date | null
}

/** The API's Batch. */
const batchJson = (row: BatchRow) => ({
  id: row.id,
  name: row.name,
  status: row.status,
  payoutCount: row.payout_count,
  settledCount: row.settled_count,
  failedCount: row.failed_count,
  createdAt: row.created_at.toISOString(),
  ...iso("startedAt", row.started_at),
  ...iso("completedAt", row.completed_at)
})

interface PayoutRow {
  readonly id: string
  readonly batch_id: string
  readonly contractor_id: string
  readonly status: string
  readonly hash: string | null
  readonly error: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** The API's Payout. */
const payoutJson = (row: PayoutRow) => ({
  id: row.id,
  batchId: row.batch_id,
  contractorId: row.contractor_id,
  status: row.status,
  ...(row.hash === null ? {} : { hash: row.hash }),
  ...(row.error === null ? {} : { error: row.error }),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString()
})

const listBatches = async (req: IncomingMessage): Promise<unknown> => {
  const url = new URL(req.url ?? "/", "http://x")
  const limit = pageLimit(url)
  const status = url.searchParams.get("status")
  if (status !== null && !BATCH_STATUSES.has(status)) throw new HttpError(400, "status must be draft, ready, started or completed")
  const orgId = await employerOrg(req)
  const after = pageCursor(url)
  const filters: Array<readonly [string, unknown]> = [["org_id = ?", orgId]]
  if (status !== null) filters.push(["status = ?", status])
  return toPage(await keysetPage<BatchRow>("batches", BATCH, filters, after, limit), limit, batchJson)
}

const listPayouts = async (req: IncomingMessage): Promise<unknown> => {
  const url = new URL(req.url ?? "/", "http://x")
  const [, id = ""] = segments(url)
  if (!UUID.test(id)) throw new HttpError(400, "id must be a UUID")
  const limit = pageLimit(url)
  const orgId = await employerOrg(req)
  const { rows } = await pool.query<BatchRow>(`SELECT ${BATCH} FROM batches WHERE org_id = $1 AND id = $2`, [orgId, id])
  if (rows.length === 0) throw new HttpError(404, "batch not found")
  const after = pageCursor(url)
  return toPage(await keysetPage<PayoutRow>("payouts", PAYOUT, [["batch_id = ?", id]], after, limit), limit, payoutJson)
}

// ---- GET /batch/{jobId} (src/BatchRuns/BatchRuns.ts `poll`, JobRepo.ts, src/Transfers/SubmissionRepo.ts) ----

/** `SubmissionRepo.findMany`: the outcome's columns only. */
const SUBMISSION = "inner_hash, outer_hash, state, result_code"
const FINAL_STATES = new Set(["success", "failed", "rejected", "expired"])

interface ResultRow {
  readonly i: number
  readonly hash: string
  readonly status: string
  readonly error: string | null
}

interface SubmissionRow {
  readonly inner_hash: string
  readonly outer_hash: string
  readonly state: string
  readonly result_code: string | null
}

/** src/Transfers/Settle.ts `answerFor` as src/BatchRuns/ItemResult.ts records it: what POST /transfer answers for it. */
const answerFor = (i: number, row: SubmissionRow): ResultRow => {
  switch (row.state) {
    case "success":
      return { i, hash: row.outer_hash, status: "SUCCESS", error: null }
    case "failed":
      return { i, hash: row.outer_hash, status: "FAILED", error: `the transaction failed on the ledger (${row.result_code ?? "unknown"})` }
    case "rejected":
      return { i, hash: row.outer_hash, status: "FAILED", error: `the network rejected the transaction (${row.result_code ?? "unknown"})` }
    case "expired":
      return { i, hash: row.outer_hash, status: "TIMEOUT", error: "the transaction did not reach the ledger before its maxTime" }
    default:
      return { i, hash: row.outer_hash, status: "TIMEOUT", error: "the transaction is not final yet; GET /transfers/{hash} tells the outcome" }
  }
}

const pollJob = async (req: IncomingMessage): Promise<unknown> => {
  const [, jobId = ""] = segments(new URL(req.url ?? "/", "http://x"))
  if (jobId.length > 100) throw new HttpError(400, "jobId: at most 100 characters")
  const orgId = await employerOrg(req)
  if (!UUID.test(jobId)) throw new HttpError(404, "unknown job")
  const job = await pool.query<{ id: string; error: string | null; created_at: Date }>(
    `SELECT id, error, created_at FROM batch_jobs WHERE org_id = $1 AND id = $2`,
    [orgId, jobId.toLowerCase()]
  )
  const found = job.rows[0]
  if (found === undefined) throw new HttpError(404, "unknown job")
  const stored = (await pool.query<ResultRow>(`SELECT i, hash, status, error FROM batch_job_results WHERE job_id = $1 ORDER BY i`, [found.id])).rows
  // `truthOf`: an item whose transaction has a final submission of this organization is answered as that submission.
  let results: ReadonlyArray<ResultRow> = stored
  const hashes = stored.map((r) => r.hash).filter((hash) => hash.length > 0)
  if (hashes.length > 0) {
    const inner = hashes.map((_, k) => `$${k + 2}`).join(",")
    const outer = hashes.map((_, k) => `$${k + 2 + hashes.length}`).join(",")
    const { rows } = await pool.query<SubmissionRow>(
      `SELECT ${SUBMISSION} FROM submissions WHERE org_id = $1 AND (inner_hash IN (${inner}) OR outer_hash IN (${outer}))`,
      [orgId, ...hashes, ...hashes]
    )
    if (rows.length > 0) {
      const byHash = new Map<string, SubmissionRow>()
      for (const row of rows) byHash.set(row.inner_hash, row).set(row.outer_hash, row)
      results = stored.map((r) => {
        const row = byHash.get(r.hash)
        return row === undefined || (!FINAL_STATES.has(row.state) && r.status !== "REFUSED") ? r : answerFor(r.i, row)
      })
    }
  }
  return {
    jobId: found.id,
    createdAt: found.created_at.getTime(),
    results: results.map((r) => ({ i: r.i, hash: r.hash, status: r.status, ...(r.error === null ? {} : { error: r.error }) })),
    ...(found.error === null ? {} : { error: found.error })
  }
}

// ---- GET /archive/tokens/{contractId}/accounts/{account}/events (src/Archive/*, src/RateLimit/RateWindow.ts) ----

const RATE_HIT = `
  INSERT INTO rate_limits AS r (key, window_start, expires_at, hits)
  VALUES ($1, $2, $3, 1)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN r.expires_at <= excluded.window_start OR r.window_start > excluded.window_start
      THEN excluded.window_start ELSE r.window_start END,
    expires_at = CASE WHEN r.expires_at <= excluded.window_start OR r.window_start > excluded.window_start
      THEN excluded.expires_at ELSE r.expires_at END,
    hits = CASE WHEN r.expires_at <= excluded.window_start OR r.window_start > excluded.window_start
      THEN 1 ELSE r.hits + 1 END
  RETURNING hits, expires_at`

/** The archive's rate limit (src/RateLimit/PerClientLimit.ts): one hit counted for the client, 429 past the limit. */
const countArchiveHit = async (req: IncomingMessage) => {
  const forwarded = req.headers["x-forwarded-for"]
  const address = clientAddress(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(",") : forwarded, config.trusted)
  const now = Date.now()
  const { rows } = await pool.query<{ hits: number; expires_at: Date }>(
    RATE_HIT,
    [`archive:${clientNetwork(address, config.ipv6Prefix)}`, new Date(now), new Date(now + config.archiveWindowMs)]
  )
  const { hits, expires_at } = rows[0]!
  if (hits > config.archiveLimit) {
    const retryAfter = Math.max(1, Math.ceil(Math.max(0, expires_at.getTime() - now) / 1000))
    throw new HttpError(429, `too many archive requests; try again in ${retryAfter} s`)
  }
}

const EVENT_COLUMNS = "e.id, e.ledger_seq, e.ledger_close_time, e.tx_hash, e.tx_application_order, e.event_index, e.type, e.topics, e.value"
const MAX_LEDGER = 2_147_483_647

interface EventRow {
  readonly id: string
  readonly ledger_seq: number
  readonly ledger_close_time: Date
  readonly tx_hash: string
  readonly tx_application_order: number
  readonly event_index: number
  readonly type: string
  readonly topics: ReadonlyArray<string>
  readonly value: string
}

/** src/Archive/Event.ts EventsParams: each parameter checked as the service's schema checks it. */
const eventsParams = (url: URL) => {
  const p = url.searchParams
  const ledger = (name: string) => {
    const raw = p.get(name)
    if (raw === null) return undefined
    const n = Number(raw)
    if (raw.trim() === "" || !Number.isInteger(n) || n < 1 || n > MAX_LEDGER) throw new HttpError(400, `${name} must be a ledger sequence, 1 to ${MAX_LEDGER}`)
    return n
  }
  const types = p.get("types")
  if (types !== null && !/^[A-Za-z0-9_]{1,32}(,[A-Za-z0-9_]{1,32}){0,15}$/.test(types)) {
    throw new HttpError(400, "types must be comma-separated event names (at most 16)")
  }
  const cursor = p.get("cursor")
  if (cursor !== null && !/^\d{19}-\d{10}$/.test(cursor)) throw new HttpError(400, "cursor must be the cursor of a previous page")
  const rawLimit = p.get("limit")
  const limit = rawLimit === null ? 100 : Number(rawLimit)
  if (rawLimit?.trim() === "" || !Number.isInteger(limit) || limit < 1 || limit > 1000) throw new HttpError(400, "limit must be 1 to 1000")
  return { fromLedger: ledger("fromLedger"), toLedger: ledger("toLedger"), types, cursor, limit }
}

/** src/Stellar/ChainEvents.ts `parseEventId`: the position of an event id (TOID + event index). */
const eventPosition = (id: string) => {
  const match = /^(\d{1,19})-(\d{1,10})$/.exec(id)
  if (match === null) return undefined
  const toid = BigInt(match[1]!)
  const event = Number(match[2]!)
  if (toid > 0x7fffffffffffffffn || event > 0xffffffff) return undefined
  return { ledger: Number(toid >> 32n), tx: Number((toid >> 12n) & 0xfffffn), event }
}

const accountEvents = async (req: IncomingMessage): Promise<unknown> => {
  await countArchiveHit(req)
  const url = new URL(req.url ?? "/", "http://x")
  const [, , contractId = "", , account = ""] = segments(url)
  if (contractId.length > 56 || account.length > 56) throw new HttpError(400, "contractId and account: at most 56 characters")
  const params = eventsParams(url)
  if (contractId !== config.contract) throw new HttpError(404, "this service archives no such token")
  if (!StrKey.isValidEd25519PublicKey(account) && !StrKey.isValidContract(account)) {
    throw new HttpError(404, "no such account: not a Stellar address (G... or C...)")
  }
  const ranges = (await pool.query<{ from_ledger: number; to_ledger: number }>(
    `SELECT from_ledger, to_ledger FROM archive_ranges WHERE contract_id = $1 ORDER BY from_ledger`,
    [contractId]
  )).rows
  const from = params.fromLedger ?? ranges[0]?.from_ledger ?? 1
  const to = params.toLedger ?? ranges.at(-1)?.to_ledger ?? 0
  if (params.fromLedger !== undefined && params.toLedger !== undefined && from > to) {
    throw new HttpError(400, "fromLedger must not be after toLedger")
  }
  let after = { ledger: from, tx: -1, event: -1 }
  if (params.cursor !== null) {
    const position = eventPosition(params.cursor)
    if (position === undefined || position.ledger < from || position.ledger > to) {
      throw new HttpError(400, "cursor is not a position within the requested ledger range")
    }
    after = position
  }
  if (to < from) return { events: [], cursor: null, complete: false }
  const types = params.types === null ? null : params.types.split(",")
  const { rows } = await pool.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM archive_event_accounts a JOIN archive_events e ON e.id = a.event_id
     WHERE a.contract_id = $1 AND a.account = $2 AND a.ledger_seq BETWEEN $3 AND $4
       AND (a.ledger_seq, a.tx_application_order, a.event_index) > ($5, $6, $7)
       AND ($8::text[] IS NULL OR a.type = ANY($9::text[]))
     ORDER BY a.ledger_seq, a.tx_application_order, a.event_index
     LIMIT $10`,
    [contractId, account, from, to, after.ledger, after.tx, after.event, types, types, params.limit + 1]
  )
  const events = rows.slice(0, params.limit).map((row) => ({
    id: row.id,
    ledger: row.ledger_seq,
    ledgerClosedAt: row.ledger_close_time.toISOString(),
    txHash: row.tx_hash,
    txApplicationOrder: row.tx_application_order,
    eventIndex: row.event_index,
    type: row.type,
    topics: row.topics,
    value: row.value
  }))
  return {
    events,
    cursor: rows.length > params.limit ? events.at(-1)!.id : null,
    complete: to >= from && ranges.some((r) => r.from_ledger <= from && r.to_ledger >= to)
  }
}

// ---- routing: exact paths, and the paths with parameters ----

const exact: Record<string, (req: IncomingMessage) => Promise<unknown>> = {
  "GET /me": me,
  "GET /contractors": listContractors,
  "GET /batches": listBatches
}
const patterns: ReadonlyArray<readonly [RegExp, (req: IncomingMessage) => Promise<unknown>]> = [
  [/^GET \/batches\/[^/]+\/payouts$/, listPayouts],
  [/^GET \/batch\/[^/]+$/, pollJob],
  [/^GET \/archive\/tokens\/[^/]+\/accounts\/[^/]+\/events$/, accountEvents]
]
/** serveRoutes looks a request up by "METHOD /path": an exact path first, then the patterns. */
const routes = new Proxy(exact, {
  get: (target, key) => typeof key !== "string" ? undefined : target[key] ?? patterns.find(([pattern]) => pattern.test(key))?.[1]
})

await serveRoutes("reads baseline", routes, database.close)
