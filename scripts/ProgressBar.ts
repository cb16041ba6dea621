import type { PayrollProgress } from "../client/src/PayrollClient.ts"

const WIDTH = 30

const line = (p: PayrollProgress) => {
  const filled = p.items === 0 ? WIDTH : Math.round((p.itemsDone / p.items) * WIDTH)
  const bar = "█".repeat(filled) + "░".repeat(WIDTH - filled)
  const retry = p.retrying === undefined ? "" : ` (service busy: ${p.retrying.status}, retry ${p.retrying.attempt})`
  return `  [${bar}] ${p.itemsDone}/${p.items} transfers final, ${p.jobsDone}/${p.jobs} jobs${retry}`
}

/**
 * `runPayroll`'s progress on the terminal: one bar redrawn in place on a TTY, one line per change otherwise (CI logs).
 * `done` ends the bar's line.
 */
export const progressBar = (out: NodeJS.WriteStream = process.stdout) => {
  let last = ""
  return {
    onProgress: (p: PayrollProgress) => {
      const text = line(p)
      if (text === last) return
      last = text
      out.write(out.isTTY ? `\r${text}\x1b[K` : `${text}\n`)
    },
    done: () => {
      if (out.isTTY && last !== "") out.write("\n")
    }
  }
}
