import type { Permission } from "../Domain/Roles.ts"
import type { TokenCallKind } from "./SponsorPolicy.ts"

/**
 * What paying needs (issue 22 §1): `transfers:submit` (owner, payer) for POST /transfer, POST /transfers/prepare and
 * POST /batch. Following a transfer (GET /transfers/{hash}) stays open to whoever submitted it and to the members of
 * its organization. The maker-checker rule itself lives with the payout (Batches/PayoutLink.ts) and the sponsor's
 * refusal of unlinked transfers in Transfers.ts.
 */
export const transferPolicy = {
  pay: "transfers:submit"
} as const satisfies Record<string, Permission>

/**
 * Whose own token calls the sponsor pays for (POST /token/calls), each on the caller's own wallet only: a member who
 * may pay (`transfers:submit`: owner, payer) for the wallet that funds payroll — `register` it, `deposit` into it,
 * `merge` what it received, `withdraw` from it; a contractor of an organization here (as POST /contractor/register
 * decides it) for what being paid needs — `register` to be paid, `merge` to spend it, `withdraw` to cash it out.
 * Not a contractor's `deposit`: it moves their own public funds into the token, which no payroll needs, and the
 * sponsor would otherwise pay for anyone an organization ever listed to use the token as a private wallet fed from
 * anywhere; its amount is public, so it harms no one's privacy to pay it themselves.
 */
export const tokenCallPolicy = {
  member: transferPolicy.pay,
  memberCalls: new Set<TokenCallKind>(["register", "deposit", "merge", "withdraw"]),
  contractorCalls: new Set<TokenCallKind>(["register", "merge", "withdraw"])
} as const
