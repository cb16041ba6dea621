import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import * as Path from "node:path"
import { DatabaseConfig, SecretsConfig, ServerConfig } from "../Config.ts"

interface StoredKeys {
  jwtSecret: string
  sep10SigningSecret: string
  sponsorSecret: string
  faucetSecret: string
  channelSecrets: Array<string>
}

const generate = (): StoredKeys => ({
  jwtSecret: randomBytes(32).toString("base64url"),
  sep10SigningSecret: Keypair.random().secret(),
  sponsorSecret: Keypair.random().secret(),
  faucetSecret: Keypair.random().secret(),
  channelSecrets: []
})

/** Development keys live in DATA_DIR/keys.json (mode 0600), created on first start. */
const loadOrCreate = (dataDir: string) =>
  Effect.promise(async () => {
    const file = Path.resolve(dataDir, "keys.json")
    try {
      return { keys: JSON.parse(await readFile(file, "utf8")) as StoredKeys, created: false }
    } catch {
      await mkdir(dataDir, { recursive: true })
      const keys = generate()
      await writeFile(file, JSON.stringify(keys, null, 2), { mode: 0o600, flag: "wx" }).catch(() => undefined)
      return { keys: JSON.parse(await readFile(file, "utf8")) as StoredKeys, created: true }
    }
  })

const keypair = (name: string, secret: Redacted.Redacted) =>
  Effect.try({
    try: () => Keypair.fromSecret(Redacted.value(secret)),
    catch: () => new Error(`${name} is not a valid Stellar secret seed`)
  }).pipe(Effect.orDie)

/**
 * The service's operational keys. Never a user's key; none of them is ever logged or returned.
 * Unset secrets are generated into DATA_DIR outside production and refused in production.
 */
export class OperationalKeys extends Effect.Service<OperationalKeys>()("Auth/OperationalKeys", {
  effect: Effect.gen(function*() {
    const secrets = yield* SecretsConfig
    const { production } = yield* ServerConfig
    const { dataDir } = yield* DatabaseConfig
    const missing = [
      ["JWT_SECRET", secrets.jwtSecret],
      ["SEP10_SIGNING_SECRET", secrets.sep10SigningSecret],
      ["SPONSOR_SECRET", secrets.sponsorSecret],
      ["FAUCET_SECRET", secrets.faucetSecret]
    ].filter(([, value]) => Option.isNone(value as Option.Option<unknown>)).map(([name]) => name as string)
    if (production && missing.length > 0) {
      return yield* Effect.dieMessage(`NODE_ENV=production requires ${missing.join(", ")}`)
    }
    const generated = missing.length > 0 ? Option.some(yield* loadOrCreate(dataDir)) : Option.none()
    if (Option.isSome(generated)) {
      yield* Effect.logWarning("using generated development keys; set them explicitly for any shared deployment").pipe(
        Effect.annotateLogs({ keys: missing.join(","), file: Path.resolve(dataDir, "keys.json") })
      )
    }
    const pick = (configured: Option.Option<Redacted.Redacted>, fallback: (k: StoredKeys) => string) =>
      Option.getOrElse(configured, () => Redacted.make(fallback(Option.getOrThrow(generated).keys)))

    const jwtSecret = pick(secrets.jwtSecret, (k) => k.jwtSecret)
    if (Buffer.byteLength(Redacted.value(jwtSecret)) < 32) {
      return yield* Effect.dieMessage("JWT_SECRET must be at least 32 bytes")
    }
    const channelSecrets = Option.match(secrets.channelSecrets, {
      onNone: () => [] as Array<Redacted.Redacted>,
      onSome: (raw) => Redacted.value(raw).split(",").map((s) => s.trim()).filter((s) => s.length > 0).map((s) => Redacted.make(s))
    })
    const sponsor = yield* keypair("SPONSOR_SECRET", pick(secrets.sponsorSecret, (k) => k.sponsorSecret))
    const faucet = yield* keypair("FAUCET_SECRET", pick(secrets.faucetSecret, (k) => k.faucetSecret))
    const channels = yield* Effect.forEach(channelSecrets, (s) => keypair("CHANNEL_SECRETS", s))
    return {
      jwtSecret: Redacted.make(new TextEncoder().encode(Redacted.value(jwtSecret))),
      sep10: yield* keypair("SEP10_SIGNING_SECRET", pick(secrets.sep10SigningSecret, (k) => k.sep10SigningSecret)),
      sponsor,
      faucet,
      channels,
      /** The service's own Stellar accounts (G...), as stellar.toml publishes them. */
      accounts: [sponsor, faucet, ...channels].map((k) => k.publicKey()),
      generated: Option.isSome(generated) && Option.getOrThrow(generated).created
    } as const
  })
}) {}

