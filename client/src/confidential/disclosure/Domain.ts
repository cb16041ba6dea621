// The domain tags SELECTIVE_DISCLOSURE.md §2.2 adds (circuits/disclosure/lib/src/domain.nr): values continuing the
// token's own 1-13 (DESIGN_cont.md §13) in §2.2's order, as crypto/EphemeralScalar.ts explains.
export { EPHEMERAL_KEY } from "../crypto/EphemeralScalar.ts"

/** δ_disc: the pad of a single-event disclosure ciphertext (§4). */
export const DISCLOSURE = 14n
/** δ_disc_bind: the pad of an aggregate's ciphertext (§10). */
export const DISCLOSURE_BIND = 15n
