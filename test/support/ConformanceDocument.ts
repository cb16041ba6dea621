import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"

/** The parts of an OpenAPI 3.1 document the conformance suite reads. */
export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, unknown>>
  readonly components?: { readonly schemas?: Record<string, unknown> }
}

interface MediaType {
  readonly schema?: unknown
}

interface Response {
  readonly content?: Record<string, MediaType>
}

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly required?: boolean
  readonly schema?: { readonly type?: unknown; readonly format?: string; readonly pattern?: string; readonly maxLength?: number; readonly enum?: ReadonlyArray<unknown> }
}

export interface Operation {
  /** `GET /batches/{id}`: the method and the path template, as the document names them. */
  readonly key: string
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly security: ReadonlyArray<unknown>
  readonly requestBody: { readonly content?: Record<string, MediaType>; readonly required?: boolean } | undefined
  readonly responses: Record<string, Response>
}

/** What came back for one request: a status and the raw body, or no answer at all. */
export type Answer =
  | { readonly _tag: "Answered"; readonly status: number; readonly contentType: string | undefined; readonly text: string }
  | { readonly _tag: "NoAnswer"; readonly error: string }

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

const DOCUMENT_ID = "openapi.json"

/** A JSON Pointer into the document as a URI fragment ajv resolves (`~` and `/` escaped, then percent-encoded). */
const pointer = (...segments: ReadonlyArray<string>) =>
  `${DOCUMENT_ID}#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/")}`

/** ajv's errors as short lines, each once (the branches of an `anyOf` often repeat one another). */
const describeErrors = (errors: ReadonlyArray<ErrorObject> | null | undefined) => {
  const lines = (errors ?? []).map((e) =>
    `${e.instancePath || "(root)"} ${e.message ?? e.keyword}${e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : ""}`
  )
  return [...new Set(lines)].slice(0, 6)
}

/**
 * The served document, read as JSON Schema 2020-12 by ajv (not through the service's own schemas): the whole
 * document is registered once, and each request or response schema is compiled where it stands in it, so that
 * `#/components/schemas/...` references resolve against the document itself.
 */
export const conformanceDocument = (document: OpenApiDocument) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats.default(ajv)
  ajv.addSchema(document as object, DOCUMENT_ID)
  const compiled = new Map<string, ValidateFunction>()
  const validator = (...segments: ReadonlyArray<string>) => {
    const ref = pointer(...segments)
    let validate = compiled.get(ref)
    if (validate === undefined) {
      validate = ajv.getSchema(ref)
      if (validate === undefined) throw new Error(`no schema at ${ref}`)
      compiled.set(ref, validate)
    }
    return validate
  }

  const operations: ReadonlyArray<Operation> = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => typeof item[m] === "object" && item[m] !== null).map((m) => {
      const op = item[m] as Omit<Operation, "key" | "method" | "path" | "parameters" | "security"> & {
        readonly parameters?: ReadonlyArray<Parameter>
        readonly security?: ReadonlyArray<unknown>
      }
      return {
        key: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        security: op.security ?? [],
        requestBody: op.requestBody,
        responses: op.responses
      }
    })
  )

  /** Problems of a JSON request body against the operation's declared request schema ([] when it fits). */
  const requestProblems = (operation: Operation, body: unknown): ReadonlyArray<string> => {
    if (operation.requestBody?.content?.["application/json"]?.schema === undefined) return []
    const validate = validator("paths", operation.path, operation.method.toLowerCase(), "requestBody", "content", "application/json", "schema")
    return validate(body) ? [] : describeErrors(validate.errors)
  }

  /** Every way an answer departs from what the operation declares ([] when it conforms). */
  const answerProblems = (operation: Operation, answer: Answer): ReadonlyArray<string> => {
    if (answer._tag === "NoAnswer") return [`no answer: ${answer.error}`]
    const status = String(answer.status)
    const declaredAs = operation.responses[status] !== undefined ? status : operation.responses.default !== undefined ? "default" : undefined
    if (declaredAs === undefined) return [`status ${status} is not declared (declared: ${Object.keys(operation.responses).join(", ")})`]
    const content = operation.responses[declaredAs]!.content
    if (content === undefined || Object.keys(content).length === 0) {
      return answer.text.length === 0 ? [] : [`status ${status} declares no body, got ${answer.text.length} bytes`]
    }
    const mediaType = (answer.contentType ?? "").split(";")[0]!.trim().toLowerCase()
    if (content[mediaType] === undefined) {
      return [`content type "${answer.contentType ?? "(none)"}" is not declared for ${status} (declared: ${Object.keys(content).join(", ")})`]
    }
    if (mediaType !== "application/json" || content[mediaType].schema === undefined) return []
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      return [`body is not JSON: ${JSON.stringify(answer.text.slice(0, 80))}`]
    }
    const validate = validator("paths", operation.path, operation.method.toLowerCase(), "responses", declaredAs, "content", mediaType, "schema")
    return validate(body) ? [] : describeErrors(validate.errors).map((e) => `body does not validate: ${e}`)
  }

  return { operations, requestProblems, answerProblems } as const
}

export type ConformanceDocument = ReturnType<typeof conformanceDocument>
