import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Api } from "../Api.ts"
import { NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import { unchanged } from "../Http/IfNoneMatch.ts"
import { Deployment } from "./Deployment.ts"
import type { CrsFile } from "./InstalledCrs.ts"
import { type CrsFileName, ServedCrs } from "./ServedCrs.ts"

/** A day: an operator may replace the files (and restart), so not `immutable`; after that the ETag revalidates. */
const CACHE_CONTROL = "public, max-age=86400"

const NO_DEPLOYMENT = "no confidential token deployment is configured here: set CONFIDENTIAL_TOKEN_CONTRACT (the token " +
  "names its registries and its asset)"

/** Both answers of a file, made once: a request only picks one. */
const answers = (file: CrsFile) => {
  const headers = { etag: file.etag, "cache-control": CACHE_CONTROL }
  return {
    etag: file.etag,
    full: HttpServerResponse.uint8Array(file.bytes, { contentType: "application/octet-stream", headers }),
    notModified: HttpServerResponse.empty({ status: 304, headers })
  }
}

export const CrsHttpLive = HttpApiBuilder.group(Api, "crs", (handlers) =>
  Effect.gen(function*() {
    const crs = yield* ServedCrs
    const serve = (name: CrsFileName) => {
      const { etag, full, notModified } = answers(crs.file(name))
      return ({ headers }: { readonly headers: { readonly "if-none-match"?: string | undefined } }) =>
        Effect.succeed(unchanged(headers["if-none-match"], etag) ? notModified : full)
    }
    const deployment = yield* Deployment
    return handlers
      .handle("g1", serve("g1"))
      .handle("g2", serve("g2"))
      .handle("deployment", () =>
        deployment.current.pipe(
          Effect.catchTags({
            DeploymentRefused: (e) => Effect.fail(new NotImplemented({ error: e.message })),
            DeploymentUnavailable: (e) => Effect.fail(new UpstreamUnavailable({ error: e.message }))
          }),
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new NotImplemented({ error: NO_DEPLOYMENT })),
            onSome: Effect.succeed
          }))
        ))
  }))
