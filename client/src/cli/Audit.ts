// `payroll audit report` (issue 36 §3, docs/cli.md): every operation of the organization's paying wallets in a
// period, from the archive's public events, decrypted with the organization's escrow key (each version's secret opened
// with the member's sealing key), matched to the payouts and checked against their sealed receipts.
import { Command, Options } from "@effect/cli"
import { StrKey } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { auditReport } from "../confidential/audit/AuditReport.ts"
import { reportCsv } from "../confidential/audit/ReportCsv.ts"
import { reportJson } from "../confidential/audit/ReportJson.ts"
import { pointFromBytes } from "../confidential/crypto/Grumpkin.ts"
import { readAuditorKey } from "../escrow/AuditorRegistry.ts"
import { accountHistory, openedReceipts, payingWallets, sentPayouts } from "../payroll/AuditSources.ts"
import { openEscrowSecrets } from "../payroll/EscrowSecrets.ts"
import { unlockSealing } from "../payroll/SealingMember.ts"
import { serviceChain } from "../payroll/ServiceChain.ts"
import { summaryLines } from "./AuditSummary.ts"
import { CliFailure, EXIT, usage } from "./Failure.ts"
import { periodBounds, periodOptions } from "./Period.ts"
import { attempt, clientOf, common, emit, say, withKey } from "./Shared.ts"

/** [--from, --to] as whole UTC days, both included. */
const periodOf = (from: string, to: string) =>
  attempt(() => {
    const { end, start } = periodBounds(from, to)
    return { from: start, to: end }
  })

const writeCsv = (dir: string, files: Record<string, string>) =>
  attempt(() => {
    mkdirSync(dir, { recursive: true })
    return Object.fromEntries(Object.entries(files).map(([name, text]) => {
      const path = resolve(join(dir, `${name}.csv`))
      writeFileSync(path, text)
      return [name, path]
    }))
  })

const report = Command.make("report", {
  ...common,
  ...periodOptions,
  csv: Options.text("csv").pipe(Options.withDescription("Write operations.csv, contractors.csv and months.csv into this directory"), Options.optional),
  wallet: Options.text("wallet").pipe(
    Options.withDescription("A paying wallet (G…), repeatable; default: the wallets the service registered and paid from for the organization"),
    Options.repeated
  )
}, (c) =>
  Effect.gen(function*() {
    const period = yield* periodOf(c.from, c.to)
    const bad = c.wallet.find((w) => !StrKey.isValidEd25519PublicKey(w))
    if (bad !== undefined) return yield* usage(`--wallet ${JSON.stringify(bad)} is not a Stellar account (G…)`)
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const member = yield* unlockSealing(client, signed.key)
    const { keys } = yield* client.escrow.list()
    if (keys.length === 0) return yield* new CliFailure({ code: EXIT.refused, message: "the organization has no escrow key: an owner or admin runs payroll escrow create" })
    const { spans, sealedToOthers } = yield* openEscrowSecrets(member, keys)
    if (spans.length === 0) {
      return yield* new CliFailure({ code: EXIT.refused, message: "the escrow key is not sealed to you: a member who holds it runs payroll escrow share" })
    }
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const contract = chain.deployment.contract
    const current = keys.find((k) => k.current)!
    const held = yield* Effect.tryPromise({
      try: () => readAuditorKey(chain.server, chain.deployment.networkPassphrase, chain.deployment.auditorRegistry, current.auditorId),
      catch: (e) => e
    })
    yield* say(c, "Reading the payouts, the paying wallets' events and the receipts…")
    const payouts = yield* sentPayouts(client)
    const wallets = c.wallet.length > 0 ? [...new Set(c.wallet)] : yield* payingWallets(client, signed.baseUrl, contract, payouts)
    const histories = yield* Effect.forEach(wallets, (w) => accountHistory(signed.baseUrl, contract, w), { concurrency: 4 })
    const { receipts, unopened } = yield* openedReceipts(client, member, payouts)
    const audited = yield* attempt(() =>
      auditReport({
        events: histories.flatMap((h) => h.events),
        auditorSecrets: spans,
        ...(held === undefined || current.envelope.recipients.every((r) => r.memberId !== member.memberId) ? {} : { auditorKey: pointFromBytes(Buffer.from(held, "hex")) }),
        wallets,
        period,
        payouts: payouts.map(({ contractorAddress: _, ...p }) => p),
        receipts
      })
    )
    const files = c.csv._tag === "Some" ? yield* writeCsv(c.csv.value, { ...reportCsv(audited) }) : undefined
    const complete = histories.every((h) => h.complete)
    const sources = { wallets, archiveComplete: complete, receiptsNotSealedToYou: unopened, keysNotSealedToYou: sealedToOthers.map((k) => k.version) }
    yield* emit(c, { ...reportJson(audited), sources, ...(files === undefined ? {} : { files }) }, () => [
      ...summaryLines(audited, { from: c.from, to: c.to }),
      ...(complete ? [] : ["The archive does not vouch for every wallet's whole history (complete: false): amounts may be missing."]),
      ...(sealedToOthers.length === 0 ? [] : [`Escrow key version(s) ${sealedToOthers.map((k) => k.version).join(", ")} are not sealed to you: payroll escrow share`]),
      ...(files === undefined ? [] : [`CSV: ${Object.values(files).join(", ")}`])
    ])
    const { checks } = audited
    if (checks.breaks > 0 || checks.receiptsDiffer > 0 || checks.keyMatches === false) {
      return yield* new CliFailure({
        code: EXIT.chain,
        message: `the books disagree with the chain: ${checks.breaks} continuity break(s), ${checks.receiptsDiffer} receipt(s) differ${checks.keyMatches === false ? ", the escrow key is not the registry's" : ""}`
      })
    }
    if (checks.undecryptable > 0 || audited.unreadable.length > 0 || !complete || sealedToOthers.length > 0) {
      return yield* new CliFailure({
        code: EXIT.partial,
        message: `the report is incomplete: ${checks.undecryptable} operation(s) undecryptable, ${audited.unreadable.length} event(s) unreadable${complete ? "" : ", the archive's history incomplete"}`
      })
    }
  })).pipe(Command.withDescription("The auditor's report of a period: every operation of the paying wallets decrypted with the escrow key, as CSV, JSON or a summary"))

export const audit = Command.make("audit").pipe(
  Command.withDescription("The organization's audit: report"),
  Command.withSubcommands([report])
)
