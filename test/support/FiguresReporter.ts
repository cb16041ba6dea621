import type { UserConsoleLog } from "vitest"
import type { Reporter, Vitest } from "vitest/node"

/** `[outage figures] …`, `[crash drill, embedded] …`: a lowercase tag in brackets (a pretty log line starts with a time). */
const FIGURES = /^\[[a-z][a-z -]*[\],]/

/**
 * With `silent: "passed-only"` the default reporter shows a test's console output only when it fails; the figures
 * lines that suites print on purpose are measurements worth reading on a passing run too, so they are shown here as
 * they come, and nothing else is.
 */
export default class FiguresReporter implements Reporter {
  private vitest: Vitest | undefined

  onInit(vitest: Vitest) {
    this.vitest = vitest
  }

  onUserConsoleLog(log: UserConsoleLog) {
    const vitest = this.vitest
    if (vitest === undefined || vitest.config.silent === false || !FIGURES.test(log.content)) return
    vitest.logger.log(log.content.trimEnd())
  }
}
