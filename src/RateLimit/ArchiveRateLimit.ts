import { HttpApiMiddleware } from "@effect/platform"
import { RateLimited } from "../Domain/Errors.ts"

/**
 * Requests per client address on the archive's routes (indexer.md "Retention Obligations": serving, never retention,
 * may be limited), counted across every instance: 429 with Retry-After past ARCHIVE_RATE_LIMIT per ARCHIVE_RATE_WINDOW.
 */
export class ArchiveRateLimit extends HttpApiMiddleware.Tag<ArchiveRateLimit>()("RateLimit/ArchiveRateLimit", {
  failure: RateLimited
}) {}
