import { Schema } from "effect"

/** What an API key may be allowed to do; a key carries one or more. */
export const Scope = Schema.Literal(
  "directory:read",
  "directory:write",
  "batches:read",
  "batches:write",
  "transfers:submit",
  "funding:read",
  "audit:read"
).annotations({
  description: "`directory:read`/`directory:write` (contractors), `batches:read`/`batches:write` (batches and " +
    "payouts, batch-run and transfer status, canceling), `transfers:submit` (POST /transfers/prepare, POST /transfer, " +
    "POST /batch), `funding:read` (GET /funding/vault), `audit:read` (the audit trail, exports, statistics)"
})
export type Scope = typeof Scope.Type

/**
 * The one route policy for API keys: each operation (`METHOD /path` as the router names it) and the scopes of which
 * a key needs one. An operation missing here is not open to keys at all (403): sign-in, /me, /orgs, invites, the
 * contractor portal, a wallet's own token calls (POST /token/calls: a person's wallet signs them), the faucet,
 * /api-keys itself, and /webhooks: an endpoint receives every event of the organization it subscribes to and its
 * secret is what receivers trust, so a leaked key must not be able to add an endpoint of its own (nor read the
 * delivery log); like keys, endpoints are managed by a signed-in employer. Nor are
 * the maker-checker controls (approve, reject, pause, resume) or members and settings: a second pair of eyes is a
 * person's.
 * Sessions are not limited by it.
 */
export const routeScopes: Readonly<Record<string, ReadonlyArray<Scope>>> = {
  "GET /contractors": ["directory:read"],
  "GET /contractors/:id": ["directory:read"],
  "POST /contractors": ["directory:write"],
  "POST /contractors/bulk": ["directory:write"],
  "PATCH /contractors/:id": ["directory:write"],
  "POST /contractors/:id/invites": ["directory:write"],
  "POST /contractors/:id/check": ["directory:write"],
  "GET /batches": ["batches:read"],
  "GET /batches/:id": ["batches:read"],
  "GET /batches/:id/payouts": ["batches:read"],
  "POST /batches": ["batches:write"],
  "DELETE /batches/:id": ["batches:write"],
  "POST /batches/:id/ready": ["batches:write"],
  "POST /batches/:id/payouts": ["batches:write"],
  "DELETE /batches/:id/payouts/:payoutId": ["batches:write"],
  "POST /batches/:id/cancel": ["batches:write"],
  "POST /batches/:id/payouts/:payoutId/cancel": ["batches:write"],
  "POST /transfer": ["transfers:submit"],
  "POST /transfers/prepare": ["transfers:submit"],
  "POST /batch": ["transfers:submit"],
  "GET /transfers/:hash": ["transfers:submit", "batches:read"],
  "GET /batch/:jobId": ["transfers:submit", "batches:read"],
  "GET /funding/vault": ["funding:read"],
  "GET /audit": ["audit:read"],
  "GET /audit/verify": ["audit:read"],
  "GET /exports/payouts.csv": ["audit:read"],
  "GET /exports/contractors.csv": ["audit:read"],
  "GET /exports/audit.csv": ["audit:read"],
  "GET /statistics": ["audit:read"],
  // Public chain data, read-only: any key may read it (a Node client proving transfers reads the token as a browser does).
  "POST /stellar-rpc": Scope.literals
}

/** Whether a key with `scopes` may call the operation `method path` (a router path such as `/batches/:id`). */
export const allows = (scopes: ReadonlyArray<string>, method: string, path: string): boolean =>
  (routeScopes[`${method} ${path}`] ?? []).some((scope) => scopes.includes(scope))
