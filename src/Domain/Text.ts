import { Schema } from "effect"

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Why PostgreSQL could not store or search this text, if it could not: a NUL is refused in `text` and `jsonb`, and an
 * unpaired surrogate has no UTF-8 encoding (JSON.parse lets both through).
 */
export const textProblem = (text: string): string | undefined =>
  text.includes("\u0000")
    ? "must not contain NUL characters"
    : UNPAIRED_SURROGATE.test(text)
    ? "must not contain unpaired surrogates"
    : undefined

/** Text the service can store and search. */
export const StorableText = Schema.String.pipe(Schema.filter((text) => textProblem(text) ?? true))

/** A trimmed, non-empty name of at most 200 characters (contractors, batches, organizations). */
export const Name = Schema.compose(
  Schema.Trim,
  StorableText.pipe(
    Schema.minLength(1, { message: () => "name must not be empty" }),
    Schema.maxLength(200, { message: () => "name must be at most 200 characters" })
  )
)

export interface TextIssue {
  /** Where: `rows.3.name`, or the query parameter's name. */
  readonly field: string
  readonly problem: string
}

/** The first string (value or key) in a parsed JSON value that the database could not store. */
export const findTextIssue = (value: unknown, path: ReadonlyArray<string | number> = []): TextIssue | undefined => {
  const at = (key?: string | number) => [...path, ...(key === undefined ? [] : [key])].join(".") || "body"
  if (typeof value === "string") {
    const problem = textProblem(value)
    return problem === undefined ? undefined : { field: at(), problem }
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const issue = findTextIssue(value[i], [...path, i])
      if (issue !== undefined) return issue
    }
    return undefined
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const keyProblem = textProblem(key)
      if (keyProblem !== undefined) return { field: at(), problem: `keys ${keyProblem}` }
      const issue = findTextIssue(inner, [...path, key])
      if (issue !== undefined) return issue
    }
  }
  return undefined
}
