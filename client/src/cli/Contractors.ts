import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import type { ContractorPayout } from "../../../src/Domain/Batch.ts"
import { openProvingSetup } from "../confidential/node.ts"
import { receivedByHash } from "../payroll/Received.ts"
import { withdrawToPublic } from "../payroll/Withdraw.ts"
import { amountToDecimal } from "../sealing/Plaintext.ts"
import { parseUsdc } from "./Amount.ts"
import { usage } from "./Failure.ts"
import { clientOf, common, emit, say, signedIn, withKey } from "./Shared.ts"
import { readingSetup, registerAccount, walletOf } from "./Wallet.ts"

const register = Command.make("register", common, (c) =>
  Effect.scoped(Effect.gen(function*() {
    const signed = yield* withKey(c)
    yield* say(c, "Proving the registration (a minute or two)…")
    const hash = yield* registerAccount(signed, yield* openProvingSetup())
    yield* emit(c, { account: signed.key.publicKey(), registered: true, hash: hash ?? null }, () => [
      hash === undefined ? "Already registered." : `Registered (transaction ${hash}): your payouts can be sent to you now.`
    ])
  }))).pipe(Command.withDescription("Register your wallet with the confidential token (a proof made here, sponsored)"))

const payouts = Command.make("payouts", {
  ...common,
  amounts: Options.boolean("amounts").pipe(Options.withDescription("Decrypt each payout's amount with your keys (needs your secret)"))
}, (c) =>
  Effect.gen(function*() {
    const signed = c.amounts ? yield* withKey(c) : yield* signedIn(c)
    const client = yield* clientOf(signed)
    const all: Array<ContractorPayout> = []
    let cursor: string | undefined
    do {
      const page = yield* client.contractorPortal.payouts({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } })
      all.push(...page.items)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    let received: ReadonlyMap<string, bigint> | undefined
    let balances: { spendable: bigint; receiving: bigint } | undefined
    if (c.amounts && signed.key !== undefined) {
      const { opened } = yield* walletOf({ ...signed, key: signed.key }, yield* readingSetup)
      balances = yield* opened.catchUp()
      received = yield* receivedByHash(opened)
    }
    const amountOf = (p: ContractorPayout) => Option.match(p.hash, { onNone: () => undefined, onSome: (hash) => received?.get(hash.toLowerCase()) })
    yield* emit(c, {
      payouts: all.map((p) => ({ ...p, ...(received === undefined ? {} : { amount: amountOf(p)?.toString() }) })),
      ...(balances === undefined ? {} : { balances: { spendable: balances.spendable.toString(), receiving: balances.receiving.toString() } })
    }, () => [
      ...(all.length === 0 ? ["No payouts."] : all.map((p) => {
        const amount = amountOf(p)
        return `  ${p.id}  ${p.status.padEnd(9)}  ${p.company} / ${p.batchName}${amount === undefined ? "" : `  ${amountToDecimal(amount)} USDC`}`
      })),
      ...(balances === undefined ? [] : [`balance: ${amountToDecimal(balances.spendable + balances.receiving)} USDC (spendable ${amountToDecimal(balances.spendable)}, receiving ${amountToDecimal(balances.receiving)})`])
    ])
  })).pipe(Command.withDescription("Your payouts across organizations; with --amounts, each decrypted and your balance"))

const withdraw = Command.make("withdraw", { ...common, amount: Args.text({ name: "amount" }).pipe(Args.withDescription("USDC, up to 7 decimals")) }, (c) =>
  Effect.scoped(Effect.gen(function*() {
    const units = parseUsdc(c.amount)
    if (units === undefined || units === 0n) return yield* usage(`${JSON.stringify(c.amount)} is not an amount: give USDC with up to 7 decimals, e.g. 125.50`)
    const signed = yield* withKey(c)
    yield* say(c, `Withdrawing ${amountToDecimal(units)} USDC to your public balance (a proof made here)…`)
    const { chain, opened } = yield* walletOf(signed, yield* openProvingSetup())
    const done = yield* withdrawToPublic({ baseUrl: signed.baseUrl, token: signed.token, chain, key: signed.key, opened, amount: units, onStage: (stage) => Effect.runSync(say(c, `  ${stage}…`)) })
    yield* emit(c, {
      hash: done.hash, merged: done.merged ?? null,
      balances: { spendable: done.balances.spendable.toString(), receiving: done.balances.receiving.toString() }
    }, () => [
      `Withdrew ${amountToDecimal(units)} USDC (transaction ${done.hash}${done.merged === undefined ? "" : `, after merging in ${done.merged}`}).`,
      `left: spendable ${amountToDecimal(done.balances.spendable)} USDC, receiving ${amountToDecimal(done.balances.receiving)} USDC`
    ])
  }))).pipe(Command.withDescription("Withdraw from your confidential balance to your public USDC balance (merging first when needed)"))

export const contractors = Command.make("contractors").pipe(
  Command.withDescription("A contractor's own wallet: register, payouts, withdraw"),
  Command.withSubcommands([register, payouts, withdraw])
)
