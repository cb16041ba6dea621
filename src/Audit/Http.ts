import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { AuditLog } from "./AuditLog.ts"
import { auditPolicy } from "./Policy.ts"

export const AuditHttpLive = HttpApiBuilder.group(Api, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    const orgs = yield* Organizations
    const reader = orgs.authorize(auditPolicy.read)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(reader, (actor) => audit.list(actor.orgId, urlParams)))
      .handle("verify", () => Effect.flatMap(reader, (actor) => audit.verify(actor.orgId)))
  }))
