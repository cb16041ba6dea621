// `payroll verify` (issue 37 §2, docs/disclosure.md): the recipient checks a holder's bundle by SELECTIVE_DISCLOSURE.md
// §5.3's six steps (verifyBundle) against the request it issued and kept beside its key — the chain read through the
// service's public gateway or --rpc, the proof under the committed keys — and sees the disclosed value, or the step
// that refused the bundle.
import { Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { isDeepStrictEqual } from "node:util"
import { type Bundle, type DisclosureRequestFile, parseBundle } from "../confidential/disclosure/Exchange.ts"
import { VARIANTS } from "../confidential/disclosure/Variants.ts"
import { verifyBundle } from "../confidential/disclosure/Verify.ts"
import { STEP_NAMES, type VerifyError } from "../confidential/disclosure/VerifyErrors.ts"
import { disclosureCheck } from "../payroll/DisclosureProver.ts"
import { answeredNonces, type Issued, readIssued } from "../payroll/RecipientState.ts"
import { amountToDecimal } from "../sealing/Plaintext.ts"
import { serviceUrl } from "./Config.ts"
import { readRequestText } from "./Disclose.ts"
import { CliFailure, EXIT, usage } from "./Failure.ts"
import { readKeyFile, recipientCommon, rpcOption, rpcServer } from "./Recipient.ts"
import { attempt, emit, say } from "./Shared.ts"

const refusal = (step: VerifyError["step"], tag: string, message: string) => ({ verified: false as const, step, stepName: STEP_NAMES[step], refusal: tag, message })
type Refusal = ReturnType<typeof refusal>

const sameRef = (a: Bundle["refs"][number], b: Bundle["refs"][number]) => a.txHash === b.txHash && a.eventIndex === b.eventIndex

/** The issued requests this bundle could answer: the one payout it names, or a total of the circuit's role. */
const answerable = (issued: ReadonlyArray<Issued>, bundle: Bundle) => {
  const variant = VARIANTS[bundle.circuitId]
  return issued.filter(({ request: { ask } }) =>
    ask.kind === "event"
      ? variant.slots === 1 && bundle.refs.length === 1 && sameRef(ask.ref, bundle.refs[0])
      : variant.slots > 1 && variant.role === (ask.kind === "received-total" ? "recipient" : "sender"))
}

/** The request as this verifier issued it: --request's nonce looked up among the issued, else the one the bundle fits. */
const issuedRequest = (keyFile: string, bundle: Bundle, given: Option.Option<string>): DisclosureRequestFile | Refusal => {
  const issued = readIssued(keyFile)
  if (given._tag === "Some") {
    const request = readRequestText(given.value)
    const mine = issued.find((i) => i.request.nonce === request.nonce)
    if (mine === undefined) return refusal(0, "UnknownNonce", "this request's nonce was never issued with this key: only requests made with payroll recipient request are verified")
    if (!isDeepStrictEqual(mine.request, request)) return refusal(0, "RequestMismatch", "the request file differs from the request as it was issued")
    return mine.request
  }
  const fits = answerable(issued, bundle)
  if (fits.length === 0) return refusal(0, "RequestMismatch", "no request issued with this key is answered by this bundle")
  const open = fits.filter((i) => i.answeredAt === undefined)
  if (open.length > 1) throw usage(`${open.length} open requests may be answered by this bundle: pass --request <file>`)
  return (open[0] ?? fits.at(-1)!).request
}

export const verify = Command.make("verify", {
  ...recipientCommon,
  rpc: rpcOption,
  key: Options.text("key").pipe(Options.withDescription("Your recipient key file (mode 600)")),
  bundle: Options.text("bundle").pipe(Options.withDescription("The bundle the holder sent (payroll disclose)")),
  request: Options.text("request").pipe(
    Options.withDescription("The request it answers (a file or link); default: the one of your issued requests the bundle fits"),
    Options.optional
  )
}, (c) =>
  Effect.scoped(Effect.gen(function*() {
    const key = yield* readKeyFile(c.key)
    const keyFile = resolve(c.key)
    const refuse = (r: Refusal) =>
      Effect.zipRight(
        c.json ? Console.log(JSON.stringify(r)) : Effect.void,
        Effect.fail(new CliFailure({ code: EXIT.chain, message: `refused at step ${r.step} (${r.stepName}): ${r.message}` }))
      )
    const text = yield* attempt(() => readFileSync(c.bundle, "utf8")).pipe(Effect.mapError(() => usage(`cannot read the bundle ${c.bundle}: check the path`)))
    const bundle = parseBundle(text)
    if (Either.isLeft(bundle)) return yield* refuse(refusal(0, "BundleUnreadable", `the file is not a disclosure bundle: ${bundle.left.split("\n")[0]}`))
    const request = yield* attempt(() => issuedRequest(keyFile, bundle.right, c.request))
    if ("verified" in request) return yield* refuse(request)
    const baseUrl = yield* attempt(() => serviceUrl(Option.getOrUndefined(c.service)))
    yield* say(c, "Verifying: the events on the chain, the accounts, the proof, the seal…")
    const checkProof = yield* disclosureCheck()
    const disclosed = yield* verifyBundle({
      server: rpcServer(baseUrl, c.rpc), request, key, bundle: bundle.right, checkProof, answered: answeredNonces(keyFile)
    }).pipe(Effect.catchAll((e) =>
      e._tag === "ChainUnreadable"
        ? Effect.fail(new CliFailure({ code: EXIT.unavailable, message: `Stellar RPC did not answer at step ${e.step} (${STEP_NAMES[e.step]}): nothing was concluded — try again, or pass --rpc` }))
        : refuse(refusal(e.step, e._tag, e.message))))
    const amount = amountToDecimal(disclosed.value)
    yield* emit(c, {
      verified: true,
      value: disclosed.value.toString(),
      amount,
      decimals: 7,
      circuitId: disclosed.circuitId,
      account: disclosed.account,
      nonce: request.nonce,
      ...(request.label === undefined ? {} : { label: request.label }),
      events: disclosed.events.map((e) => ({ ...e, closedAt: new Date(e.closedAt).toISOString() }))
    }, () => [
      `Verified: ${amount} USDC, disclosed by ${disclosed.account} (${disclosed.circuitId}, ${disclosed.events.length} payout${disclosed.events.length === 1 ? "" : "s"}).`,
      ...disclosed.events.map((e) => `  ${new Date(e.closedAt).toISOString()}  ${e.from} → ${e.to}  transaction ${e.ref.txHash} event ${e.ref.eventIndex}`)
    ])
  }))).pipe(Command.withDescription("Verify a disclosure bundle against the request you issued (§5.3's six steps): the value, or the step that refused it"))
