// The auditor's report in the browser (issue 36 §3), loaded with import() by its page only: the escrow key's secrets
// opened with the member's unlocked sealing key, the organization's sent payouts and their sealed receipts, the paying
// wallets' events from the service's archive, and client/src/confidential/audit's `auditReport` run here. The service
// is asked only for what it already serves; no amount or secret leaves this tab.
import {
  type AuditPayout,
  type AuditReport,
  auditReport,
  type OpenedReceipt,
  type RawTokenEvent,
  reportCsv,
  reportJson
} from "@confidential-payroll/client/confidential"
import { openEscrowSecret, readAuditorKey } from "@confidential-payroll/client/escrow"
import { openReceipt } from "@confidential-payroll/client/sealing"
import { DateTime, Option } from "effect"
import { clientFor, type PayrollClient, run } from "../api/Client.ts"
import { chainOf } from "../confidential/BrowserWallet.ts"
import type { Unlocked } from "../sealing/Sealing.tsx"

type Page<A> = { readonly items: ReadonlyArray<A>; readonly nextCursor?: string | undefined }

/** Every page of a cursor-paged list. */
const all = async <A>(page: (cursor: Record<string, string>) => Promise<Page<A>>) => {
  const items: Array<A> = []
  let cursor: string | undefined
  do {
    const next = await page(cursor === undefined ? {} : { cursor })
    items.push(...next.items)
    cursor = next.nextCursor
  } while (cursor !== undefined)
  return items
}

/** The organization's payouts that were sent (they carry a transaction hash), with their contractor's name. */
const sentPayouts = async (client: PayrollClient): Promise<Array<AuditPayout>> => {
  const batches = await all((c) => run(client.batches.list({ urlParams: { limit: 100, ...c } as never })))
  const payouts = (await Promise.all(batches.map((b) => all((c) => run(client.batches.payouts({ path: { id: b.id }, urlParams: { limit: 100, ...c } })))))).flat()
  const sent = payouts.filter((p) => Option.isSome(p.hash))
  const names = new Map(await Promise.all([...new Set(sent.map((p) => p.contractorId))].map(async (id) =>
    [id as string, (await run(client.contractors.get({ path: { id } }))).name] as const)))
  return sent.map((p) => ({
    payoutId: p.id,
    batchId: p.batchId,
    contractorId: p.contractorId,
    ...(names.has(p.contractorId) ? { contractorName: names.get(p.contractorId)! } : {}),
    transactionHash: Option.getOrThrow(p.hash).toLowerCase()
  }))
}

/**
 * The organization's paying wallets as the service knows them: the members' wallets whose `register` it sponsored for
 * the organization (the audit trail's `token.register` rows name the member who sent it). The page shows them for the
 * auditor to confirm or correct before the report is built.
 */
export const payingWallets = async (session: string): Promise<Array<string>> => {
  const client = clientFor(session)
  const rows = await all((c) => run(client.audit.list({ urlParams: { limit: 100, action: "token.register", ...c } as never })))
  return [...new Set(rows.flatMap((r) => (r.actor.type === "member" && /^G[A-Z2-7]{55}$/.test(r.actor.id) ? [r.actor.id] : [])))].sort()
}

/** A wallet's every event from the archive, verbatim, as the audit library reads them. */
const walletEvents = async (client: PayrollClient, contract: string, account: string): Promise<Array<RawTokenEvent>> => {
  const events: Array<RawTokenEvent> = []
  let cursor: string | undefined
  do {
    const page = await run(client.archive.accountEvents({ path: { contractId: contract, account } as never, urlParams: { limit: 1000, ...(cursor === undefined ? {} : { cursor }) } }))
    events.push(...page.events.map((e) => ({ id: e.id, ledger: e.ledger, ledgerClosedAt: DateTime.formatIso(e.ledgerClosedAt), txHash: e.txHash, topics: e.topics, value: e.value })))
    cursor = page.cursor ?? undefined
  } while (cursor !== undefined)
  return events
}

/** The payouts' sealed receipts this member can open. */
const openedReceipts = async (client: PayrollClient, unlocked: Unlocked, payouts: ReadonlyArray<AuditPayout>) => {
  const wanted = new Set(payouts.map((p) => p.payoutId))
  const receipts: Array<OpenedReceipt> = []
  for (const batchId of new Set(payouts.map((p) => p.batchId))) {
    const sealed = await all((c) => run(client.sealedReceipts.sealedReceipts({ path: { id: batchId as never }, urlParams: { limit: 100, ...c } })))
    for (const r of sealed.filter((s) => wanted.has(s.payoutId))) {
      const opened = await openReceipt(r.envelope as never, { batchId, payoutId: r.payoutId }, unlocked.memberId, unlocked.keyPair).catch(() => undefined)
      if (opened !== undefined) receipts.push({ payoutId: r.payoutId, amount: opened.amount, ephemeral: opened.ephemeral, sigma: opened.sigma })
    }
  }
  return receipts
}

export interface BuiltReport {
  readonly report: AuditReport
  readonly csv: ReturnType<typeof reportCsv>
  readonly json: string
  /** Whether the auditor registry holds the organization's current escrow key under its id (`get_key`). */
  readonly registryHoldsCurrentKey: boolean | undefined
  /** How many of the organization's escrow keys are sealed to other members only (their events stay unopened). */
  readonly keysNotSealedToYou: number
}

/** The report of `wallets` over [from, to), every escrow key the member holds an entry of opened for it. */
export const buildReport = async (session: string, unlocked: Unlocked, wallets: ReadonlyArray<string>, period: { readonly from: Date; readonly to: Date }): Promise<BuiltReport> => {
  const client = clientFor(session)
  const { server, deployment } = await chainOf(session)
  const { keys } = await run(client.escrow.list())
  const mine = keys.filter((k) => k.envelope.recipients.some((r) => r.memberId === unlocked.memberId))
  if (mine.length === 0) throw new Error("The escrow key is not sealed to you yet: ask a member who holds it to share it (Escrow key page).")
  const auditorSecrets = await Promise.all(mine.map(async (key) => {
    const pair = await openEscrowSecret(key.envelope, { organizationId: unlocked.orgId, auditorId: key.auditorId, version: key.version, point: key.point }, unlocked)
    return {
      secret: pair.secret,
      ...Option.match(key.validFromLedger, { onNone: () => ({}), onSome: (fromLedger) => ({ fromLedger }) }),
      ...Option.match(key.validUntilLedger, { onNone: () => ({}), onSome: (untilLedger) => ({ untilLedger }) })
    }
  }))
  const payouts = await sentPayouts(client)
  const [events, receipts] = await Promise.all([
    Promise.all(wallets.map((w) => walletEvents(client, deployment.contract, w))).then((lists) => lists.flat()),
    openedReceipts(client, unlocked, payouts)
  ])
  const current = keys.find((k) => k.current)
  const registered = current === undefined ? undefined : await readAuditorKey(server, deployment.networkPassphrase, deployment.auditorRegistry, current.auditorId)
  const report = auditReport({ events, auditorSecrets, wallets, period, payouts, receipts })
  return {
    report,
    csv: reportCsv(report),
    json: JSON.stringify(reportJson(report), null, 2),
    registryHoldsCurrentKey: current === undefined ? undefined : registered === current.point,
    keysNotSealedToYou: keys.length - mine.length
  }
}

