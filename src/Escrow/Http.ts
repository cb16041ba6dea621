import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { Api } from "../Api.ts"
import { Deployment } from "../Crs/Deployment.ts"
import { NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { TokenCalls } from "../Transfers/TokenCalls.ts"
import { requireWallet } from "../Transfers/Submitter.ts"
import { EscrowKeys } from "./EscrowKeys.ts"
import { escrowPolicy } from "./Policy.ts"

export const EscrowHttpLive = HttpApiBuilder.group(Api, "escrow", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* EscrowKeys
    const orgs = yield* Organizations
    const calls = yield* TokenCalls
    const deployment = yield* Deployment

    /** The token's auditor registry, as GET /confidential/deployment reads it. */
    const registry = deployment.current.pipe(
      Effect.catchTags({
        DeploymentRefused: (e) => Effect.fail(new NotImplemented({ error: e.message })),
        DeploymentUnavailable: (e) => Effect.fail(new UpstreamUnavailable({ error: e.message }))
      }),
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new NotImplemented({ error: "no confidential token is configured (CONFIDENTIAL_TOKEN_CONTRACT)" })),
        onSome: (d) => Effect.succeed(d.auditorRegistry)
      }))
    )

    return handlers
      .handle("list", () => Effect.flatMap(orgs.authorize(escrowPolicy.read), keys.list))
      .handle("create", ({ payload }) => Effect.flatMap(orgs.authorize(escrowPolicy.manage), (actor) => keys.create(actor, payload)))
      .handle("share", ({ path, payload }) =>
        Effect.flatMap(orgs.authorize(escrowPolicy.disclose), (actor) => keys.share(actor, path.id, payload)))
      .handle("rotate", ({ path, payload }) =>
        Effect.flatMap(orgs.authorize(escrowPolicy.manage), (actor) => keys.rotate(actor, path.id, payload)))
      .handle("registryCall", ({ payload }) =>
        Effect.gen(function*() {
          const session = yield* CurrentSession
          yield* requireWallet(session)
          const actor = yield* orgs.authorize(escrowPolicy.manage)
          const current = (yield* keys.list(actor)).keys.find((k) => k.current)
          return yield* calls.registryCall(session, actor, payload.signedXDR, yield* registry, current)
        }))
  }))
