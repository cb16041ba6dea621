import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { freePort, loopbackRpc } from "./support/TestApp.ts"
import { freshDatabase } from "./support/TestDatabase.ts"

type Attempt = "refused" | "answered" | "hung"

/** One request that either cannot connect, is answered, or is left hanging (no answer within `patienceMs`). */
const attempt = (url: string, patienceMs: number): Promise<{ kind: Attempt; status?: number }> =>
  fetch(url, { signal: AbortSignal.timeout(patienceMs) }).then(
    async (response) => {
      await response.arrayBuffer()
      return { kind: "answered" as const, status: response.status }
    },
    (e: unknown) => ({ kind: (e instanceof Error && e.name === "TimeoutError" ? "hung" : "refused") as Attempt })
  )

describe("start-up", () => {
  it.live("`npm start`'s process opens its socket only when it can answer: every early request is refused or answered", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(1000)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const port = yield* Effect.promise(freePort)
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, ["src/main.ts"], {
            env: { ...process.env, ...database, PORT: String(port), STELLAR_RPC_URL: rpc.url, FRIENDBOT_URL: rpc.url },
            stdio: "ignore"
          })
        ),
        (process) => Effect.sync(() => process.kill("SIGKILL"))
      )
      const url = `http://127.0.0.1:${port}/health`
      const attempts = yield* Effect.promise(async () => {
        const started = Date.now()
        const pending: Array<Promise<{ kind: Attempt; status?: number }>> = []
        let answered = false
        // A request every 10 ms, each with 10 s of patience, until one is answered (at most 60 s of start-up).
        while (!answered && Date.now() - started < 60_000 && child.exitCode === null) {
          const next = attempt(url, 10_000)
          pending.push(next)
          void next.then((a) => { if (a.kind === "answered") answered = true })
          await new Promise((r) => setTimeout(r, 10))
        }
        return Promise.all(pending)
      })
      const kinds = attempts.map((a) => a.kind)
      expect(child.exitCode).toBeNull()
      expect(kinds).toContain("answered")
      expect(kinds).not.toContain("hung")
      expect(attempts.filter((a) => a.kind === "answered").every((a) => a.status === 200)).toBe(true)
    }).pipe(Effect.scoped), 120_000)
})
