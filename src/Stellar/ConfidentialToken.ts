import { Address, xdr } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import { StellarConfig } from "../Config.ts"
import { RpcClient, RpcError } from "./RpcClient.ts"

/**
 * Reads registrations from the confidential token contract: `public_key(id: Address) -> Option<Bytes>`
 * returns the public viewing key an address registered, or nothing.
 */
export class ConfidentialToken extends Effect.Service<ConfidentialToken>()("Stellar/ConfidentialToken", {
  effect: Effect.gen(function*() {
    const { confidentialTokenContract } = yield* StellarConfig
    const rpc = yield* RpcClient

    const decodeKey = (value: xdr.ScVal): Effect.Effect<Option.Option<string>, RpcError> => {
      switch (value.type) {
        case "scvVoid":
          return Effect.succeed(Option.none())
        case "scvBytes":
          return Effect.succeed(Option.some(Buffer.from(value.bytes.toBytes()).toString("hex")))
        default:
          return new RpcError({ method: "simulateTransaction", message: `public_key returned ${value.type}` })
      }
    }

    /** The registered public viewing key (hex) of `address`; none when unregistered or no contract is configured. */
    const registeredKey = (address: string) =>
      Option.match(confidentialTokenContract, {
        onNone: () => Effect.succeed(Option.none<string>()),
        onSome: (contract) =>
          rpc.simulateRead(contract, "public_key", [Address.fromString(address).toScVal()]).pipe(
            Effect.flatMap(decodeKey)
          )
      }).pipe(Effect.withSpan("ConfidentialToken.registeredKey"))

    return { registeredKey, configured: Option.isSome(confidentialTokenContract) } as const
  }),
  dependencies: [RpcClient.Default]
}) {}
