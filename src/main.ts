import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { appOn } from "./App.ts"
import { ServerConfig } from "./Config.ts"

const ServerLive = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ host, port }) => NodeHttpServer.layer(createServer, { host, port }))
)

const MainLive = appOn(ServerLive).pipe(
  Layer.tap(() =>
    Effect.flatMap(ServerConfig, ({ publicUrl }) => Effect.logInfo(`listening; docs at ${publicUrl}/docs`))
  )
)

Layer.launch(MainLive).pipe(NodeRuntime.runMain)
