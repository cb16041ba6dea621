// `payroll recipient keygen` and `payroll recipient request` (issue 37 §2, docs/disclosure.md): a disclosure recipient
// — a bank, a tax office, an auditor, with no account here — makes its Grumpkin key pair and issues requests (its key,
// a fresh nonce, what it asks), each kept as issued beside the key so `payroll verify` refuses replays and strangers.
import { Command, Options } from "@effect/cli"
import { rpc, StrKey } from "@stellar/stellar-sdk"
import { Effect, Either, Option, Schema } from "effect"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { makeGroupClient } from "../Client.ts"
import type { Ask } from "../confidential/disclosure/Exchange.ts"
import { requestJson, requestLink } from "../confidential/disclosure/Exchange.ts"
import { makeRecipientKey, makeRequest, recipientKeyFile, RecipientKeyFile, recipientKeyOfFile } from "../confidential/disclosure/RecipientKey.ts"
import { payoutEvents } from "../payroll/PayoutEvents.ts"
import { recordIssued, statePath } from "../payroll/RecipientState.ts"
import { serviceUrl } from "./Config.ts"
import { usage } from "./Failure.ts"
import { periodBounds, periodOptions } from "./Period.ts"
import { attempt, common, emit } from "./Shared.ts"

/** What a recipient's commands take: no account, no secret of a wallet. */
export const recipientCommon = { json: common.json, service: common.service }

export const rpcOption = Options.text("rpc").pipe(
  Options.withDescription("The Stellar RPC to read the chain through (default: the service's public gateway, <service>/stellar-rpc/public)"),
  Options.optional
)

export const rpcServer = (baseUrl: string, given: Option.Option<string>) => {
  const url = Option.getOrElse(given, () => `${baseUrl}/stellar-rpc/public`)
  return new rpc.Server(url, { allowHttp: url.startsWith("http:") })
}

const decodeKey = Schema.decodeUnknownEither(Schema.parseJson(RecipientKeyFile))

/** The recipient key in `path`, refused when others may read it or when its public key is not its secret's. */
export const readKeyFile = (path: string) =>
  attempt(() => {
    let mode: number
    try {
      mode = statSync(path).mode
    } catch {
      throw usage(`cannot read the key file ${path}: check the path (payroll recipient keygen --out <file> makes one)`)
    }
    if ((mode & 0o077) !== 0) throw usage(`the key file ${path} is readable by others (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${path}`)
    return Either.match(decodeKey(readFileSync(path, "utf8")), {
      onLeft: () => {
        throw usage(`${path} is not a disclosure recipient key (or its public key is not its secret's)`)
      },
      onRight: recipientKeyOfFile
    })
  })

const keygen = Command.make("keygen", {
  ...recipientCommon,
  out: Options.text("out").pipe(Options.withDescription("Where to write the key file (mode 600); an existing file is not overwritten"))
}, (c) =>
  Effect.gen(function*() {
    const file = recipientKeyFile(makeRecipientKey())
    const path = resolve(c.out)
    yield* attempt(() => {
      try {
        writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: "wx" })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") throw usage(`${path} exists: a key is never overwritten (the requests issued with it would no longer verify)`)
        throw usage(`cannot write ${path}: ${(error as Error).message}`)
      }
    })
    yield* emit(c, { file: path, publicKey: file.publicKey }, () => [
      `Recipient key written to ${path} (mode 600): keep it; it opens what holders disclose to you.`,
      `public key: ${file.publicKey}`
    ])
  })).pipe(Command.withDescription("Make a disclosure recipient's key pair (Grumpkin), written to a file only you can read"))

/** [--from, --to] as whole UTC days, both included; both are needed for a total. */
const periodOf = (from: Option.Option<string>, to: Option.Option<string>) => {
  if (from._tag === "None" || to._tag === "None") throw usage("a total asks for a period: give --from YYYY-MM-DD and --to YYYY-MM-DD")
  const { end, start } = periodBounds(from.value, to.value)
  return { start: start.toISOString(), end: end.toISOString() }
}

const account = (text: string, option: string) => {
  if (!StrKey.isValidEd25519PublicKey(text)) throw usage(`--${option} ${JSON.stringify(text)} is not a Stellar account (G…)`)
  return text
}

const request = Command.make("request", {
  ...recipientCommon,
  rpc: rpcOption,
  key: Options.text("key").pipe(Options.withDescription("Your recipient key file (payroll recipient keygen)")),
  payoutHash: Options.text("payout-hash").pipe(Options.withDescription("Ask for one payout: its transaction hash"), Options.optional),
  eventIndex: Options.integer("event-index").pipe(Options.withDescription("With --payout-hash, when its transaction carries several transfers: which event"), Options.optional),
  receivedFrom: Options.text("received-from").pipe(Options.withDescription("Ask for the total this account (G…) paid the holder over --from/--to"), Options.optional),
  sentTo: Options.text("sent-to").pipe(Options.withDescription("Ask for the total the holder paid this account (G…) over --from/--to"), Options.optional),
  from: periodOptions.from.pipe(Options.optional),
  to: periodOptions.to.pipe(Options.optional),
  label: Options.text("label").pipe(Options.withDescription("Who asks, as the holder will see it (e.g. \"Tax office\")"), Options.optional),
  out: Options.text("out").pipe(Options.withDescription("Where to write the request file"))
}, (c) =>
  Effect.gen(function*() {
    const asked = [c.payoutHash, c.receivedFrom, c.sentTo].filter(Option.isSome).length
    if (asked !== 1) return yield* usage("ask one thing: --payout-hash <hash>, or --received-from G… or --sent-to G… with --from and --to")
    const key = yield* readKeyFile(c.key)
    const baseUrl = yield* attempt(() => serviceUrl(Option.getOrUndefined(c.service)))
    const deployment = yield* Effect.flatMap(makeGroupClient("crs", baseUrl), (crs) => crs.deployment())
    const ask: Ask = c.payoutHash._tag === "Some"
      ? { kind: "event", ref: yield* payoutRef(rpcServer(baseUrl, c.rpc), deployment.contract, c.payoutHash.value, c.eventIndex) }
      : yield* attempt((): Ask => c.receivedFrom._tag === "Some"
        ? { kind: "received-total", from: account(c.receivedFrom.value, "received-from"), period: periodOf(c.from, c.to) }
        : { kind: "sent-total", to: account(Option.getOrThrow(c.sentTo), "sent-to"), period: periodOf(c.from, c.to) })
    const issued = makeRequest({
      key, ask, contract: deployment.contract, networkPassphrase: deployment.networkPassphrase, ...Option.match(c.label, { onNone: () => ({}), onSome: (label) => ({ label }) })
    })
    const path = resolve(c.out)
    yield* attempt(() => {
      recordIssued(resolve(c.key), issued)
      writeFileSync(path, `${requestJson(issued)}\n`)
    })
    const link = requestLink(`${baseUrl}/app/payouts`, issued)
    yield* emit(c, { request: issued, file: path, link, state: statePath(resolve(c.key)) }, () => [
      `Request written to ${path}; send it, or this link, to the holder:`,
      link
    ])
  })).pipe(Command.withDescription("Issue a disclosure request: one payout, or a total from or to a counterparty over a period (a file and a link)"))

/** The payout's transfer event: the only one of the token in its transaction, or the one --event-index names. */
const payoutRef = (server: rpc.Server, contract: string, hash: string, eventIndex: Option.Option<number>) =>
  Effect.gen(function*() {
    const txHash = hash.toLowerCase()
    if (!/^[0-9a-f]{64}$/.test(txHash)) return yield* usage(`--payout-hash ${JSON.stringify(hash)} is not a transaction hash (64 hex digits)`)
    const events = yield* payoutEvents(server, contract, txHash)
    const found = Option.match(eventIndex, { onNone: () => events, onSome: (i) => events.filter((e) => e.ref.eventIndex === i) })
    if (found.length === 0) return yield* usage(`the transaction ${txHash} carries no transfer of the token${eventIndex._tag === "Some" ? ` at event ${eventIndex.value}` : ""}`)
    if (found.length > 1) return yield* usage(`the transaction ${txHash} carries ${found.length} transfers (events ${found.map((e) => e.ref.eventIndex).join(", ")}): pass --event-index`)
    return found[0]!.ref
  })

export const recipient = Command.make("recipient").pipe(
  Command.withDescription("A disclosure recipient (a bank, a tax office, an auditor; no account here): keygen, request"),
  Command.withSubcommands([keygen, request])
)
