import { readFileSync } from "node:fs"

/**
 * Whether `pid` runs; a zombie (exited, not yet reaped by whoever adopted it) does not. A process of another user
 * (EPERM) runs; without /proc the signal's answer stands.
 */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}
