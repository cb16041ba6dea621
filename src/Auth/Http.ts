import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { ServerConfig, StellarConfig } from "../Config.ts"
import { Privy } from "./Privy.ts"
import { Sep10 } from "./Sep10.ts"

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const sep10 = yield* Sep10
    const privy = yield* Privy
    const { publicUrl } = yield* ServerConfig
    const { networkPassphrase } = yield* StellarConfig
    const toml = [
      `NETWORK_PASSPHRASE = "${networkPassphrase}"`,
      `SIGNING_KEY = "${sep10.signingKey}"`,
      `WEB_AUTH_ENDPOINT = "${publicUrl}/auth"`,
      ""
    ].join("\n")
    return handlers
      .handle("sep10Challenge", ({ urlParams }) => sep10.challenge(urlParams))
      .handle("sep10Verify", ({ payload }) => sep10.verify(payload.transaction))
      .handle("webAuthChallenge", ({ urlParams }) => sep10.challenge(urlParams))
      .handle("webAuthToken", ({ payload }) => sep10.verify(payload.transaction))
      .handle("privy", ({ payload }) => privy.signIn(payload.token))
      .handle("stellarToml", () => Effect.succeed(toml))
  }))
