// The disclosure recipient's side in the browser (loaded with import() by /app/verify only): its key and requests kept
// in this browser's storage (the secret never leaves it unless the recipient downloads it), and a bundle verified by
// SELECTIVE_DISCLOSURE.md §5.3's six steps — the chain read through the Stellar RPC the recipient chooses (by default
// the service's session-free gateway, POST /stellar-rpc/public), the proof checked in the prover's worker under the
// committed keys. The value is shown only when every step passes; a refusal names its step.
import {
  DisclosureAsk,
  type DisclosureBundle,
  DISCLOSURE_STEPS,
  type DisclosureRequestFile,
  makeRecipientKey,
  makeRequest,
  parseBundle,
  parseRequest,
  recipientKeyFile,
  RecipientKeyFile,
  recipientKeyOfFile,
  requestLink,
  rpc,
  verifyBundle
} from "@confidential-payroll/client/confidential"
import { Cause, Effect, Either, Exit, Option, Schema } from "effect"
import { clientFor, run } from "../api/Client.ts"
import { startDisclosureWorker, workerCheck } from "./DisclosureWorker.ts"

const KEY = "payroll.disclosure.key"
const REQUESTS = "payroll.disclosure.requests"
const ANSWERED = "payroll.disclosure.answered"

export const DEFAULT_RPC = () => `${window.location.origin}/stellar-rpc/public`

const readJson = (name: string): unknown => {
  try {
    return JSON.parse(window.localStorage.getItem(name) ?? "null") as unknown
  } catch {
    return null
  }
}

const decodeKey = Schema.decodeUnknownEither(RecipientKeyFile)

/** The recipient key kept in this browser, if any. */
export const storedKey = (): RecipientKeyFile | undefined => Either.getOrUndefined(decodeKey(readJson(KEY)))

export const makeKey = (): RecipientKeyFile => {
  const file = recipientKeyFile(makeRecipientKey())
  window.localStorage.setItem(KEY, JSON.stringify(file))
  return file
}

/** A key file the recipient kept: it must hold a secret and the public key it makes. */
export const importKey = (text: string): RecipientKeyFile | string => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return "the file is not JSON"
  }
  return Either.match(decodeKey(json), {
    onLeft: () => "the file is not a disclosure recipient key (or its public key is not its secret's)",
    onRight: (file) => {
      window.localStorage.setItem(KEY, JSON.stringify(file))
      return file
    }
  })
}

export interface Issued {
  readonly request: DisclosureRequestFile
  readonly createdAt: string
  /** The value verified, as units, once a bundle answered it. */
  readonly answered?: string
}

export const storedRequests = (): ReadonlyArray<Issued> => {
  const raw = readJson(REQUESTS)
  if (!Array.isArray(raw)) return []
  return raw.flatMap((item: unknown) => {
    if (typeof item !== "object" || item === null) return []
    const { request, createdAt, answered } = item as { request?: unknown; createdAt?: unknown; answered?: unknown }
    const parsed = parseRequest(JSON.stringify(request))
    if (Either.isLeft(parsed) || typeof createdAt !== "string") return []
    return [{ request: parsed.right, createdAt, ...(typeof answered === "string" ? { answered } : {}) }]
  })
}

const saveRequests = (issued: ReadonlyArray<Issued>) => window.localStorage.setItem(REQUESTS, JSON.stringify(issued))

/** Where the token is, as the service names it (public: GET /confidential/deployment). */
export const deployment = () => run(clientFor(undefined).crs.deployment())

const decodeAsk = Schema.decodeUnknownEither(DisclosureAsk)

/** The ask as the form filled it, or what is wrong with it (one line). */
export const checkAsk = (ask: unknown): DisclosureAsk | string =>
  Either.match(decodeAsk(ask), {
    onLeft: (e) => `the request is not complete: ${e.message.split("\n").at(-1)?.trim() ?? "check its fields"}`,
    onRight: (a) => a
  })

export const issue = async (key: RecipientKeyFile, ask: DisclosureAsk, label: string): Promise<Issued> => {
  const { contract, networkPassphrase } = await deployment()
  const request = makeRequest({ key: recipientKeyOfFile(key), ask, contract, networkPassphrase, ...(label.trim() === "" ? {} : { label: label.trim() }) })
  const issued = { request, createdAt: new Date().toISOString() }
  saveRequests([issued, ...storedRequests()])
  return issued
}

/** The link a holder opens: its payouts page with the request in the fragment (never sent to a server). */
export const holderLink = (request: DisclosureRequestFile) => requestLink(`${window.location.origin}/app/payouts`, request)

const answered = {
  has: async (nonce: string) => {
    const seen = readJson(ANSWERED)
    return Array.isArray(seen) && seen.includes(nonce)
  },
  add: async (nonce: string) => {
    const seen = readJson(ANSWERED)
    window.localStorage.setItem(ANSWERED, JSON.stringify([...(Array.isArray(seen) ? seen : []), nonce]))
  }
}

export type Verdict =
  | { readonly ok: true; readonly value: bigint; readonly account: string; readonly events: number; readonly circuitId: string }
  | { readonly ok: false; readonly step: number; readonly stepName: string; readonly tag: string; readonly message: string }

const refused = (step: number, tag: string, message: string): Verdict => ({
  ok: false, step, tag, message, stepName: DISCLOSURE_STEPS[step as keyof typeof DISCLOSURE_STEPS] ?? "the request"
})

/** Reads a bundle's text and runs the six steps for `issued`; the verdict, never a thrown error. */
export const verify = async (issued: Issued, key: RecipientKeyFile, bundleText: string, rpcUrl: string): Promise<Verdict> => {
  const bundle = parseBundle(bundleText)
  if (Either.isLeft(bundle)) return refused(0, "BundleUnreadable", `the file is not a disclosure bundle: ${bundle.left.split("\n")[0]}`)
  const worker = startDisclosureWorker([])
  try {
    const checkProof = await workerCheck(worker).catch((error: unknown) => {
      throw new Error(`the committed keys or the prover did not load (${error instanceof Error ? error.message : "unknown"})`)
    })
    const server = new rpc.Server(rpcUrl, { allowHttp: rpcUrl.startsWith("http:") })
    const exit = await Effect.runPromiseExit(verifyBundle({
      server, request: issued.request, key: recipientKeyOfFile(key), bundle: bundle.right as DisclosureBundle, checkProof, answered
    }))
    if (Exit.isSuccess(exit)) {
      const { value, account, events, circuitId } = exit.value
      saveRequests(storedRequests().map((i) => (i.request.nonce === issued.request.nonce ? { ...i, answered: value.toString() } : i)))
      return { ok: true, value, account, events: events.length, circuitId }
    }
    return Option.match(Cause.failureOption(exit.cause), {
      onNone: () => {
        const defect = Cause.squash(exit.cause)
        return refused(0, "VerifierFailed", `the verifier stopped unexpectedly (${defect instanceof Error ? defect.message : "unknown"}): nothing was concluded`)
      },
      onSome: (e) => refused(e.step, e._tag, e.message)
    })
  } catch (error) {
    return refused(0, "VerifierFailed", `${error instanceof Error ? error.message : "the verifier failed"}: nothing was concluded`)
  } finally {
    worker.cancel()
  }
}
