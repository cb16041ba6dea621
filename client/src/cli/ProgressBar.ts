const WIDTH = 30

const clock = (ms: number) => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/**
 * A run's progress on stderr with the time left (the mean time per item so far, times the items left): one bar redrawn
 * in place on a terminal, one line per change otherwise (logs).
 */
export const progressBar = (total: number, out: NodeJS.WriteStream = process.stderr) => {
  const started = Date.now()
  let last = ""
  return {
    update: (done: number, note = "") => {
      const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH)
      const left = done === 0 || done === total ? "" : `, about ${clock(((Date.now() - started) / done) * (total - done))} left`
      const text = `  [${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}] ${done}/${total}${left}${note === "" ? "" : ` — ${note}`}`
      if (text === last) return
      last = text
      out.write(out.isTTY ? `\r${text}\x1b[K` : `${text}\n`)
    },
    done: () => {
      if (out.isTTY && last !== "") out.write("\n")
    }
  }
}
