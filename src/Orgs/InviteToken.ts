import { createHash, randomBytes } from "node:crypto"

/** How long an invite (to a contractor record or to an organization) stays open. */
export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000

/** A new invite token, shown once; only its hash is stored. */
export const newInviteToken = () => randomBytes(32).toString("base64url")

export const hashToken = (token: string) => createHash("sha256").update(token).digest()
