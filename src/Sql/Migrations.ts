import { NodeContext } from "@effect/platform-node"
import { PgMigrator } from "@effect/sql-pg"
import { Layer } from "effect"
import Init from "../../migrations/0001_init.ts"
import Transfers from "../../migrations/0002_transfers.ts"
import Batches from "../../migrations/0003_batches.ts"
import OrgInvites from "../../migrations/0004_org_invites.ts"
import TokenInterface from "../../migrations/0005_token_interface.ts"
import RateLimits from "../../migrations/0006_rate_limits.ts"
import HousekeepingIndexes from "../../migrations/0007_housekeeping.ts"
import LeaseOwners from "../../migrations/0008_lease_owners.ts"
import ChannelLeases from "../../migrations/0009_channel_leases.ts"
import ReconcileBackoff from "../../migrations/0010_reconcile_backoff.ts"
import ContractorRate from "../../migrations/0011_contractor_rate.ts"
import SubmissionSequence from "../../migrations/0012_submission_sequence.ts"
import Idempotency from "../../migrations/0013_idempotency.ts"
import ApiKeys from "../../migrations/0014_api_keys.ts"
import Archive from "../../migrations/0015_archive.ts"
import Webhooks from "../../migrations/0016_webhooks.ts"
import RateLimitsUnlogged from "../../migrations/0017_rate_limits_unlogged.ts"
import PayoutsPage from "../../migrations/0018_payouts_page.ts"
import PayrollControls from "../../migrations/0019_payroll_controls.ts"
import ArchiveAttribution from "../../migrations/0020_archive_attribution.ts"
import Sep10UsedNonces from "../../migrations/0021_sep10_used_nonces.ts"
import AuditSeals from "../../migrations/0022_audit_seals.ts"
import WebhookSecretRotation from "../../migrations/0023_webhook_secret_rotation.ts"
import AuditCheckpointSends from "../../migrations/0024_audit_checkpoint_sends.ts"
import SealingKeys from "../../migrations/0025_sealing_keys.ts"
import SealedReceipts from "../../migrations/0026_sealed_receipts.ts"
import SealingKeyUnique from "../../migrations/0027_sealing_key_unique.ts"
import EscrowKeys from "../../migrations/0028_escrow_keys.ts"
import { PgLive } from "./PgLive.ts"

/** Migrations are listed here so that they ship with the code; PgMigrator records which ran. */
export const MIGRATIONS = {
  "0001_init": Init,
  "0002_transfers": Transfers,
  "0003_batches": Batches,
  "0004_org_invites": OrgInvites,
  "0005_token_interface": TokenInterface,
  "0006_rate_limits": RateLimits,
  "0007_housekeeping": HousekeepingIndexes,
  "0008_lease_owners": LeaseOwners,
  "0009_channel_leases": ChannelLeases,
  "0010_reconcile_backoff": ReconcileBackoff,
  "0011_contractor_rate": ContractorRate,
  "0012_submission_sequence": SubmissionSequence,
  "0013_idempotency": Idempotency,
  "0014_api_keys": ApiKeys,
  "0015_archive": Archive,
  "0016_webhooks": Webhooks,
  "0017_rate_limits_unlogged": RateLimitsUnlogged,
  "0018_payouts_page": PayoutsPage,
  "0019_payroll_controls": PayrollControls,
  "0020_archive_attribution": ArchiveAttribution,
  "0021_sep10_used_nonces": Sep10UsedNonces,
  "0022_audit_seals": AuditSeals,
  "0023_webhook_secret_rotation": WebhookSecretRotation,
  "0024_audit_checkpoint_sends": AuditCheckpointSends,
  "0025_sealing_keys": SealingKeys,
  "0026_sealed_receipts": SealedReceipts,
  "0027_sealing_key_unique": SealingKeyUnique,
  "0028_escrow_keys": EscrowKeys
} as const

export const MigratorLive = PgMigrator.layer({ loader: PgMigrator.fromRecord(MIGRATIONS) }).pipe(Layer.provide(NodeContext.layer))

/** The database, migrated before anything uses it. */
export const DatabaseLive = MigratorLive.pipe(Layer.provideMerge(PgLive))
