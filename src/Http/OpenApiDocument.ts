import { HttpApi, HttpApiBuilder, type HttpApiGroup, HttpApiSwagger, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { ServerConfig, StellarTomlConfig } from "../Config.ts"

/** What the document says about the deployment serving it, from its settings. */
export interface Deployment {
  /** `PUBLIC_URL`: where clients reach the API. */
  readonly publicUrl: string
  readonly contact: { readonly name: string; readonly url: string; readonly email?: string }
}

/** The deployment as its settings describe it: `PUBLIC_URL`, and the organization stellar.toml names (`ORG_*`). */
export const deployment = Effect.gen(function*() {
  const { publicUrl } = yield* ServerConfig
  const org = yield* StellarTomlConfig
  const email = Option.getOrUndefined(Option.orElse(org.orgSupportEmail, () => org.orgOfficialEmail))
  return {
    publicUrl,
    contact: {
      name: org.orgName,
      url: Option.getOrElse(org.orgUrl, () => publicUrl),
      ...(email === undefined ? {} : { email })
    }
  } satisfies Deployment
})

/** The contract's OpenAPI document, as this deployment serves it: with its URL (`servers`) and whom to contact. */
export const openApiDocument = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  { contact, publicUrl }: Deployment
) => {
  const spec = OpenApi.fromApi(api)
  return {
    ...spec,
    info: { ...spec.info, contact },
    servers: [{ url: publicUrl, description: "This deployment (PUBLIC_URL)" }]
  }
}

/**
 * GET `path`: the document, built on its first request and kept. Building it (the whole contract walked, about
 * 100 ms) is not start-up's work: no route needs it to answer.
 */
export const OpenApiRoute = (path: `/${string}`) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      const settings = yield* deployment
      const response = yield* Effect.cached(Effect.suspend(() => HttpServerResponse.json(openApiDocument(api, settings))).pipe(Effect.orDie))
      yield* router.get(path, response)
    })
  )

/**
 * GET `path`: the platform's Swagger page (HttpApiSwagger), likewise built on its first request: its layer is built
 * then, on a router of its own, and that router answers this and every later request for the page.
 */
export const DocsRoute = (path: `/${string}`) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const api = yield* HttpApi.Api
      const page = yield* Effect.cached(
        HttpApiBuilder.Router.router.pipe(
          Effect.provide(HttpApiSwagger.layer({ path }).pipe(
            Layer.provideMerge(HttpApiBuilder.Router.Live),
            Layer.provide(Layer.succeed(HttpApi.Api, api))
          ))
        )
      )
      yield* router.get(path, Effect.flatMap(page, (docs) => Effect.orDie(docs)))
    })
  )
