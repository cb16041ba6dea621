// The floors of bench/floor.ts, each in a child process of its own (FLOOR_SERVER): `node` is node:http answering a
// small JSON object by hand; `httpapi` is an @effect/platform HttpApi of one endpoint answering the same object
// through its success schema, served by @effect/platform-node, with no middleware. Not meant to be run by hand.
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { serveAsChild } from "./support.ts"

const node = createServer()
const served = () => `http://127.0.0.1:${(node.address() as AddressInfo).port}`

if (process.env.FLOOR_SERVER === "node") {
  node.on("request", (_request, response) => {
    const body = JSON.stringify({ status: "ok", version: "1.0.0" })
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
  node.listen(0, "127.0.0.1", () => serveAsChild(served(), () => new Promise((done) => node.close(() => done()))))
} else {
  const Liveness = Schema.Struct({ status: Schema.String, version: Schema.String })
  const Api = HttpApi.make("floor").add(HttpApiGroup.make("health").add(HttpApiEndpoint.get("live", "/health/live").addSuccess(Liveness)))
  const Handlers = HttpApiBuilder.group(Api, "health", (handlers) => handlers.handle("live", () => Effect.succeed({ status: "ok", version: "1.0.0" })))
  const Served = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(Handlers))),
    Layer.provide(NodeHttpServer.layer(() => node, { host: "127.0.0.1", port: 0 }))
  )
  Effect.runFork(Layer.launch(Layer.tap(Served, () => Effect.sync(() => serveAsChild(served(), async () => node.closeAllConnections())))))
}
