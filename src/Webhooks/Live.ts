import { Layer } from "effect"
import { DeliveryRepo } from "./DeliveryRepo.ts"
import { DeliveryWorkerLive } from "./DeliveryWorker.ts"
import { EndpointRepo } from "./EndpointRepo.ts"
import { Webhooks } from "./Webhooks.ts"

/** The webhooks' service (for the routes) and delivery worker, wired into the service by src/Server/App.ts. */
export const WebhooksLive = Layer.merge(Webhooks.DefaultWithoutDependencies, DeliveryWorkerLive).pipe(
  Layer.provide(Layer.merge(EndpointRepo.Default, DeliveryRepo.Default))
)
