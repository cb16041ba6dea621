import type { SqlError } from "@effect/sql/SqlError"

/** PostgreSQL's unique_violation, whichever constraint raised it. */
export const isUniqueViolation = (error: SqlError): boolean => {
  const cause = error.cause as { code?: unknown } | undefined
  return typeof cause === "object" && cause !== null && cause.code === "23505"
}
