// `payroll disclose` (issue 37 §2, docs/disclosure.md): the holder answers a recipient's request — its payouts the
// request asks about picked among its transfer events in the service's archive (or those --payout names), its keys
// derived as the console derives them, the proof made here — with the bundle of §5.2, and nothing else. With --escrow,
// the organization's auditor answers instead (D-auditor, DiscloseEscrow.ts).
import { Command, Options } from "@effect/cli"
import { Effect, Either, type Option } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { keysFromSigner } from "../confidential/crypto/KeyDerivation.ts"
import { archiveTransfers } from "../confidential/disclosure/ArchiveTransfers.ts"
import {
  discloseReceived, discloseReceivedTotal, discloseSent, discloseSentTotal, matchingEvents
} from "../confidential/disclosure/Disclose.ts"
import { type Bundle, bundleJson, type DisclosureRequestFile, parseRequest, requestFromLink } from "../confidential/disclosure/Exchange.ts"
import type { TransferEvent } from "../confidential/disclosure/TransferEvent.ts"
import { disclosureProve } from "../payroll/DisclosureProver.ts"
import { keypairSigner } from "../payroll/KeypairSigner.ts"
import { serviceChain } from "../payroll/ServiceChain.ts"
import { escrowBundle } from "./DiscloseEscrow.ts"
import { usage } from "./Failure.ts"
import { attempt, type Common, common, emit, say, withKey } from "./Shared.ts"

/** A request from a file, a link (`…#request=…`) or its JSON; a usage failure naming why it is none. */
export const readRequestText = (given: string): DisclosureRequestFile => {
  const text = existsSync(given) ? readFileSync(given, "utf8").trim() : given.trim()
  const parsed = text.startsWith("{") ? parseRequest(text) : requestFromLink(text)
  return Either.getOrThrowWith(parsed, (why) => usage(`${existsSync(given) ? given : "--request"} is not a disclosure request (a request file or a link with #request=…): ${why.split("\n")[0]}`))
}

const short = (text: string) => `${text.slice(0, 6)}…${text.slice(-6)}`

/** The events --payout names (a transaction hash, or hash:eventIndex), each one of the account's. */
const named = (events: ReadonlyArray<TransferEvent>, payouts: ReadonlyArray<string>) =>
  payouts.flatMap((given) => {
    const [hash, index] = given.toLowerCase().split(":")
    const found = events.filter((e) => e.ref.txHash === hash && (index === undefined || String(e.ref.eventIndex) === index))
    if (found.length === 0) throw usage(`--payout ${given} is none of your transfers in the service's archive`)
    return found
  })

/** The bundle on stdout, or in --out's file with a line saying whom to send it to. */
const deliver = (c: Pick<Common, "json"> & { readonly out: Option.Option<string> }, request: DisclosureRequestFile, bundle: Bundle) =>
  Effect.gen(function*() {
    const text = bundleJson(bundle)
    if (c.out._tag === "Some") {
      const path = resolve(c.out.value)
      yield* attempt(() => writeFileSync(path, `${text}\n`))
      yield* emit(c, bundle, () => [`Bundle written to ${path}: send it to ${request.label ?? "the recipient"} (${short(request.recipientKey)}). It carries the proof and the sealed value, nothing else.`])
    } else {
      yield* emit(c, bundle, () => [text])
    }
  })

const line = (account: string, e: TransferEvent) =>
  `  ${new Date(e.closedAt).toISOString()}  ${e.to === account ? `from ${e.originator}` : `to ${e.to}`}  transaction ${e.ref.txHash} event ${e.ref.eventIndex}`

export const disclose = Command.make("disclose", {
  ...common,
  request: Options.text("request").pipe(Options.withDescription("The recipient's request: its file, or its link")),
  out: Options.text("out").pipe(Options.withDescription("Write the bundle to this file (default: stdout)"), Options.optional),
  payout: Options.text("payout").pipe(
    Options.withDescription("A payout to disclose instead of those the request picks: a transaction hash, or hash:eventIndex; repeatable"),
    Options.repeated
  ),
  escrow: Options.boolean("escrow").pipe(
    Options.withDescription("Answer as the organization's auditor: one payout of its paying wallets, with its escrow key (D-auditor)")
  )
}, (c) =>
  Effect.scoped(Effect.gen(function*() {
    const request = yield* attempt(() => readRequestText(c.request))
    const signed = yield* withKey(c)
    const account = signed.key.publicKey()
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const { deployment } = chain
    if (request.contract !== deployment.contract || request.networkPassphrase !== deployment.networkPassphrase) {
      return yield* usage(`the request is about the token ${request.contract}, not this service's (${deployment.contract}): pass the service it names with --service`)
    }
    if (c.escrow) {
      if (c.payout.length > 0) return yield* usage("--payout does not go with --escrow: the request names the one payout a D-auditor bundle discloses")
      return yield* deliver(c, request, yield* escrowBundle(c, signed, chain, request))
    }
    const events = yield* archiveTransfers(signed.baseUrl, deployment.contract, account)
    const chosen = c.payout.length > 0 ? yield* attempt(() => named(events, c.payout)) : matchingEvents(request, account, events)
    if (chosen.length === 0) return yield* usage("none of your payouts in the service's archive is what the request asks about: check it, or name them with --payout <hash>")
    const paid = chosen.every((e) => e.to === account)
    if (!paid && !chosen.every((e) => e.originator === account)) return yield* usage("the payouts chosen are neither all paid to you nor all paid by you")
    const total = request.ask.kind !== "event"
    if (!total && chosen.length !== 1) return yield* usage(`the request asks about one payout; ${chosen.length} are chosen`)
    yield* say(c, `${request.label ?? "The recipient"} asks for ${total ? "a total" : "one payout"}; disclosing ${chosen.length} payout${chosen.length === 1 ? "" : "s"}:`)
    yield* say(c, chosen.map((e) => line(account, e)).join("\n"))

    const registered = yield* Effect.tryPromise({ try: () => chain.reader.account(account), catch: (e) => e })
    if (registered === undefined) return yield* usage(`${account} is not registered with the token: nothing was paid to or by it confidentially`)
    const keys = yield* Effect.tryPromise({
      try: () => keysFromSigner({ signer: keypairSigner(signed.key), account, contract: deployment.contract, networkPassphrase: deployment.networkPassphrase, registered }),
      catch: (e) => e
    })
    const payeeKey = Effect.gen(function*() {
      const payee = yield* Effect.tryPromise({ try: () => chain.reader.account(chosen[0]!.to), catch: (e) => e })
      if (payee === undefined) return yield* usage(`${chosen[0]!.to} is not registered with the token`)
      return payee.viewingPublicKey
    })
    yield* say(c, "Proving (a minute or two)…")
    const prove = yield* disclosureProve()
    const bundle = paid
      ? yield* (total ? discloseReceivedTotal({ keys, events: chosen, request, prove }) : discloseReceived({ keys, event: chosen[0]!, request, prove }))
      : yield* (total
        ? discloseSentTotal({ keys, events: chosen, recipientViewingKey: yield* payeeKey, request, prove })
        : discloseSent({ keys, event: chosen[0]!, recipientViewingKey: yield* payeeKey, request, prove }))
    yield* deliver(c, request, bundle)
  }))).pipe(Command.withDescription("Answer a disclosure request: your payouts it asks about, proven here, as the bundle to send back"))
