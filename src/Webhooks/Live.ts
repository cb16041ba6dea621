import { Layer } from "effect"

/** The webhooks' services and delivery worker, wired into the service by src/App.ts (skeleton). */
export const WebhooksLive = Layer.empty
