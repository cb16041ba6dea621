// `payroll disclose --escrow` (issue 37 §1, SELECTIVE_DISCLOSURE.md §8 D-auditor): a member holding the organization's
// escrow key answers a request for one payout of its paying wallets with the auditor channel of that side — the
// sender's when one of them paid it, the recipient's when one of them was paid — opened with the key version the
// registry held at the event's ledger, each version's secret opened as `payroll audit report` opens it.
import type { Keypair } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import type { AuditorChannel } from "../confidential/disclosure/Auditor.ts"
import { discloseAuditor } from "../confidential/disclosure/Disclose.ts"
import type { DisclosureRequestFile } from "../confidential/disclosure/Exchange.ts"
import { resolveEvent } from "../confidential/disclosure/VerifyChain.ts"
import { payingWallets, sentPayouts } from "../payroll/AuditSources.ts"
import { disclosureProve } from "../payroll/DisclosureProver.ts"
import type { EscrowKey } from "../payroll/EscrowContract.ts"
import { openEscrowSecrets } from "../payroll/EscrowSecrets.ts"
import { unlockSealing } from "../payroll/SealingMember.ts"
import type { ServiceChain } from "../payroll/ServiceChain.ts"
import { CliFailure, EXIT, usage } from "./Failure.ts"
import { clientOf, type Common, say, type Signed } from "./Shared.ts"

const refused = (message: string) => new CliFailure({ code: EXIT.refused, message })

/** [validFromLedger, validUntilLedger), either end open: the verifier's step 3 takes a rotation's own ledger as the new key's. */
const covers = (key: EscrowKey, ledger: number) =>
  Option.getOrElse(key.validFromLedger, () => 0) <= ledger && ledger < Option.getOrElse(key.validUntilLedger, () => Number.POSITIVE_INFINITY)

const span = (key: EscrowKey) =>
  `v${key.version} ${Option.match(key.validFromLedger, { onNone: () => "from the start", onSome: (l) => `from ledger ${l}` })}` +
  Option.match(key.validUntilLedger, { onNone: () => "", onSome: (l) => ` until ledger ${l}` })

/** The D-auditor bundle answering `request` with the organization's escrow key. */
export const escrowBundle = (c: Pick<Common, "json">, signed: Signed & { readonly key: Keypair }, chain: ServiceChain, request: DisclosureRequestFile) =>
  Effect.gen(function*() {
    const { ask } = request
    if (ask.kind !== "event") {
      return yield* usage("--escrow discloses one payout (D-auditor has no total): ask for it with payroll recipient request --payout-hash <hash>")
    }
    const label = `event ${ask.ref.eventIndex} of transaction ${ask.ref.txHash}`
    const event = yield* resolveEvent(chain.server, chain.deployment.contract, ask.ref).pipe(Effect.mapError((e) =>
      e._tag === "ChainUnreadable"
        ? new CliFailure({ code: EXIT.unavailable, message: `${e.message}: try again` })
        : usage(`the request names no transfer of the token: ${e.message}`)))

    yield* say(c, "Reading the organization's paying wallets…")
    const client = yield* clientOf(signed)
    const wallets = yield* payingWallets(client, signed.baseUrl, chain.deployment.contract, yield* sentPayouts(client))
    const channel: AuditorChannel | undefined = wallets.includes(event.from) ? "sender" : wallets.includes(event.to) ? "recipient" : undefined
    if (channel === undefined) {
      return yield* usage(`${label} is a transfer from ${event.from} to ${event.to}, neither one of the organization's paying wallets: its escrow key audits neither side`)
    }
    const wallet = channel === "sender" ? event.from : event.to
    const onChain = yield* Effect.tryPromise({ try: () => chain.reader.account(wallet), catch: (e) => e })
    if (onChain === undefined) return yield* usage(`${wallet} is not registered with the token`)

    const { keys } = yield* client.escrow.list()
    if (keys.length === 0) return yield* refused("the organization has no escrow key: an owner or admin runs payroll escrow create")
    const versions = keys.filter((k) => k.auditorId === onChain.auditorId)
    if (versions.length === 0) {
      return yield* refused(`${wallet} is registered under auditor id ${onChain.auditorId}, not the escrow key's (${keys[0]!.auditorId}): its auditor channel is another key's`)
    }
    const key = versions.find((k) => covers(k, event.ledger))
    if (key === undefined) {
      return yield* refused(`no version of the escrow key was the registry's at ledger ${event.ledger} (${versions.map(span).join("; ")}): the secret that opens ${label} is not the organization's`)
    }
    const member = yield* unlockSealing(client, signed.key)
    const { spans } = yield* openEscrowSecrets(member, [key])
    if (spans.length === 0) {
      return yield* refused(`escrow key v${key.version} (the registry's at ledger ${event.ledger}) is not sealed to you: a member who holds it runs payroll escrow share`)
    }

    yield* say(c, `${request.label ?? "The recipient"} asks for one payout; disclosing the ${channel} auditor channel with escrow key v${key.version}:`)
    yield* say(c, `  ${new Date(event.closedAt).toISOString()}  ${event.from} → ${event.to}  transaction ${event.ref.txHash} event ${event.ref.eventIndex}`)
    yield* say(c, "Proving (a minute or two)…")
    const prove = yield* disclosureProve()
    return yield* discloseAuditor({ auditorSecret: spans[0]!.secret, channel, event, request, prove })
  })
