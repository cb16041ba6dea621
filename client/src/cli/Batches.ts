import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { TransactionBuilder } from "@stellar/stellar-sdk"
import { readFile } from "node:fs/promises"
import { ApproveBatch } from "../../../src/Domain/SealedAmounts.ts"
import { openProvingSetup } from "../confidential/node.ts"
import { FileStore } from "../confidential/state/FileStore.ts"
import { payablePayouts, payBatch, type PayItem } from "../payroll/PayBatch.ts"
import { sealingReaders } from "../payroll/Readers.ts"
import { reconcileBatch } from "../payroll/Reconcile.ts"
import { allMembers, envelopePayload, unlockSealing } from "../payroll/SealingMember.ts"
import { serviceChain } from "../payroll/ServiceChain.ts"
import { openServiceWallet } from "../payroll/ServiceWallet.ts"
import { sealAmounts } from "../sealing/SealedAmounts.ts"
import { amountToDecimal } from "../sealing/Plaintext.ts"
import { addressesOf, allPayouts, batchIdOf, openedAmounts, sealedAmountsOf } from "./BatchData.ts"
import { amountRows } from "./Csv.ts"
import { walletsDir } from "./Config.ts"
import { CliFailure, EXIT, usage } from "./Failure.ts"
import { progressBar } from "./ProgressBar.ts"
import { clientOf, common, emit, say, signedIn, withKey } from "./Shared.ts"

const batchId = Args.text({ name: "batch-id" }).pipe(Args.withDescription("The batch's id"))
const usdc = (amount: bigint | undefined) => (amount === undefined ? "—" : `${amountToDecimal(amount)} USDC`)

const list = Command.make("list", {
  ...common,
  status: Options.text("status").pipe(Options.withDescription("Only batches in this state (draft, ready, started, completed, …)"), Options.optional)
}, (c) =>
  Effect.gen(function*() {
    const client = yield* clientOf(yield* signedIn(c))
    const page = yield* client.batches.list({ urlParams: { limit: 100, ...Option.match(c.status, { onNone: () => ({}), onSome: (status) => ({ status }) }) } as never })
    yield* emit(c, page, () =>
      page.items.length === 0 ? ["No batches."] : page.items.map((b) => `${b.id}  ${b.status.padEnd(9)}  ${b.payoutCount} payouts  ${b.name}`))
  })).pipe(Command.withDescription("The organization's batches, newest first"))

const show = Command.make("show", {
  ...common,
  amounts: Options.boolean("amounts").pipe(Options.withDescription("Decrypt the sealed amounts with your sealing key (needs your secret)")),
  batchId
}, (c) =>
  Effect.gen(function*() {
    const signed = c.amounts ? yield* withKey(c) : yield* signedIn(c)
    const client = yield* clientOf(signed)
    const batch = yield* client.batches.get({ path: { id: batchIdOf(c.batchId) } })
    const payouts = yield* allPayouts(client, c.batchId)
    const sealed = c.amounts ? yield* sealedAmountsOf(client, c.batchId) : undefined
    if (c.amounts && sealed === undefined) return yield* new CliFailure({ code: EXIT.refused, message: `batch ${c.batchId} has no sealed amounts yet: the initiator seals them (payroll batches seal --csv)` })
    const amounts = sealed === undefined || signed.key === undefined ? undefined : yield* openedAmounts(sealed, c.batchId, yield* unlockSealing(client, signed.key))
    const total = amounts === undefined ? undefined : [...amounts.values()].reduce((a, b) => a + b, 0n)
    yield* emit(c, {
      batch,
      payouts: payouts.map((p) => ({ ...p, ...(amounts === undefined ? {} : { amount: amounts.get(p.id)?.toString() }) })),
      ...(sealed === undefined ? {} : { digest: sealed.digest, total: total?.toString() })
    }, () => [
      `${batch.name} (${batch.id}): ${batch.status}, ${batch.payoutCount} payouts, ${batch.settledCount} settled, ${batch.failedCount} failed`,
      `approvals ${batch.approvals.length}/${batch.approvalsRequired}${batch.sealedAmountsDigest === undefined ? "" : `, amounts digest ${batch.sealedAmountsDigest}`}`,
      ...payouts.map((p) => `  ${p.id}  ${p.status.padEnd(9)}  ${p.contractorId}${amounts === undefined ? "" : `  ${usdc(amounts.get(p.id))}`}`),
      ...(total === undefined ? [] : [`total ${usdc(total)}; approve with: payroll batches approve ${batch.id} --digest ${sealed!.digest}`])
    ])
  })).pipe(Command.withDescription("A batch, its payouts and (with --amounts) their amounts decrypted and the digest to approve"))

const seal = Command.make("seal", {
  ...common,
  csv: Options.text("csv").pipe(Options.withDescription("A CSV file: a header with `amount` and one of `payout`, `contractor` or `address`")),
  batchId
}, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const text = yield* Effect.tryPromise({ try: () => readFile(c.csv, "utf8"), catch: () => usage(`cannot read ${c.csv}: check the path`) })
    const rows = amountRows(text)
    if ("problem" in rows) return yield* usage(`${c.csv}: ${rows.problem}`)
    const payouts = yield* allPayouts(client, c.batchId)
    const addresses = yield* addressesOf(client, payouts.map((p) => p.contractorId))
    const amountOf = (p: (typeof payouts)[number]) =>
      rows.rows.find((r) => r.key === p.id || r.key === p.contractorId || r.key === addresses.get(p.contractorId))?.amount
    const missing = payouts.filter((p) => amountOf(p) === undefined)
    if (missing.length > 0) return yield* usage(`${c.csv} has no amount for payout ${missing.map((p) => p.id).join(", ")}: add a row for each`)
    const member = yield* unlockSealing(client, signed.key)
    const readers = sealingReaders(yield* allMembers(client))
    const everyone = [{ memberId: member.memberId as string, sealingKey: member.keyPair.publicKey }, ...readers.filter((r) => r.memberId !== member.memberId)]
    const envelope = yield* Effect.tryPromise({ try: () => sealAmounts(c.batchId, payouts.map((p) => ({ payoutId: p.id, amount: amountOf(p)! })), everyone), catch: (e) => e })
    const stored = yield* client.batches.sealAmounts({ path: { id: batchIdOf(c.batchId) }, payload: yield* envelopePayload(envelope) })
    const total = payouts.reduce((sum, p) => sum + amountOf(p)!, 0n)
    yield* emit(c, { digest: stored.digest, payouts: payouts.length, total: total.toString(), readers: everyone.length }, () => [
      `Sealed ${payouts.length} amounts (${usdc(total)}) for ${everyone.length} reader${everyone.length === 1 ? "" : "s"}; digest ${stored.digest}.`
    ])
  })).pipe(Command.withDescription("Seal a draft batch's amounts from a CSV among the members who may read them (initiator)"))

const approve = Command.make("approve", {
  ...common,
  digest: Options.text("digest").pipe(Options.withDescription("The sealed amounts' digest you read (payroll batches show --amounts)"), Options.optional),
  batchId
}, (c) =>
  Effect.gen(function*() {
    const client = yield* clientOf(yield* signedIn(c))
    const batch = yield* client.batches.approve({
      path: { id: batchIdOf(c.batchId) },
      payload: Option.match(c.digest, { onNone: () => undefined, onSome: (d) => new ApproveBatch({ sealedAmountsDigest: d }) }) as never
    })
    yield* emit(c, batch, () => [`Approved ${batch.id}: ${batch.approvals.length}/${batch.approvalsRequired} approvals, ${batch.status}.`])
  })).pipe(Command.withDescription("Approve a batch, naming the digest of the amounts you read"))

const pay = Command.make("pay", { ...common, batchId }, (c) =>
  Effect.scoped(Effect.gen(function*() {
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const batch = yield* client.batches.get({ path: { id: batchIdOf(c.batchId) } })
    if (batch.status === "completed") return yield* emit(c, { paid: [], remaining: 0 }, () => ["Nothing left to pay: the batch is completed."])
    if (batch.status !== "ready" && batch.status !== "started") {
      return yield* new CliFailure({ code: EXIT.refused, message: `a ${batch.status} batch is not paid: it must be ready (and approved) first` })
    }
    const { inFlight, payable } = payablePayouts(yield* allPayouts(client, c.batchId))
    if (inFlight.length > 0) {
      return yield* new CliFailure({ code: EXIT.unavailable, message: `${inFlight.length} payout(s) are in flight: wait for them to settle, then run payroll batches pay ${c.batchId} again` })
    }
    if (payable.length === 0) return yield* emit(c, { paid: [], remaining: 0 }, () => ["Nothing left to pay."])
    const sealed = yield* sealedAmountsOf(client, c.batchId)
    if (sealed === undefined) return yield* new CliFailure({ code: EXIT.refused, message: "the batch has no sealed amounts: the initiator seals them first" })
    const member = yield* unlockSealing(client, signed.key)
    const amounts = yield* openedAmounts(sealed, c.batchId, member)
    const addresses = yield* addressesOf(client, payable.map((p) => p.contractorId))
    const items: Array<PayItem> = payable.map((p) => ({ payoutId: p.id, to: addresses.get(p.contractorId) ?? "", amount: amounts.get(p.id) ?? -1n }))
    const unpayable = items.filter((i) => i.to === "" || i.amount < 0n)
    if (unpayable.length > 0) return yield* usage(`payout ${unpayable.map((i) => i.payoutId).join(", ")} has no address or no sealed amount`)
    const recipients = sealingReaders(yield* allMembers(client))
    yield* say(c, `Paying ${items.length} payout(s), ${usdc(items.reduce((s, i) => s + i.amount, 0n))} in all, from ${signed.key.publicKey()}`)
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const setup = yield* openProvingSetup()
    const opened = yield* openServiceWallet({ baseUrl: signed.baseUrl, chain, key: signed.key, setup, store: new FileStore(walletsDir()) })
    yield* opened.catchUp()
    const bar = c.json ? undefined : progressBar(items.length)
    let sent = 0
    bar?.update(0, "proving")
    const results = yield* payBatch({
      baseUrl: signed.baseUrl, token: signed.token, opened, batchId: c.batchId, recipients, items,
      sign: (prepared) => {
        const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
        tx.sign(signed.key)
        return tx.toXDR()
      },
      onPayout: (_id, step) => {
        if (step === "sent") sent += 1
        bar?.update(sent, step === "sent" ? "" : step)
      }
    }).pipe(Effect.ensuring(Effect.sync(() => bar?.done())))
    const failed = results.find((r) => r.status !== "SUCCESS")
    yield* emit(c, { paid: results, remaining: items.length - sent }, () => [
      ...results.map((r) => `  ${r.payoutId}  ${r.status}${r.hash === "" ? "" : `  ${r.hash}`}${r.error === undefined ? "" : `  ${r.error}`}`),
      `${sent}/${items.length} sent.`
    ])
    if (failed !== undefined) {
      return yield* new CliFailure({
        code: sent > 0 ? EXIT.partial : EXIT.chain,
        message: `payout ${failed.payoutId} was not paid (${failed.error ?? failed.status}); ${sent} sent: run payroll batches pay ${c.batchId} again to go on`
      })
    }
  }))).pipe(Command.withDescription("Pay a ready, approved batch: each payout proven, signed and sent; resumable, never twice"))

const reconcile = Command.make("reconcile", { ...common, batchId }, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const payouts = (yield* allPayouts(client, c.batchId)).filter((p) => p.status === "settled" || p.status === "submitted")
    const sealed = yield* sealedAmountsOf(client, c.batchId)
    const member = yield* unlockSealing(client, signed.key)
    const amounts = sealed === undefined ? new Map<string, bigint>() : yield* openedAmounts(sealed, c.batchId, member)
    const addresses = yield* addressesOf(client, payouts.map((p) => p.contractorId))
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const verdicts = yield* reconcileBatch(signed.baseUrl, signed.token, chain, member, c.batchId,
      payouts.map((p) => ({ payoutId: p.id, to: addresses.get(p.contractorId) ?? "", approved: amounts.get(p.id) })))
    const all = payouts.map((p) => ({ payoutId: p.id, ...verdicts.get(p.id)! }))
    yield* emit(c, { verdicts: all }, () => all.map((v) => `  ${v.payoutId}  ${v.kind}${"why" in v ? `: ${v.why}` : ""}`))
    if (all.some((v) => v.kind === "mismatch")) return yield* new CliFailure({ code: EXIT.chain, message: "some payouts do not match what was approved: see above" })
    if (all.some((v) => v.kind === "unchecked")) return yield* new CliFailure({ code: EXIT.partial, message: "some payouts could not be checked yet: run it again later" })
  })).pipe(Command.withDescription("Check each sent payout against the chain: paid as approved, mismatch, or unchecked"))

export const batches = Command.make("batches").pipe(
  Command.withDescription("Payroll batches: list, show, seal, approve, pay, reconcile"),
  Command.withSubcommands([list, show, seal, approve, pay, reconcile])
)
