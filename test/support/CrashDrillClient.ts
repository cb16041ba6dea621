import type { Seen } from "./CrashLedgerCheck.ts"

/** Answers that tell a client to try again: none at all (the connection died), RPC unreachable, unavailable, not final yet. */
const TRY_AGAIN = new Set([0, 502, 503, 504])

/** POST /transfer with a body kept byte for byte; status 0 when the connection dies or nothing comes within `ms`. */
export const postTransfer = (url: string, token: string, body: string, ms: number): Promise<Seen> =>
  fetch(`${url}/transfer`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
    signal: AbortSignal.timeout(Math.max(1, ms))
  })
    .then(async (response) => {
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON: the raw text is the body
      }
      return { status: response.status, body: parsed }
    })
    .catch((e: unknown) => ({ status: 0, body: String(e) }))

/** A client that has no final answer for a transfer: the very same body again, every 500 ms, until one or `until`. */
export const retryTransfer = async (url: string, token: string, body: string, until: number) => {
  let attempts = 1
  let seen = await postTransfer(url, token, body, until - Date.now())
  while (TRY_AGAIN.has(seen.status) && Date.now() < until - 500) {
    await new Promise((r) => setTimeout(r, 500))
    attempts += 1
    seen = await postTransfer(url, token, body, until - Date.now())
  }
  return { seen, attempts }
}
