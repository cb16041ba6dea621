import { Duration } from "effect"
export { IdempotencyKeyReused } from "../../Domain/Errors.ts"

/**
 * The `Idempotency-Key` request header of the IETF draft "The Idempotency-Key HTTP Header Field"
 * (draft-ietf-httpapi-idempotency-key-header, https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/):
 * its contract, shared by the server, the typed client and the OpenAPI document.
 */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key"

/** How long an answer is replayed: the draft suggests at least 24 hours. */
export const IDEMPOTENCY_KEY_TTL = Duration.hours(24)

/** The longest key, unquoted. */
export const MAX_KEY_LENGTH = 255

/**
 * The operations that create something and take the header, as `METHOD /path` in the document's path form. POST
 * /transfer is idempotent by its signed envelope already; the key adds the draft's replay on top.
 */
export const IDEMPOTENT_OPERATIONS: ReadonlyArray<string> = [
  "POST /orgs",
  "POST /orgs/invites",
  "POST /contractors",
  "POST /contractors/bulk",
  "POST /contractors/{id}/invites",
  "POST /batches",
  "POST /batches/{id}/payouts",
  "POST /batch",
  "POST /transfer"
]

const BARE = /^[\x21-\x7e]+$/
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/

/**
 * The key a header value names, or undefined when it is not one: the draft's sf-string (`"8e03…"`, printable ASCII,
 * `\"` and `\\` escaped), or the same characters bare without spaces, as many clients send it; 1 to 255 characters.
 */
export const parseIdempotencyKey = (value: string): string | undefined => {
  const quoted = QUOTED.exec(value)
  const key = quoted !== null ? quoted[1]!.replace(/\\(["\\])/g, "$1") : value.startsWith("\"") || !BARE.test(value) ? undefined : value
  return key !== undefined && key.length >= 1 && key.length <= MAX_KEY_LENGTH ? key : undefined
}

const REUSED = "The `Idempotency-Key` was already used, within 24 hours, for a different request (another body or " +
  "another operation): use a new key for a new request"

const HEADER_DESCRIPTION = "Makes a retry of this request safe (IETF draft \"The Idempotency-Key HTTP Header " +
  "Field\"): a unique value per request, such as a UUID, 1 to 255 printable ASCII characters, as a structured-field " +
  "string (`\"8e03978e-40d5-43e8-bc93-6894a57f9324\"`) or bare. Sent again with the same body by the same signed-in " +
  "user within 24 hours, it answers what the first request answered (status, body, `Content-Type`, with " +
  "`Idempotent-Replayed: true`) without doing anything again. Answers of 5xx, 408 and 429 are not kept: retry those. " +
  "400 for a malformed key; 409 while the first request with the key is still running; 422 when the key was used " +
  "for a different request."

/**
 * The generated OpenAPI document, walked by key at any depth to rewrite the 422s. It is JSON the framework made, not
 * input: its shape is checked downstream by Redocly (`npm run lint:openapi`) and test/openapi-docs.test.ts, so the walk
 * reads it untyped rather than narrowing every level.
 */
type Json = Record<string, any>

const isIdempotent = (method: string, path: string) => IDEMPOTENT_OPERATIONS.includes(`${method.toUpperCase()} ${path}`)

const refersTo = (schema: Json | undefined, name: string) => schema?.$ref === `#/components/schemas/${name}`

/** `schema` without references to `name` (in a union); undefined when nothing else is left. */
const without = (schema: Json | undefined, name: string): Json | undefined => {
  if (schema === undefined || refersTo(schema, name)) return undefined
  const members = schema.anyOf ?? schema.oneOf
  if (!Array.isArray(members)) return schema
  const rest = members.filter((member: Json) => !refersTo(member, name))
  if (rest.length === members.length) return schema
  if (rest.length === 1) return rest[0]
  return schema.anyOf !== undefined ? { ...schema, anyOf: rest } : { ...schema, oneOf: rest }
}

/** The description of a schema (the first member's, for a union), from the document's components. */
const descriptionOf = (spec: Json, schema: Json): string => {
  const first = (schema.anyOf ?? schema.oneOf ?? [schema])[0] as Json
  const name = typeof first.$ref === "string" ? first.$ref.split("/").pop() : undefined
  return (name === undefined ? first.description : spec.components?.schemas?.[name]?.description) ?? "Unprocessable request"
}

const CONFLICT = {
  description: "The request conflicts with the current state (a duplicate, or a state that does not allow the " +
    "change), or a request with the same `Idempotency-Key` is in progress",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Conflict" } } }
}

/**
 * The document's side of the header: a described header parameter and the 409 and 422 answers on the operations
 * that take it; the 422 declared API-wide (so that the typed client decodes it) taken off every other operation.
 */
export const documentIdempotencyKey = (spec: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries(spec.paths ?? {} as Json)) {
    const operations: Json = {}
    for (const [method, operation] of Object.entries(item as Json)) {
      if (typeof operation !== "object" || operation === null || !("responses" in operation)) {
        operations[method] = operation
        continue
      }
      const idempotent = isIdempotent(method, path)
      const responses: Json = { ...operation.responses }
      const unprocessable = responses["422"]
      const others = without(unprocessable?.content?.["application/json"]?.schema, "IdempotencyKeyReused")
      if (unprocessable !== undefined && others === undefined && !idempotent) delete responses["422"]
      if (unprocessable !== undefined && others !== undefined) {
        // The answer's description was the API-wide error's (declared first): it goes back to the operation's own.
        const own = descriptionOf(spec, others)
        responses["422"] = idempotent
          ? { ...unprocessable, description: `${own}; or ${REUSED.charAt(0).toLowerCase()}${REUSED.slice(1)}` }
          : { ...unprocessable, description: own, content: { "application/json": { schema: others } } }
      }
      if (!idempotent) {
        operations[method] = { ...operation, responses }
        continue
      }
      responses["409"] ??= CONFLICT
      const parameter = {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: HEADER_DESCRIPTION,
        schema: { type: "string", minLength: 1, maxLength: MAX_KEY_LENGTH + 2 },
        example: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\""
      }
      operations[method] = { ...operation, parameters: [...(operation.parameters ?? []), parameter], responses }
    }
    paths[path] = operations
  }
  return { ...spec, paths }
}
