// Which auditor id the paying wallet registers under (issue 36 §2): the organization's escrow key's, once it has one
// and the auditor registry holds its point under that id (`get_key`); the token's default auditor otherwise
// (GET /confidential/deployment's auditorId). A wallet registered under an id whose key is not the organization's would
// encrypt every amount's auditor channel to someone else: refused before anything is proven.
import { readAuditorKey } from "@confidential-payroll/client/escrow"
import { clientFor, run } from "../api/Client.ts"
import type { chainOf } from "./BrowserWallet.ts"

export const registrationAuditorId = async (
  chain: Pick<Awaited<ReturnType<typeof chainOf>>, "server" | "deployment">,
  session: string
): Promise<number> => {
  const { keys } = await run(clientFor(session).escrow.list())
  const current = keys.find((k) => k.current)
  if (current === undefined) return chain.deployment.auditorId
  const registered = await readAuditorKey(chain.server, chain.deployment.networkPassphrase, chain.deployment.auditorRegistry, current.auditorId)
  if (registered !== current.point) {
    throw new Error(
      `The auditor registry does not hold the organization's escrow key under auditor id ${current.auditorId} ` +
        `(${registered === undefined ? "no key is registered there" : "another key is"}): the registry's operator must register it ` +
        "first (Escrow key page), so that this wallet's amounts are readable by the organization's auditors."
    )
  }
  return current.auditorId
}
