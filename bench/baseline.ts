// The benchmark's baseline: POST /transfer with no framework — plain node:http, a pg Pool and
// @stellar/stellar-sdk — doing the service's per-request work the straightforward way:
//   read and parse the JSON body; verify the HS256 session JWT (node:crypto); decode the envelope; the source's
//   signature for this network; transaction and operation sources = the session's account; the employer's
//   organization (the same SELECT as the service); the sponsor's policy (invokeContract confidential_transfer,
//   allow-listed contract, fee cap, time bounds); the exact 2x fee-bump signed by the sponsor; the submission row and
//   the quota reservation in one transaction under a per-source advisory lock (as src/Transfers/SubmissionRepo.ts);
//   sendTransaction; getTransaction until final (the service's schedule: at once, then 250 ms doubling to at most
//   1 s, jittered ±20%); one UPDATE; `{hash, status}`.
// It leaves out what the bench never exercises: the signer lookup through RPC for multi-sig sources (a missing master
// signature is a 400 here), the reconciler and its leases, and following a submission another request is driving.
//
// Not meant to be run by hand: bench/transfer.ts forks it with its settings in the environment (BASELINE_*).
import { Address, FeeBumpTransaction, Keypair, rpc, StrKey, Transaction, xdr } from "@stellar/stellar-sdk"
import type { IncomingMessage } from "node:http"
import { authenticate as verifySession, env, HttpError, insertOrg, openDatabase, readJson, serveRoutes } from "./baseline-http.ts"

const config = {
  rpcUrl: env("BASELINE_RPC_URL"),
  passphrase: env("BASELINE_NETWORK_PASSPHRASE"),
  jwtSecret: Buffer.from(env("BASELINE_JWT_SECRET")),
  issuer: env("BASELINE_JWT_ISSUER"),
  sponsor: Keypair.fromSecret(env("BASELINE_SPONSOR_SECRET")),
  allowedContracts: new Set(env("BASELINE_ALLOWED_CONTRACTS").split(",")),
  maxInnerFee: Number(env("BASELINE_MAX_INNER_FEE")),
  quota: Number(env("BASELINE_QUOTA")),
  quotaWindowMs: Number(env("BASELINE_QUOTA_WINDOW_MS")),
  pollMarginMs: 10_000,
  rpcTimeoutMs: 10_000,
  maxValiditySeconds: 600
}

// ---- database ----

const SCHEMA = [
  `CREATE TABLE orgs (id uuid PRIMARY KEY, name text NOT NULL, created_by text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE org_members (
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_sub text NOT NULL UNIQUE,
    role text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, user_sub))`,
  `CREATE TABLE submissions (
    inner_hash text PRIMARY KEY,
    outer_hash text NOT NULL UNIQUE,
    envelope text NOT NULL,
    source text NOT NULL,
    session_sub text NOT NULL,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    payout_id uuid,
    state text NOT NULL,
    result_code text,
    ledger integer,
    max_time timestamptz NOT NULL,
    lease_until timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE sponsor_quota (
    inner_hash text PRIMARY KEY REFERENCES submissions (inner_hash) ON DELETE CASCADE,
    source text NOT NULL,
    reserved_at timestamptz NOT NULL)`,
  `CREATE INDEX sponsor_quota_source ON sponsor_quota (source, reserved_at)`
]

const database = await openDatabase("baseline")
const pool = database.pool
for (const statement of SCHEMA) await pool.query(statement)

// ---- HTTP plumbing ----

interface Session {
  readonly sub: string
  readonly method: string
}

/** Bearer HS256 JWT: signature (constant-time), algorithm, issuer, expiry, subject. */
const authenticate = (req: IncomingMessage): Session =>
  verifySession(req, config.jwtSecret, config.issuer, (claims) => {
    if (typeof claims.method !== "string") throw new Error("claims")
    return { sub: claims.sub, method: claims.method }
  })

// ---- the transfer ----

const decodeInner = (signedXDR: string): Transaction => {
  let envelope: xdr.TransactionEnvelope
  try {
    envelope = xdr.TransactionEnvelope.fromXDR(signedXDR, "base64")
  } catch {
    throw new HttpError(400, "signedXDR is not a base64 transaction envelope")
  }
  if (envelope.type !== "envelopeTypeTx") throw new HttpError(400, "signedXDR must be a v1 transaction envelope")
  const tx = new Transaction(envelope, config.passphrase)
  if (tx.operations.length !== 1) throw new HttpError(400, "the transaction must have exactly one operation")
  return tx
}

const signedBy = (tx: Transaction, key: string): boolean => {
  const keypair = Keypair.fromPublicKey(key)
  const hint = Buffer.from(keypair.signatureHint())
  const hash = tx.hash()
  return tx.signatures.some((sig) => Buffer.from(sig.hint.toBytes()).equals(hint) && keypair.verify(hash, sig.signature.toBytes()))
}

const refuse = (rule: string, error: string) => new HttpError(422, error, { rule })

/** The sponsor's policy; returns the transaction's maxTime (unix seconds). */
const checkPolicy = (tx: Transaction, nowSeconds: number): number => {
  const op = tx.operations[0]!
  if (op.type !== "invokeHostFunction") throw refuse("operation", "only an invokeHostFunction operation is sponsored")
  if (op.func.type !== "hostFunctionTypeInvokeContract") throw refuse("function", "only confidential_transfer contract calls are sponsored")
  const call = op.func.invokeContract
  if (call.functionName.toString() !== "confidential_transfer") throw refuse("function", "only confidential_transfer contract calls are sponsored")
  const contract = Address.fromScAddress(call.contractAddress).toString()
  if (!StrKey.isValidContract(contract) || !config.allowedContracts.has(contract)) {
    throw refuse("contract", "the contract is not on the sponsor's allow-list")
  }
  if (Number(tx.fee) > config.maxInnerFee) throw refuse("fee", `the inner fee ${tx.fee} exceeds the sponsor's cap`)
  const maxTime = Number(tx.timeBounds?.maxTime ?? 0)
  if (maxTime === 0) throw refuse("timebounds", "the transaction needs time bounds with a maxTime")
  if (maxTime <= nowSeconds) throw refuse("timebounds", "the transaction's maxTime has passed")
  if (maxTime > nowSeconds + config.maxValiditySeconds) throw refuse("timebounds", "the transaction's maxTime is too far ahead")
  return maxTime
}

/** CAP-15 fee-bump at exactly twice the inner fee, signed by the sponsor (as src/Transfers/Sponsor.ts). */
const feeBump = (inner: Transaction): FeeBumpTransaction => {
  const envelope = inner.toEnvelope()
  if (envelope.type !== "envelopeTypeTx") throw new HttpError(400, "the inner transaction must be a v1 envelope")
  const outer = xdr.TransactionEnvelope.envelopeTypeTxFeeBump(
    new xdr.FeeBumpTransactionEnvelope({
      tx: new xdr.FeeBumpTransaction({
        feeSource: config.sponsor.xdrMuxedAccount(),
        fee: 2n * BigInt(inner.fee),
        innerTx: xdr.FeeBumpTransactionInnerTx.envelopeTypeTx(envelope.v1),
        ext: xdr.FeeBumpTransactionExt.v0()
      }),
      signatures: []
    })
  )
  const tx = new FeeBumpTransaction(outer, config.passphrase)
  tx.sign(config.sponsor)
  return tx
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `attempt` at once, then after 250, 500, 1000, 1000, ... ms (±20%) while the budget lasts. */
const retrying = async <T>(attempt: () => Promise<T | undefined>, deadline: number): Promise<T | undefined> => {
  const started = Date.now()
  const budget = deadline - started
  for (let n = 0; ; n++) {
    const result = await attempt()
    if (result !== undefined) return result
    if (Date.now() - started >= budget) return undefined
    await sleep(Math.min(250 * 2 ** n, 1000) * (0.8 + 0.4 * Math.random()))
  }
}

const server = new rpc.Server(config.rpcUrl, { allowHttp: config.rpcUrl.startsWith("http:"), timeout: config.rpcTimeoutMs })

const resultCode = (result: xdr.TransactionResult | undefined): string => {
  if (result === undefined) return "unknown"
  const outer = result.result
  if (outer.type === "txFeeBumpInnerSuccess" || outer.type === "txFeeBumpInnerFailed") return outer.innerResultPair.result.result.type
  return outer.type
}

type Sent = "accepted" | "expired" | { readonly rejected: string }

/** sendTransaction: transport failures retried 3 times; TRY_AGAIN_LATER retried until the deadline. */
const send = async (tx: FeeBumpTransaction, deadline: number): Promise<Sent> => {
  const once = async (): Promise<Sent | undefined> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await server.sendTransaction(tx)
        switch (answer.status) {
          case "PENDING":
          case "DUPLICATE":
            return "accepted"
          case "TRY_AGAIN_LATER":
            return undefined
          case "ERROR":
            return { rejected: resultCode(answer.errorResult) }
        }
      } catch (error) {
        if (attempt >= 3) throw new HttpError(502, "Stellar RPC is unreachable")
        await sleep(200 * 2 ** attempt * (0.8 + 0.4 * Math.random()))
      }
    }
  }
  return (await retrying(once, deadline)) ?? "expired"
}

type Polled = { readonly ledger: number; readonly failed: string | undefined }

const poll = (hash: string, deadline: number): Promise<Polled | undefined> =>
  retrying(async () => {
    try {
      const answer = await server.getTransaction(hash)
      if (answer.status === rpc.Api.GetTransactionStatus.SUCCESS) return { ledger: answer.ledger, failed: undefined }
      if (answer.status === rpc.Api.GetTransactionStatus.FAILED) return { ledger: answer.ledger, failed: resultCode(answer.resultXdr) }
      return undefined
    } catch {
      return undefined
    }
  }, deadline)

const orgOf = async (sub: string): Promise<string> => {
  const { rows } = await pool.query<{ org_id: string }>(
    `SELECT m.org_id, o.name AS org_name, m.role FROM org_members m JOIN orgs o ON o.id = m.org_id WHERE m.user_sub = $1`,
    [sub]
  )
  const org = rows[0]?.org_id
  if (org === undefined) throw new HttpError(403, "this route needs an employer: create an organization first")
  return org
}

interface NewSubmission {
  readonly innerHash: string
  readonly outerHash: string
  readonly envelope: string
  readonly source: string
  readonly sessionSub: string
  readonly orgId: string
  readonly maxTime: Date
  readonly leaseUntil: Date
}

/** The submission and its quota reservation, in one transaction serialized per source by an advisory lock. */
const create = async (row: NewSubmission, now: Date): Promise<"created" | "exists" | "quota"> => {
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`sponsor-quota:${row.source}`])
    const existing = await client.query("SELECT 1 FROM submissions WHERE inner_hash = $1", [row.innerHash])
    if (existing.rows.length > 0) {
      await client.query("COMMIT")
      return "exists"
    }
    const since = new Date(now.getTime() - config.quotaWindowMs)
    const counted = await client.query<{ used: number }>(
      "SELECT count(*)::int AS used FROM sponsor_quota WHERE source = $1 AND reserved_at > $2",
      [row.source, since]
    )
    if ((counted.rows[0]?.used ?? 0) >= config.quota) {
      await client.query("COMMIT")
      return "quota"
    }
    await client.query(
      `INSERT INTO submissions (inner_hash, outer_hash, envelope, source, session_sub, org_id, payout_id, state, max_time, lease_until)
       VALUES ($1, $2, $3, $4, $5, $6, NULL, 'pending', $7, $8)`,
      [row.innerHash, row.outerHash, row.envelope, row.source, row.sessionSub, row.orgId, row.maxTime, row.leaseUntil]
    )
    await client.query("INSERT INTO sponsor_quota (inner_hash, source, reserved_at) VALUES ($1, $2, $3)", [row.innerHash, row.source, now])
    await client.query("COMMIT")
    return "created"
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

const settle = (innerHash: string, state: string, fields: { readonly ledger?: number; readonly resultCode?: string }) =>
  pool.query(
    `UPDATE submissions SET state = $2, ledger = $3, result_code = $4, updated_at = now()
     WHERE inner_hash = $1 AND state IN ('pending', 'submitted')`,
    [innerHash, state, fields.ledger ?? null, fields.resultCode ?? null]
  )

const releaseQuota = (innerHash: string) => pool.query("DELETE FROM sponsor_quota WHERE inner_hash = $1", [innerHash])

const transfer = async (req: IncomingMessage): Promise<unknown> => {
  const session = authenticate(req)
  const body = await readJson(req)
  if (session.method !== "sep10") throw new HttpError(501, "sponsored transfers need a wallet (SEP-10) session")
  const signedXDR = body.signedXDR
  if (typeof signedXDR !== "string" || signedXDR.length === 0 || signedXDR.length > 200_000) {
    throw new HttpError(400, "signedXDR must be a non-empty string")
  }
  const tx = decodeInner(signedXDR)
  if (!signedBy(tx, tx.source)) throw new HttpError(400, "the transaction carries no valid signature of its source for this network")
  if (tx.source !== session.sub || tx.operations.some((op) => op.source !== undefined && op.source !== session.sub)) {
    throw new HttpError(403, "the transaction and its operation must be sourced by the signed-in account")
  }
  const orgId = await orgOf(session.sub)
  const now = new Date()
  const maxTime = checkPolicy(tx, Math.floor(now.getTime() / 1000))
  if (body.payoutId !== undefined) throw refuse("payout", "payout links are not available yet")
  const fee = feeBump(tx)
  const innerHash = Buffer.from(tx.hash()).toString("hex")
  const outerHash = Buffer.from(fee.hash()).toString("hex")
  const deadline = maxTime * 1000 + config.pollMarginMs
  const created = await create({
    innerHash,
    outerHash,
    envelope: fee.toXDR(),
    source: tx.source,
    sessionSub: session.sub,
    orgId,
    maxTime: new Date(maxTime * 1000),
    leaseUntil: new Date(now.getTime() + 15_000)
  }, now)
  if (created === "quota") throw refuse("quota", "the source account has used its sponsored transfers for this window")
  if (created === "exists") throw new HttpError(409, "this transaction was already submitted")

  const sent = await send(fee, deadline)
  if (sent === "expired") {
    await settle(innerHash, "expired", { resultCode: "txTooLate" })
    await releaseQuota(innerHash)
    throw new HttpError(504, "the transaction did not reach the ledger before its maxTime", { hash: outerHash })
  }
  if (sent !== "accepted") {
    await settle(innerHash, "rejected", { resultCode: sent.rejected })
    await releaseQuota(innerHash)
    throw new HttpError(422, "the network rejected the transaction", { hash: outerHash, resultCode: sent.rejected })
  }
  const outcome = await poll(outerHash, deadline)
  if (outcome === undefined) throw new HttpError(504, "the transaction is not final yet", { hash: outerHash })
  if (outcome.failed !== undefined) {
    await settle(innerHash, "failed", { ledger: outcome.ledger, resultCode: outcome.failed })
    throw new HttpError(422, "the transaction failed on the ledger", { hash: outerHash, resultCode: outcome.failed })
  }
  await settle(innerHash, "success", { ledger: outcome.ledger })
  return { hash: outerHash, status: "SUCCESS" }
}

/** Bench set-up only: the signed-in account creates its organization, as POST /orgs in the service. */
const createOrg = async (req: IncomingMessage): Promise<unknown> => {
  const session = authenticate(req)
  const body = await readJson(req)
  return insertOrg(pool, session.sub, String(body.name ?? "org"))
}

const routes: Record<string, (req: IncomingMessage) => Promise<unknown>> = {
  "POST /transfer": transfer,
  "POST /orgs": createOrg
}

await serveRoutes("baseline", routes, database.close)
