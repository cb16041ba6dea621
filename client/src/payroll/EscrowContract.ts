// The escrow routes' schemas as the contract (src/Escrow/Api.ts) declares them: the client imports the Api files
// alone (.dependency-cruiser.cjs "the-client-imports-only-the-contract").
import { Effect, Option, Schema } from "effect"
import { EscrowApi } from "../../../src/Escrow/Api.ts"
import type { makeClient } from "../Client.ts"

type Escrow = Effect.Effect.Success<ReturnType<typeof makeClient>>["escrow"]
type Sent = "create" | "rotate" | "registryCall"
type Payload<K extends Sent> = Parameters<Escrow[K]>[0]["payload"]

/** An escrow key as GET /org/escrow-keys answers it. */
export type EscrowKey = Exclude<Effect.Effect.Success<ReturnType<Escrow["list"]>>, ReadonlyArray<unknown>>["keys"][number]

/** The payload of an escrow route, checked by its own schema. */
export const escrowPayload = <K extends Sent>(route: K, value: unknown) =>
  Effect.suspend(() => {
    const schema = Option.getOrThrow(EscrowApi.endpoints[route]!.payloadSchema as Option.Option<Schema.Schema.Any>) as unknown as Schema.Schema<Payload<K>, unknown>
    return Schema.decodeUnknown(schema)(value)
  })
