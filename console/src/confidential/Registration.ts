// A contractor's registration with the confidential token, made in their browser (loaded with import() by the invite
// page, never ahead): keys derived from their wallet's SEP-53 signature (Freighter's signMessage), the `register`
// proof made in the prover's Web Worker, the transaction prepared through the service's read-only Stellar RPC gateway
// (POST /stellar-rpc), signed by Freighter and sponsored by the service (POST /contractor/register). Nothing secret
// leaves the page: the service sees the signed transaction, whose proof and public keys the chain sees too.
import { prepareCall, type ProgressEvent, type ProverClient, SimulationRefusedError } from "@confidential-payroll/client/confidential"
import { signTransaction } from "@stellar/freighter-api"
import { clientFor, run } from "../api/Client.ts"
import { chainOf, proveRegistration } from "./BrowserWallet.ts"
import type { RegistrationOutcome, Stage } from "./Stages.ts"
import { inWords } from "./Words.ts"

export interface RegistrationOptions {
  /** The signed-in wallet's account (G…), which registers. */
  readonly account: string
  /** The session (SEP-10): the gateway and POST /contractor/register need it. */
  readonly session: string
  /** Each step as it begins; a note on a step already begun (the prover's threads). */
  readonly onStage: (stage: Stage, note?: string) => void
  /** Aborting stops the prover (its worker ends) and ignores whatever answers after. */
  readonly signal: AbortSignal
}

/** AccountAlreadyRegistered (ConfidentialTokenError #3500): someone registered this account in the meantime. */
const ALREADY_REGISTERED = /Error\(Contract, #3500\)/

/** The registration was stopped by the person: not a failure to report. */
export class RegistrationCancelled extends Error {}

/** The worker's progress, as the page's steps. */
const stageOf = (event: ProgressEvent): Stage | undefined => {
  if (event.request === "verificationKey") return "key-check"
  if (event.request !== "prove") return undefined
  return event.stage === "executing-witness" ? "witness" : event.stage === "proving" ? "proving" : undefined
}

export const registerWithToken = async (options: RegistrationOptions): Promise<RegistrationOutcome> => {
  const { account, signal } = options
  const step = (stage: Stage) => {
    if (signal.aborted) throw new RegistrationCancelled("cancelled")
    options.onStage(stage)
  }
  let prover: ProverClient | undefined
  const stop = () => prover?.cancel()
  signal.addEventListener("abort", stop)
  try {
    step("checking")
    const { deployment, server, reader } = await chainOf(options.session)
    if ((await reader.account(account)) !== undefined) return { kind: "already-registered" }

    const data = await proveRegistration({ deployment, server, reader }, account, {
      onStage: (stage, note) => (note === undefined ? step(stage) : options.onStage(stage, note)),
      onProgress: (event) => {
        const stage = stageOf(event)
        if (stage !== undefined && !signal.aborted) options.onStage(stage)
      },
      onWorker: (worker) => { prover = worker }
    })

    step("preparing")
    const source = await server.getAccount(account)
    const call = { fn: "register", account, auditorId: deployment.auditorId, data } as const
    const prepared = await prepareCall(server, deployment, { account, sequence: source.sequenceNumber() }, call).catch((error: unknown) => {
      if (error instanceof SimulationRefusedError && ALREADY_REGISTERED.test(error.error)) return undefined
      throw error
    })
    if (prepared === undefined) return { kind: "already-registered" }
    step("signing")
    const signed = await signTransaction(prepared.toXDR(), { networkPassphrase: deployment.networkPassphrase, address: account })
    if (signed.error !== undefined || signed.signedTxXdr === "") {
      throw new Error(`Freighter did not sign the registration${signed.error === undefined ? "" : `: ${signed.error.message}`}.`)
    }
    step("sending")
    const sent = await run(clientFor(options.session).contractorPortal.register({ payload: { signedXDR: signed.signedTxXdr } }))
    return { kind: "registered", hash: sent.hash }
  } catch (error) {
    if (signal.aborted) throw new RegistrationCancelled("cancelled")
    throw new Error(inWords(error, account), { cause: error })
  } finally {
    signal.removeEventListener("abort", stop)
    stop()
  }
}
