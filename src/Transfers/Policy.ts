import type { Permission } from "../Domain/Roles.ts"

/**
 * What paying needs (issue 22 §1): `transfers:submit` (owner, payer) for POST /transfer, POST /transfers/prepare and
 * POST /batch. Following a transfer (GET /transfers/{hash}) stays open to whoever submitted it and to the members of
 * its organization. The maker-checker rule itself lives with the payout (Batches/PayoutLink.ts) and the sponsor's
 * refusal of unlinked transfers in Transfers.ts.
 */
export const transferPolicy = {
  pay: "transfers:submit"
} as const satisfies Record<string, Permission>
