import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as Path from "node:path"
import { alive } from "./support/EmbeddedCluster.ts"
import { waitUntil } from "./support/WaitFor.ts"

// `npm run demo` runs in CI (.ci/run) to its end; this is the other way it ends: a Ctrl-C half-way through the payroll.
describe("npm run demo", () => {
  it.live("Ctrl-C during the payroll: exit 130, the service and its PostgreSQL stopped, the temporary DATA_DIR removed", () =>
    Effect.promise(async () => {
      const { DATABASE_URL: _url, ...env } = process.env
      const demo = spawn(process.execPath, ["scripts/demo.ts"], { env, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      demo.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      demo.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => demo.once("exit", resolve))
      try {
        await waitUntil("the payroll to start", () => output.includes("Running the payroll") || demo.exitCode !== null, 240_000)
        expect(demo.exitCode, `the demo ended before its payroll:\n${output}`).toBeNull()
        const [, pid, dataDir] = /\(pid (\d+), DATA_DIR (.+)\)/.exec(output) ?? []
        expect(dataDir, output).toBeDefined()
        const postmaster = Number((await readFile(Path.join(dataDir!, "pg", "postmaster.pid"), "utf8")).split("\n")[0])
        expect(alive(Number(pid))).toBe(true)
        expect(alive(postmaster)).toBe(true)

        demo.kill("SIGINT")
        expect(await exited, output).toBe(130)
        expect(output).toContain("Interrupted: everything the demo started is stopped and removed.")
        expect(alive(Number(pid))).toBe(false)
        expect(alive(postmaster)).toBe(false)
        expect(existsSync(dataDir!)).toBe(false)
      } finally {
        if (demo.exitCode === null) demo.kill("SIGKILL")
      }
    }), 300_000)
})
