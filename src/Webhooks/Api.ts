import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { NotImplemented } from "../Domain/Errors.ts"

// (Skeleton: the webhook routes are filled in by issue 17's work.)
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/webhooks").addError(NotImplemented)
      .annotate(OpenApi.Summary, "List webhook endpoints")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(OpenApi.Description, "Signed event deliveries to the employer's endpoints.")
{}
