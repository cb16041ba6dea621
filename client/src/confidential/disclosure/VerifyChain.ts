// The chain reads of the verifier's steps 1-3 (SELECTIVE_DISCLOSURE.md §5.3), through any Stellar RPC the verifier
// chooses (the SDK's rpc.Server): an event by (tx hash, event index) from getTransaction's meta, an account's PVK by
// simulating `confidential_balance`, the token's instance, and the auditor key active at an event's ledger.
import { nativeToScVal, rpc, scValToNative, StrKey, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { ChainReader } from "../chain/ChainReader.ts"
import { readDeployment, type ChainDeployment } from "../chain/ReadDeployment.ts"
import type { EventRef } from "./Exchange.ts"
import { decodeTransferEvent, type TransferEvent } from "./TransferEvent.ts"
import { AccountNotRegistered, AuditorKeyUnresolved, ChainUnreadable, EventNotFound, WrongContract } from "./VerifyErrors.ts"

const said = (error: unknown) => (error instanceof Error ? error.message : String(error))
const read = <A>(step: 1 | 2 | 3, what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (e) => new ChainUnreadable({ step, message: `Stellar RPC could not give ${what}: ${said(e)}` }) })

/** A Soroban transaction's contract events (one operation): protocol 23's meta v4 keeps them per operation, v3 in sorobanMeta. */
export const contractEvents = (meta: xdr.TransactionMeta): ReadonlyArray<xdr.ContractEvent> => {
  switch (meta.type) {
    case "v4":
      return meta.v4.operations[0]?.events ?? []
    case "v3":
      return meta.v3.sorobanMeta?.events ?? []
    default:
      return []
  }
}

const label = (ref: EventRef) => `event ${ref.eventIndex} of transaction ${ref.txHash}`

/** Step 1: exactly one transfer-family event of `contract` at `ref`. */
export const resolveEvent = (server: rpc.Server, contract: string, ref: EventRef) =>
  Effect.gen(function* () {
    const tx = yield* read(1, `the transaction ${ref.txHash}`, () => server.getTransaction(ref.txHash))
    if (tx.status !== rpc.Api.GetTransactionStatus.SUCCESS) {
      return yield* new EventNotFound({ step: 1, message: `no successful transaction ${ref.txHash} (${tx.status.toLowerCase()})` })
    }
    const event = contractEvents(tx.resultMetaXdr)[ref.eventIndex]
    if (event === undefined) return yield* new EventNotFound({ step: 1, message: `the transaction ${ref.txHash} emitted no event ${ref.eventIndex}` })
    const emitter = event.contractId === null ? "no contract" : StrKey.encodeContract(event.contractId.toBytes())
    if (emitter !== contract) return yield* new WrongContract({ step: 1, message: `${label(ref)} was emitted by ${emitter}, not the token ${contract}` })
    const body = event.body.v0
    const decoded = decodeTransferEvent(body.topics, body.data, { ref, ledger: tx.ledger, closedAt: tx.createdAt * 1000 })
    if ("problem" in decoded) {
      return yield* new EventNotFound({
        step: 1,
        message: decoded.problem === "NotTransfer" ? `${label(ref)} is a ${decoded.name} event, not a transfer` : `${label(ref)} does not decode: ${decoded.reason}`
      })
    }
    return decoded satisfies TransferEvent
  })

/** Step 2: the account's record, by simulating `confidential_balance` (any deployment fields but the token's are unused). */
export const resolveAccount = (server: rpc.Server, contract: string, networkPassphrase: string, account: string) =>
  Effect.gen(function* () {
    const reader = new ChainReader(server, { contract, networkPassphrase, auditorRegistry: contract, verifierRegistry: contract })
    const found = yield* read(2, `the account ${account}`, () => reader.account(account))
    if (found === undefined) return yield* new AccountNotRegistered({ step: 2, account, message: `${account} is not registered with the token` })
    return found
  })

/** Step 3: the token's instance (it must be a confidential token with an auditor registry). */
export const resolveDeployment = (server: rpc.Server, contract: string, networkPassphrase: string) =>
  Effect.tryPromise({
    try: () => readDeployment(server, contract, networkPassphrase),
    catch: (e) => new AuditorKeyUnresolved({ step: 3, message: `the token's instance does not read: ${said(e)}` })
  })

const ROTATED = nativeToScVal("auditor_rotated", { type: "symbol" }).toXDR("base64")

/**
 * Step 3 for D-auditor: the key of `auditorId` active at `ledger` — today's `get_key`, unless an `auditor_rotated`
 * event after `ledger` says it was rotated since; then the `old_point` of the first such rotation. When Stellar RPC no
 * longer keeps the events after `ledger` (its retention window), the version cannot be resolved, and §5.3 rejects.
 */
export const resolveAuditorKey = (server: rpc.Server, deployment: ChainDeployment, auditorId: number, ledger: number) =>
  Effect.gen(function* () {
    const unresolved = (message: string) => new AuditorKeyUnresolved({ step: 3, message })
    const reader = new ChainReader(server, deployment)
    const current = yield* Effect.tryPromise({ try: () => reader.auditorKey(auditorId), catch: (e) => unresolved(`get_key(${auditorId}) failed: ${said(e)}`) })
    const latest = yield* read(3, "the latest ledger", () => server.getLatestLedger())
    if (ledger + 1 > latest.sequence) return current
    const rotations = yield* Effect.tryPromise({
      try: () =>
        server.getEvents({
          startLedger: ledger + 1,
          filters: [{ type: "contract", contractIds: [deployment.auditorRegistry], topics: [[ROTATED, xdr.ScVal.scvU32(auditorId).toXDR("base64")]] }],
          limit: 100
        }),
      catch: (e) => unresolved(`the auditor ${auditorId}'s rotations since ledger ${ledger} are not readable (${said(e)}): its key at that ledger is unknown`)
    })
    const first = rotations.events.find((e) => e.ledger > ledger)
    if (first === undefined) return current
    const old = (scValToNative(first.value) as { readonly old_point?: unknown }).old_point
    if (!(old instanceof Uint8Array) || old.length !== 64) return yield* unresolved(`the auditor ${auditorId}'s rotation at ledger ${first.ledger} has no old_point`)
    return new Uint8Array(old)
  })
