import { Config, Duration } from "effect"
import { ServerConfig } from "../Config.ts"

/**
 * Webhook delivery. WEBHOOK_RETRY_BASE is the first backoff; each next one doubles, up to 4096 times the first (about
 * 5.7 hours at the default 5 s), for WEBHOOK_MAX_ATTEMPTS attempts in all: at the defaults the last attempt comes
 * some 28 hours after the first, and then the endpoint is disabled unless some delivery to it succeeded meanwhile.
 * WEBHOOK_ALLOW_PRIVATE lets endpoints on private, loopback and link-local addresses through (development and tests
 * only). In production (NODE_ENV=production) endpoints must be https.
 */
export const WebhookConfig = Config.all({
  retryBase: Config.duration("WEBHOOK_RETRY_BASE").pipe(Config.withDefault(Duration.seconds(5))),
  maxAttempts: Config.integer("WEBHOOK_MAX_ATTEMPTS").pipe(
    Config.validate({ message: "WEBHOOK_MAX_ATTEMPTS must be from 1 to 50", validation: (n) => n >= 1 && n <= 50 }),
    Config.withDefault(17)
  ),
  timeout: Config.duration("WEBHOOK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5))),
  allowPrivate: Config.boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  concurrency: Config.integer("WEBHOOK_CONCURRENCY").pipe(
    Config.validate({ message: "WEBHOOK_CONCURRENCY must be from 1 to 1000", validation: (n) => n >= 1 && n <= 1000 }),
    Config.withDefault(32)
  ),
  production: Config.map(ServerConfig, (server) => server.production)
})
export type WebhookConfig = Config.Config.Success<typeof WebhookConfig>
