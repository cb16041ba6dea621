import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

const ROLES = "'owner', 'admin', 'initiator', 'approver', 'payer', 'viewer', 'auditor'"

/**
 * The organization's escrow key (issue 36 §2): an auditor key pair in OpenZeppelin's form (Grumpkin, K = k·H), of which
 * the service keeps the public point, the auditor id it is registered under and the secret sealed among the members
 * holding `audit:disclose` (the envelope of migration 0025, opaque here). The `auditor` role holds that permission.
 *
 * A rotation is a new row that `replaces` the current one, with the ledger it took over at (`valid_from_ledger`); the
 * replaced row stays, so events from before stay readable (OZ DESIGN_cont.md §8.3). An organization's first key
 * replaces nothing and claims its auditor id: no other organization's first key may claim it.
 */
const statements = [
  `ALTER TABLE org_members DROP CONSTRAINT IF EXISTS org_members_role_check`,
  `ALTER TABLE org_members ADD CONSTRAINT org_members_role_check CHECK (role IN (${ROLES}))`,
  `ALTER TABLE org_invites DROP CONSTRAINT IF EXISTS org_invites_role_check`,
  `ALTER TABLE org_invites ADD CONSTRAINT org_invites_role_check CHECK (role IN (${ROLES}))`,
  `ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_role_check`,
  `ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check CHECK (role IN (${ROLES}))`,
  `CREATE TABLE org_escrow_keys (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    auditor_id bigint NOT NULL CHECK (auditor_id BETWEEN 0 AND 4294967295),
    point text NOT NULL UNIQUE CHECK (point ~ '^[0-9a-f]{128}$'),
    version integer NOT NULL CHECK (version >= 1),
    envelope jsonb NOT NULL,
    digest text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    replaces uuid UNIQUE REFERENCES org_escrow_keys (id),
    valid_from_ledger bigint CHECK (valid_from_ledger > 0),
    created_at timestamptz NOT NULL,
    created_by text NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by text NOT NULL,
    CHECK ((replaces IS NULL) = (valid_from_ledger IS NULL))
  )`,
  `CREATE UNIQUE INDEX org_escrow_keys_first ON org_escrow_keys (org_id) WHERE replaces IS NULL`,
  `CREATE UNIQUE INDEX org_escrow_keys_auditor ON org_escrow_keys (auditor_id) WHERE replaces IS NULL`,
  `CREATE INDEX org_escrow_keys_org ON org_escrow_keys (org_id, created_at)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
