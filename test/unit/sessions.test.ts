import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { SESSION_TTL_SECONDS, SessionVerifier } from "../../src/Auth/SessionVerifier.ts"

const SECRET = "a fixed test secret of at least thirty-two bytes"

describe("SessionVerifier", () => {
  it.layer(SessionVerifier.layerTest(SECRET))("HS256 sessions", (it) => {
    it.effect("verifies what it issued into the session", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionVerifier
        const { token } = yield* sessions.issue("GWALLET", "sep10")
        expect(yield* sessions.verify(token)).toMatchObject({ sub: "GWALLET", method: "sep10", email: undefined })
        const email = yield* sessions.issue("did:privy:1", "privy", "ada@example.com")
        expect(yield* sessions.verify(email.token)).toMatchObject({ sub: "did:privy:1", method: "privy", email: "ada@example.com" })
      }))

    it.effect("a missing, forged or expired token is 401 with its reason", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionVerifier
        const error = (token: string) => Effect.map(Effect.flip(sessions.verify(token)), (e) => `${e._tag}: ${e.error}`)
        expect(yield* error("")).toBe("Unauthorized: missing bearer token")
        expect(yield* error("not.a.jwt")).toBe("Unauthorized: invalid session token")
        const foreign = yield* Effect.provide(
          Effect.flatMap(SessionVerifier, (other) => other.issue("GWALLET", "sep10")),
          SessionVerifier.layerTest("another secret of at least thirty-two bytes!")
        )
        expect(yield* error(foreign.token)).toBe("Unauthorized: invalid session token")
        const { token } = yield* sessions.issue("GWALLET", "sep10")
        yield* TestClock.adjust(`${SESSION_TTL_SECONDS + 1} seconds`)
        expect(yield* error(token)).toBe("Unauthorized: session expired")
      }))

    it.effect("a session verified before is still refused once it expires, and a tampered copy never passes", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionVerifier
        const { token } = yield* sessions.issue("GWALLET", "sep10")
        const first = yield* sessions.verify(token)
        // The same token again: the same session (kept from the first check).
        expect(yield* sessions.verify(token)).toEqual(first)
        const [head, payload, signature] = token.split(".")
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"))
        const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: "GOTHER" })).toString("base64url")}.${signature}`
        expect((yield* Effect.flip(sessions.verify(forged))).error).toBe("invalid session token")
        yield* TestClock.adjust(`${SESSION_TTL_SECONDS + 1} seconds`)
        expect((yield* Effect.flip(sessions.verify(token))).error).toBe("session expired")
      }))
  })
})
