/**
 * Every request body is at most this large (INTERFACE-SPEC §8): 413 past it, decided before the body is read
 * (`src/Http/ServerMiddleware.ts`). Here in Domain, not in Http, because the contract's clients split their payloads
 * by it (the typed client's `planJobs`), and the client may import only the contract. A payload's own rules (items per
 * batch run, rows per import, a page's size) stay with its schema.
 */
export const MAX_BODY_BYTES = 256 * 1024
/** The same limit in KiB, as the contract's descriptions say it. */
export const MAX_BODY_KIB = MAX_BODY_BYTES / 1024
