import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { AuditLog } from "./AuditLog.ts"
import { Exports } from "./Exports.ts"
import { auditPolicy } from "./Policy.ts"

export const AuditHttpLive = HttpApiBuilder.group(Api, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    const orgs = yield* Organizations
    const reader = orgs.authorize(auditPolicy.read)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(reader, (actor) => audit.list(actor.orgId, urlParams)))
      .handle("verify", ({ urlParams }) => Effect.flatMap(reader, (actor) => audit.verify(actor.orgId, urlParams)))
  }))

export const ExportsHttpLive = HttpApiBuilder.group(Api, "exports", (handlers) =>
  Effect.gen(function*() {
    const exports = yield* Exports
    const orgs = yield* Organizations
    const auditor = orgs.authorize(auditPolicy.read)
    return handlers
      .handle("payouts", ({ urlParams }) => Effect.flatMap(auditor, (actor) => exports.payouts(actor.orgId, urlParams)))
      .handle("contractors", () => Effect.flatMap(auditor, (actor) => exports.contractors(actor.orgId)))
      .handle("audit", ({ urlParams }) => Effect.flatMap(auditor, (actor) => exports.audit(actor.orgId, urlParams)))
      .handle("statistics", ({ urlParams }) => Effect.flatMap(auditor, (actor) => exports.statistics(actor.orgId, urlParams)))
  }))
