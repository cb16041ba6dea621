import { Either } from "effect"
import { findTextIssue } from "../Domain/Text.ts"

/** `application/json` and every `application/*+json` (RFC 6839), with or without parameters. */
export const isJsonMediaType = (contentType: string) =>
  /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json\s*(?:;.*)?$/.test(contentType)

/** No request of this API nests deeper; bounding it keeps every later recursive walk shallow. */
export const MAX_JSON_DEPTH = 64

/** Whether arrays and objects nest deeper than `limit`, found by scanning (strings skipped) before any parse. */
export const nestsDeeperThan = (text: string, limit: number) => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text)

/** A JSON body as handlers may take it: bounded nesting, well-formed, and only text the database can store. */
export const parseJsonBody = (text: string): Either.Either<unknown, string> => {
  if (text.length === 0) return Either.right(null)
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return Either.left(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Either.left("malformed JSON body")
  }
  const issue = findTextIssue(value)
  return issue === undefined ? Either.right(value) : Either.left(`invalid request: ${clip(issue.field)}: ${issue.problem}`)
}
