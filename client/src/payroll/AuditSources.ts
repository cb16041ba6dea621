// What the auditor's report reads (issue 36 §3), all of it from the service: the organization's sent payouts (each
// with the hash of the transaction that paid it and its contractor), their sealed receipts opened with the member's
// sealing key, the paying wallets, and each wallet's events verbatim from the archive (base64 XDR, as on chain).
import { scValToNative, StrKey, xdr } from "@stellar/stellar-sdk"
import { DateTime, Effect, Option } from "effect"
import type { Batch, Payout } from "../../../src/Domain/Batch.ts"
import { BatchId } from "../../../src/Domain/Ids.ts"
import { makeClient } from "../Client.ts"
import type { AuditPayout } from "../confidential/audit/AuditReport.ts"
import type { RawTokenEvent } from "../confidential/audit/AuditEvent.ts"
import type { OpenedReceipt } from "../confidential/audit/ReceiptCompare.ts"
import { makeGroupClient } from "../Client.ts"
import { openReceipt } from "../sealing/SealedReceipt.ts"
import type { SealingMember } from "./SealingMember.ts"

type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** Every page of a cursor-paged list. */
const pages = <A, E, R>(page: (cursor: string | undefined) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string | undefined }, E, R>) =>
  Effect.gen(function*() {
    const all: Array<A> = []
    let cursor: string | undefined
    do {
      const next = yield* page(cursor)
      all.push(...next.items)
      cursor = next.nextCursor
    } while (cursor !== undefined)
    return all
  })

const after = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor })

/** A sent payout as the report matches it, and where it went. */
export type SentPayout = AuditPayout & { readonly contractorAddress: string | undefined }

/** The organization's payouts that were sent (they carry a transaction hash), with their contractor's name and address. */
export const sentPayouts = (client: Client) =>
  Effect.gen(function*() {
    const batches: ReadonlyArray<Batch> = yield* pages((cursor) => client.batches.list({ urlParams: { limit: 100, ...after(cursor) } as never }))
    const payouts = (yield* Effect.forEach(batches, (b) =>
      pages((cursor) => client.batches.payouts({ path: { id: b.id }, urlParams: { limit: 100, ...after(cursor) } })), { concurrency: 4 })).flat()
    const sent = payouts.filter((p): p is Payout & { readonly hash: Option.Some<string> } => Option.isSome(p.hash))
    const contractors = new Map(yield* Effect.forEach([...new Set(sent.map((p) => p.contractorId))], (id) =>
      Effect.map(client.contractors.get({ path: { id } }), (c) => [id as string, { name: c.name, address: Option.getOrUndefined(c.address) }] as const), { concurrency: 4 }))
    return sent.map((p): SentPayout => {
      const contractor = contractors.get(p.contractorId)
      return {
        payoutId: p.id,
        batchId: p.batchId,
        contractorId: p.contractorId,
        ...(contractor === undefined ? {} : { contractorName: contractor.name }),
        contractorAddress: contractor?.address,
        transactionHash: p.hash.value.toLowerCase()
      }
    })
  })

/** The payouts' sealed receipts the member can open; how many were not sealed to them. */
export const openedReceipts = (client: Client, member: SealingMember, payouts: ReadonlyArray<AuditPayout>) =>
  Effect.gen(function*() {
    const wanted = new Set(payouts.map((p) => p.payoutId))
    const receipts: Array<OpenedReceipt> = []
    let unopened = 0
    for (const batchId of new Set(payouts.map((p) => p.batchId))) {
      const sealed = yield* pages((cursor) => client.sealedReceipts.sealedReceipts({ path: { id: BatchId.make(batchId) }, urlParams: { limit: 100, ...after(cursor) } }))
      for (const r of sealed.filter((s) => wanted.has(s.payoutId))) {
        const opened = yield* Effect.either(Effect.tryPromise(() => openReceipt(r.envelope, { batchId, payoutId: r.payoutId }, member.memberId, member.keyPair)))
        if (opened._tag === "Left") unopened += 1
        else receipts.push({ payoutId: r.payoutId, amount: opened.right.amount, ephemeral: opened.right.ephemeral, sigma: opened.right.sigma })
      }
    }
    return { receipts, unopened }
  })

/** One archived event in the shape the audit library reads (the archive's JSON). */
const raw = (e: { readonly id: string; readonly ledger: number; readonly ledgerClosedAt: DateTime.Utc; readonly txHash: string; readonly topics: ReadonlyArray<string>; readonly value: string }): RawTokenEvent =>
  ({ id: e.id, ledger: e.ledger, ledgerClosedAt: DateTime.formatIso(e.ledgerClosedAt), txHash: e.txHash, topics: e.topics, value: e.value })

/** An account's events from the archive (`types` narrows them), verbatim, and whether the archive vouched for them all. */
export const accountHistory = (baseUrl: string, contract: string, account: string, types?: string) =>
  Effect.gen(function*() {
    const archive = yield* makeGroupClient("archive", baseUrl)
    const events: Array<RawTokenEvent> = []
    let complete = true
    let cursor: string | undefined
    do {
      const page = yield* archive.accountEvents({
        path: { contractId: contract, account },
        urlParams: { limit: 1000, ...(types === undefined ? {} : { types }), ...after(cursor) }
      })
      complete &&= page.complete
      events.push(...page.events.map(raw))
      cursor = page.cursor ?? undefined
    } while (cursor !== undefined)
    return { events, complete }
  })

const senderOf = (event: RawTokenEvent): string | undefined => {
  const from = event.topics[1]
  if (typeof from !== "string") return undefined
  const address = scValToNative(xdr.ScVal.fromXDR(from, "base64")) as unknown
  return typeof address === "string" && StrKey.isValidEd25519PublicKey(address) ? address : undefined
}

/**
 * The organization's paying wallets as the service knows them: the members' wallets whose `register` it sponsored
 * for the organization (the audit trail's `token.register` rows name the wallet that sent it), and the senders of
 * the transfers that paid its payouts (the `transfer` event of each payout's transaction, in its contractor's history).
 */
export const payingWallets = (client: Client, baseUrl: string, contract: string, payouts: ReadonlyArray<SentPayout>) =>
  Effect.gen(function*() {
    const registered = yield* pages((cursor) => client.audit.list({ urlParams: { limit: 100, action: "token.register", ...after(cursor) } }))
    const wallets = new Set(registered.flatMap((r) => (r.actor.type === "member" && StrKey.isValidEd25519PublicKey(r.actor.id) ? [r.actor.id] : [])))
    const hashes = new Set(payouts.map((p) => p.transactionHash))
    for (const address of new Set(payouts.flatMap((p) => (p.contractorAddress === undefined ? [] : [p.contractorAddress])))) {
      const { events } = yield* accountHistory(baseUrl, contract, address, "transfer")
      for (const e of events) {
        const sender = hashes.has(e.txHash.toLowerCase()) ? senderOf(e) : undefined
        if (sender !== undefined && sender !== address) wallets.add(sender)
      }
    }
    return [...wallets].sort()
  })
