import { Config, Duration } from "effect"

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n >= 1 }),
    Config.withDefault(fallback)
  )

/**
 * The gateway's own settings. Which contracts it simulates are the deployment's (CONFIDENTIAL_TOKEN_CONTRACT, and the
 * registries and underlying asset the token names: src/Crs/Deployment.ts).
 */
export const StellarRpcConfig = Config.all({
  /** Requests per client address (an IPv6 client: its AUTH_RATE_IPV6_PREFIX network) per window on POST /stellar-rpc. */
  rateLimit: positive("STELLAR_RPC_RATE_LIMIT", 300),
  rateWindow: Config.duration("STELLAR_RPC_RATE_WINDOW").pipe(Config.withDefault(Duration.minutes(1)))
})
export type StellarRpcConfig = Config.Config.Success<typeof StellarRpcConfig>
