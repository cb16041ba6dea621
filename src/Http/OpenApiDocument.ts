import { HttpApi, HttpApiBuilder, type HttpApiGroup, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Option } from "effect"
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

/** GET `path`: the document, built once when the routes are. */
export const OpenApiRoute = (path: `/${string}`) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      const response = yield* HttpServerResponse.json(openApiDocument(api, yield* deployment)).pipe(Effect.orDie)
      yield* router.get(path, Effect.succeed(response))
    })
  )
