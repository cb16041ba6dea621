import { createHmac, randomBytes } from "node:crypto"

const PREFIX = "whsec_"

/** A new signing secret in the Standard Webhooks form: `whsec_` and the base64 of 32 random bytes. */
export const newSecret = () => `${PREFIX}${randomBytes(32).toString("base64")}`

/**
 * The Standard Webhooks `webhook-signature` header: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed by
 * the secret's base64-decoded bytes. `timestamp` is in seconds since the epoch.
 */
export const signature = (secret: string, id: string, timestamp: number, body: string) => {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`
}

/**
 * The three headers a delivery carries, signed for this attempt's time by each secret: while a rotated-out secret still
 * signs, the signatures are space-separated, the newest first (Standard Webhooks: "the signature header contains a
 * space-delimited list of signatures", so a receiver holding either secret verifies).
 */
export const signedHeaders = (secrets: ReadonlyArray<string>, id: string, body: string, nowMs: number) => {
  const timestamp = Math.floor(nowMs / 1000)
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => signature(secret, id, timestamp, body)).join(" ")
  }
}
