/** Polls `probe` every 20 ms until it gives a value (rejecting after `ms`): for state outside Effect, such as the loopback ledger's. */
export const waitFor = async <A>(probe: () => A | undefined, ms = 10_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error("timed out waiting")
    await new Promise((r) => setTimeout(r, 20))
  }
}
