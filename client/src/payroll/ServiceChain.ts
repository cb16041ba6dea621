import { Effect } from "effect"
import { ChainReader } from "../confidential/chain/ChainReader.ts"
import { rpc } from "@stellar/stellar-sdk"
import { makeGroupClient } from "../Client.ts"

/**
 * Where the confidential token lives (GET /confidential/deployment) and the chain read through the service's
 * read-only Stellar RPC gateway (POST /stellar-rpc) with the session: what the console's wallet reads, so a client
 * needs no Stellar RPC of its own. Provide an `HttpClient`.
 */
export const serviceChain = (baseUrl: string, token: string) =>
  Effect.gen(function*() {
    const crs = yield* makeGroupClient("crs", baseUrl, token)
    const deployment = yield* crs.deployment()
    const server = new rpc.Server(`${baseUrl.replace(/\/$/, "")}/stellar-rpc`, {
      allowHttp: baseUrl.startsWith("http:"),
      headers: { authorization: `Bearer ${token}` }
    })
    return { deployment, server, reader: new ChainReader(server, deployment) }
  })

export type ServiceChain = Effect.Effect.Success<ReturnType<typeof serviceChain>>
