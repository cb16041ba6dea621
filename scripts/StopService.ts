import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { readFile } from "node:fs/promises"
import { join } from "node:path"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** A wait that does not keep the process alive once nothing else does. */
const unrefSleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref())

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The embedded PostgreSQL outlives a service that was killed rather than stopped; its postmaster is then stopped
 * here (SIGINT: PostgreSQL's fast shutdown), before its data directory is removed.
 */
const stopOrphanedCluster = async (dataDir: string) => {
  const pidFile = await readFile(join(dataDir, "pg", "postmaster.pid"), "utf8").catch(() => "")
  const pid = Number(pidFile.split("\n")[0])
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return
  process.kill(pid, "SIGINT")
  for (let waited = 0; waited < 10_000 && alive(pid); waited += 50) await sleep(50)
  if (alive(pid)) process.kill(pid, "SIGKILL")
}

/** SIGTERM, as a deployment stops it (the drain, then the embedded database); SIGKILL if it has not exited in 20 s. */
export const stopService = (child: ChildProcess, exited: Promise<unknown>, dataDir: string) =>
  Effect.promise(async () => {
    const within = (ms: number) => Promise.race([exited.then(() => true), unrefSleep(ms).then(() => false)])
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      if (!(await within(20_000))) {
        child.kill("SIGKILL")
        await within(5_000)
      }
    }
    await stopOrphanedCluster(dataDir)
  })
