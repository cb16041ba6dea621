import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { Forbidden } from "../Domain/Errors.ts"
import { AuditPage, AuditVerification, ListAuditParams, VerifyAuditParams } from "./AuditRecord.ts"

const READERS = "For a member whose role grants `audit:read` (every role does): 403 for a session of no organization, " +
  "or an API key whose role does not grant it."

export class AuditApi extends HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("list", "/audit").setUrlParams(ListAuditParams).addSuccess(AuditPage)
      .annotate(OpenApi.Summary, "Read the audit trail")
      .annotate(
        OpenApi.Description,
        "The organization's control actions and changes of state, newest first, a page at a time (`limit`, default " +
          "50; pass `nextCursor` as `cursor` for the next page): who did what to which record, when, and the state it " +
          "moved from and to. Narrow it by record (`subjectType`, `subjectId`), by `actor`, by `action`, and by time " +
          `(\`from\` inclusive, \`to\` exclusive, ISO 8601 with a zone). ${READERS} 400 for a \`limit\` outside 1 to ` +
          "100, a `cursor` this service did not hand out, or a time that is not an ISO 8601 date-time."
      )
  )
  .add(
    HttpApiEndpoint.get("verify", "/audit/verify").setUrlParams(VerifyAuditParams).addSuccess(AuditVerification)
      .annotate(OpenApi.Summary, "Verify the audit trail")
      .annotate(
        OpenApi.Description,
        "Checks that the audit trail was not changed: each entry is linked, in the order it was recorded, into the " +
          "organization's hash chain (SHA-256 of the previous entry's hash and the entry's content), shortly after " +
          "its change committed. This links what is waiting, then recomputes the whole chain: `verified` is false, " +
          "with `firstBrokenId`, at the first entry that was changed, moved, or follows a removed one. `pending` " +
          "counts the entries recorded meanwhile, which the next verification covers. A verified chain's head comes " +
          "back as a `checkpoint` signed with the service's SIGNING_KEY (SEP-53): kept outside the service and given " +
          "back later as `checkpoint=position:hash`, it shows whether entries up to it were removed since or the " +
          `whole chain recomputed (\`checkpointKept\`), which the chain alone cannot. ${READERS} 400 for a ` +
          "`checkpoint` that is not `position:hash`. Each reads the whole chain, so an organization's verifications " +
          "run one after another."
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Audit trail")
  .annotate(
    OpenApi.Description,
    "Every control action and change of state of the organization, append-only and hash-chained: who did it (a " +
      "member, an API key or the service), what, to which record, and when."
  )
{}
