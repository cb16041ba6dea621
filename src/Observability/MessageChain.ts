/** An error and the errors it wraps, as one line (`PgClient: Failed to connect: connect ECONNREFUSED 127.0.0.1:5432`). */
export const messageChain = (error: unknown): string => {
  const messages: Array<string> = []
  for (let at: unknown = error; at !== undefined && messages.length < 5; at = (at as { cause?: unknown }).cause) {
    const message = at instanceof Error || (typeof at === "object" && at !== null && "message" in at)
      ? String((at as { message: unknown }).message)
      : String(at)
    if (message !== "" && !messages.some((seen) => seen.includes(message))) messages.push(message)
    if (typeof at !== "object" || at === null) break
  }
  return messages.join(": ")
}
