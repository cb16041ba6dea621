// The holder's answer to a disclosure request in the browser (loaded with import() by the payouts and batch pages):
// the request read from its link or file, the account's transfer events from the service's archive with those the
// request asks about picked out, then — once the holder confirms — its keys from Freighter, the proof in the prover's
// worker, and the bundle (circuit_id, event references, proof, disclosure ciphertext) to download. Only the bundle
// leaves this browser, and only when the holder sends it.
import {
  bundleJson,
  type DisclosureBundle,
  discloseReceived,
  discloseReceivedTotal,
  discloseSent,
  discloseSentTotal,
  type DisclosureRequestFile,
  DISCLOSURE_VARIANTS,
  keysFromSigner,
  matchingEvents,
  parseRequest,
  type ProgressEvent,
  requestFromLink,
  type TransferEvent,
  transfersOfPage
} from "@confidential-payroll/client/confidential"
import { signMessage } from "@stellar/freighter-api"
import type { Either } from "effect"
import { clientFor, run } from "../api/Client.ts"
import { chainOf, settle } from "../confidential/BrowserWallet.ts"
import { startDisclosureWorker, workerProve } from "./DisclosureWorker.ts"

/** A request from a link (`…#request=…`) or a request file's JSON; Left: why it is neither. */
export const readRequest = (text: string): Either.Either<DisclosureRequestFile, string> => {
  const trimmed = text.trim()
  return trimmed.startsWith("{") ? parseRequest(trimmed) : requestFromLink(trimmed)
}

/** The account's transfer events, each with its reference, as the service's archive holds them. */
const transfersOf = async (session: string, contract: string, account: string) => {
  const archive = clientFor(session).archive
  const events: Array<TransferEvent> = []
  let cursor: string | undefined
  do {
    const page = await run(archive.accountEvents({
      path: { contractId: contract, account },
      urlParams: { types: "transfer,spender_transfer", limit: 1000, ...(cursor === undefined ? {} : { cursor }) }
    }))
    events.push(...transfersOfPage(page.events))
    cursor = page.cursor ?? undefined
  } while (cursor !== undefined)
  return events
}

export interface Opened {
  readonly request: DisclosureRequestFile
  /** Every transfer event of the account (the holder may add or drop one), and those the request asks about. */
  readonly events: ReadonlyArray<TransferEvent>
  readonly matching: ReadonlyArray<TransferEvent>
}

/** The request checked against this service's token, with the account's events it asks about pre-selected. */
export const openRequest = async (session: string, account: string, request: DisclosureRequestFile): Promise<Opened> => {
  const { deployment } = await chainOf(session)
  if (request.contract !== deployment.contract || request.networkPassphrase !== deployment.networkPassphrase) {
    throw new Error(`the request is about the token ${request.contract}, not this service's (${deployment.contract})`)
  }
  const events = await transfersOf(session, deployment.contract, account)
  return { request, events, matching: matchingEvents(request, account, events) }
}

export type AnswerStage = "keys" | "prover" | "proving"

/**
 * The bundle answering `request` over `chosen` (events of `account`): D-recipient or its aggregate when the account was
 * paid, D-sender or its aggregate when it paid; its JSON text.
 */
export const answer = async (
  session: string,
  account: string,
  request: DisclosureRequestFile,
  chosen: ReadonlyArray<TransferEvent>,
  onStage: (stage: AnswerStage) => void,
  onProgress?: (event: ProgressEvent) => void
): Promise<string> => {
  if (chosen.length === 0) throw new Error("no payout is selected")
  const { deployment, reader } = await chainOf(session)
  const paid = chosen.every((e) => e.to === account)
  if (!paid && !chosen.every((e) => e.originator === account)) throw new Error("the selected payouts were neither all paid to you nor all paid by you")
  const total = request.ask.kind !== "event"
  const circuitId = total ? (paid ? (chosen.length <= 8 ? "disclose_recipient_8" : "disclose_recipient_24") : chosen.length <= 8 ? "disclose_sender_8" : "disclose_sender_24") : paid ? "disclose_recipient" : "disclose_sender"
  const worker = startDisclosureWorker([DISCLOSURE_VARIANTS[circuitId].circuit], onProgress)
  try {
    onStage("keys")
    const registered = await reader.account(account)
    const keys = await keysFromSigner({
      signer: { signMessage }, account, contract: deployment.contract, networkPassphrase: deployment.networkPassphrase,
      ...(registered === undefined ? {} : { registered })
    })
    onStage("prover")
    await worker.ready
    onStage("proving")
    const prove = workerProve(worker)
    const payeeKey = async () => {
      const payee = await reader.account(chosen[0]!.to)
      if (payee === undefined) throw new Error(`${chosen[0]!.to} is not registered with the token`)
      return payee.viewingPublicKey
    }
    const bundle: DisclosureBundle = paid
      ? await settle(total ? discloseReceivedTotal({ keys, events: chosen, request, prove }) : discloseReceived({ keys, event: chosen[0]!, request, prove }))
      : await settle(total
        ? discloseSentTotal({ keys, events: chosen, recipientViewingKey: await payeeKey(), request, prove })
        : discloseSent({ keys, event: chosen[0]!, recipientViewingKey: await payeeKey(), request, prove }))
    return bundleJson(bundle)
  } finally {
    worker.cancel()
  }
}
