import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE sep10_challenges (
    nonce text PRIMARY KEY,
    account text NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX sep10_challenges_expiry ON sep10_challenges (expires_at)`,
  `CREATE TABLE orgs (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE org_members (
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_sub text NOT NULL UNIQUE,
    role text NOT NULL CHECK (role IN ('owner', 'member')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, user_sub)
  )`,
  `CREATE TABLE contractors (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name text NOT NULL,
    email text,
    address text,
    pvk text,
    status text NOT NULL CHECK (status IN ('invited', 'onboarding', 'ready', 'inactive')),
    rate_amount text,
    rate_currency text CHECK (rate_currency IN ('USDC')),
    user_sub text,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_paid_at timestamptz
  )`,
  `CREATE UNIQUE INDEX contractors_org_email ON contractors (org_id, lower(email)) WHERE email IS NOT NULL`,
  `CREATE UNIQUE INDEX contractors_org_address ON contractors (org_id, address) WHERE address IS NOT NULL`,
  `CREATE INDEX contractors_org_page ON contractors (org_id, created_at DESC, id DESC)`,
  `CREATE INDEX contractors_user ON contractors (user_sub) WHERE user_sub IS NOT NULL`,
  `CREATE INDEX contractors_address ON contractors (address) WHERE address IS NOT NULL`,
  `CREATE TABLE invites (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    contractor_id uuid NOT NULL REFERENCES contractors (id) ON DELETE CASCADE,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by text,
    revoked_at timestamptz
  )`,
  `CREATE INDEX invites_contractor ON invites (contractor_id)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
