import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { Api } from "../src/Api.ts"
import { deployment, openApiDocument } from "../src/Http/OpenApiDocument.ts"
import { call } from "./support/Client.ts"
import { conformanceDocument, type OpenApiDocument } from "./support/ConformanceDocument.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

/** The framework's decode failure (the service answers it as InvalidRequest), documented by @effect/platform. */
const FRAMEWORK_SCHEMAS = ["HttpApiDecodeError", "Issue", "PropertyKey"]

interface Schema {
  readonly $ref?: string
  readonly description?: string
  readonly examples?: ReadonlyArray<unknown>
  readonly properties?: Record<string, Schema>
  readonly items?: Schema
  readonly allOf?: ReadonlyArray<Schema>
  readonly anyOf?: ReadonlyArray<Schema>
  readonly oneOf?: ReadonlyArray<Schema>
}

interface MediaType {
  readonly schema?: Schema
  readonly example?: unknown
  readonly examples?: Record<string, { readonly value?: unknown }>
}

interface Operation {
  readonly summary?: string
  readonly description?: string
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string; readonly description?: string }>
  readonly requestBody?: { readonly content: Record<string, MediaType> }
  readonly responses: Record<string, { readonly content?: Record<string, MediaType> }>
}

interface Document extends OpenApiDocument {
  readonly info: { readonly license?: object; readonly contact?: object }
  readonly servers?: ReadonlyArray<{ readonly url: string }>
  readonly tags: ReadonlyArray<{ readonly name: string; readonly description?: string }>
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, Schema> }
}

/** Effect's own descriptions ("a string at most 200 character(s) long", "a Universally Unique Identifier") say nothing. */
const written = (text: string | undefined) => text !== undefined && text.trim().length > 0 && !/^an? /.test(text)

const refName = (schema: Schema) => schema.$ref?.split("/").pop()

/** Every way the document falls short of "documented": one line per problem, located. */
const undocumented = (doc: Document): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    const name = schema === undefined ? undefined : refName(schema)
    return name === undefined ? schema : resolve(doc.components.schemas[name])
  }
  const fieldsOf = (schema: Schema | undefined, where: string, seen: Set<string>) => {
    if (schema === undefined) return
    const name = refName(schema)
    if (name !== undefined) {
      if (seen.has(name) || FRAMEWORK_SCHEMAS.includes(name)) return
      seen.add(name)
      return fieldsOf(doc.components.schemas[name], where, seen)
    }
    for (const inner of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) fieldsOf(inner, where, seen)
    if (schema.items !== undefined) fieldsOf(schema.items, `${where}[]`, seen)
    for (const [key, field] of Object.entries(schema.properties ?? {})) {
      // `_tag` is every error's discriminator: its one value names the error its schema describes.
      if (key !== "_tag" && !written(field.description)) problems.push(`${where}.${key}: no description`)
      fieldsOf(field, `${where}.${key}`, seen)
    }
  }
  const hasExample = (media: MediaType) =>
    media.example !== undefined || media.examples !== undefined || (resolve(media.schema)?.examples?.length ?? 0) > 0

  for (const tag of doc.tags) if (!written(tag.description)) problems.push(`tag ${tag.name}: no description`)
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}`
      if (!written(op.summary)) problems.push(`${key}: no summary`)
      if (!written(op.description)) problems.push(`${key}: no description`)
      for (const p of op.parameters) {
        if (!written(p.description)) problems.push(`${key}: ${p.in} parameter ${p.name} has no description`)
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (!hasExample(media)) problems.push(`${key}: request example missing (${type})`)
        fieldsOf(media.schema, `${key}: request`, new Set())
      }
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (Number(status) < 300 && !hasExample(media)) problems.push(`${key}: ${status} example missing (${type})`)
          fieldsOf(media.schema, `${key}: ${status}`, new Set())
        }
      }
    }
  }
  return problems
}

/** Every example of a JSON request body or answer that its own schema, in the document, refuses. */
const invalidExamples = (doc: Document): ReadonlyArray<string> => {
  const checker = conformanceDocument(doc)
  const examplesOf = (declared: { readonly schema?: unknown } | undefined): ReadonlyArray<unknown> => {
    if (declared === undefined) return []
    const media = declared as MediaType
    const name = media.schema === undefined ? undefined : refName(media.schema)
    const schema = name === undefined ? media.schema : doc.components.schemas[name]
    return [...(media.example === undefined ? [] : [media.example]), ...(schema?.examples ?? [])]
  }
  return checker.operations.flatMap((operation) => [
    ...examplesOf(operation.requestBody?.content?.["application/json"]).flatMap((example) =>
      checker.requestProblems(operation, example).map((p) => `${operation.key} request example: ${p}`)
    ),
    ...Object.entries(operation.responses).flatMap(([status, response]) =>
      examplesOf(response.content?.["application/json"]).flatMap((example) =>
        checker.answerProblems(operation, {
          _tag: "Answered",
          status: Number(status),
          contentType: "application/json",
          text: JSON.stringify(example)
        }).map((p) => `${operation.key} ${status} example: ${p}`)
      )
    )
  ])
}

layer(TestAppLive())("the documented contract (GET /openapi.json)", (it) => {
  const served = Effect.gen(function*() {
    const reply = yield* call(yield* TestApp, "GET", "/openapi.json")
    expect(reply.status).toBe(200)
    return reply.body as Document
  })

  it.effect("every operation, parameter, field and tag is described, and every body and success answer has an example", () =>
    Effect.gen(function*() {
      const problems = undocumented(yield* served)
      expect(problems).toEqual([])
    }))

  it.effect("every example validates against its schema", () =>
    Effect.gen(function*() {
      expect(invalidExamples(yield* served)).toEqual([])
    }))

  it.effect("names this deployment (servers from PUBLIC_URL), whom to contact, and the licence", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const doc = yield* served
      expect(doc.servers?.map((s) => s.url)).toEqual([app.config.PUBLIC_URL])
      expect(doc.info.contact).toEqual({ name: "Confidential Contractor Payroll", url: app.config.PUBLIC_URL })
      expect(doc.info.license).toMatchObject({ name: expect.any(String) })
    }))

  it.effect("is the document npm run lint:openapi builds from the contract and the same settings", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const settings = ConfigProvider.fromMap(new Map(Object.entries(app.config)))
      const built = openApiDocument(Api, yield* Effect.withConfigProvider(deployment, settings))
      expect(yield* served).toEqual(JSON.parse(JSON.stringify(built)))
    }))
})
