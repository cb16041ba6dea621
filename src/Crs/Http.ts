import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Api } from "../Api.ts"
import { NotFound, NotImplemented } from "../Domain/Errors.ts"
import { unchanged } from "../Http/IfNoneMatch.ts"
import { TokenDeployment } from "./DeploymentApi.ts"
import { DeploymentConfig } from "./DeploymentConfig.ts"
import type { CrsFile } from "./InstalledCrs.ts"
import { type CrsFileName, ServedCrs } from "./ServedCrs.ts"

/** A day: an operator may replace the files (and restart), so not `immutable`; after that the ETag revalidates. */
const CACHE_CONTROL = "public, max-age=86400"

const NOT_INSTALLED = "the proving CRS is not installed on this service: npm run crs puts one in CRS_DIR " +
  "(default DATA_DIR/crs), and a restart serves it"

const NO_DEPLOYMENT = "no confidential token deployment is configured here: CONFIDENTIAL_TOKEN_CONTRACT, " +
  "CONFIDENTIAL_AUDITOR_CONTRACT and CONFIDENTIAL_VERIFIER_CONTRACT must all be set"

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
      const served = Option.map(crs.file(name), answers)
      return ({ headers }: { readonly headers: { readonly "if-none-match"?: string | undefined } }) =>
        Option.match(served, {
          onNone: () => Effect.fail(new NotFound({ error: NOT_INSTALLED })),
          onSome: ({ etag, full, notModified }) => Effect.succeed(unchanged(headers["if-none-match"], etag) ? notModified : full)
        })
    }
    const deployment = Option.map(yield* DeploymentConfig, (d) => TokenDeployment.make(d))
    return handlers
      .handle("g1", serve("g1"))
      .handle("g2", serve("g2"))
      .handle("deployment", () =>
        Option.match(deployment, {
          onNone: () => Effect.fail(new NotImplemented({ error: NO_DEPLOYMENT })),
          onSome: Effect.succeed
        }))
  }))
