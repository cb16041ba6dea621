// `payroll escrow`: the organization's escrow key (issue 36 §2, docs/cli.md): an auditor key pair in OpenZeppelin's
// form derived from the member's wallet (client/src/escrow/EscrowKey.ts: the documented SEP-53 message, so it can be
// derived again), its secret sealed among the members who may audit, its point registered by the registry's operator.
import { Command, Options } from "@effect/cli"
import type { Keypair } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import { type EscrowKey, escrowPayload } from "../payroll/EscrowContract.ts"
import { readAuditorKey, registryStatus } from "../escrow/AuditorRegistry.ts"
import { deriveEscrowKey } from "../escrow/EscrowKey.ts"
import { sealEscrowSecret, shareEscrowSecretWith } from "../escrow/SealedEscrowSecret.ts"
import { escrowReaders } from "../payroll/EscrowReaders.ts"
import { escrowKeyRef } from "../payroll/EscrowSecrets.ts"
import { keypairSigner } from "../payroll/KeypairSigner.ts"
import { landedCall } from "../payroll/RegistryCall.ts"
import { allMembers, envelopePayload, type SealingMember, unlockSealing } from "../payroll/SealingMember.ts"
import { serviceChain, type ServiceChain } from "../payroll/ServiceChain.ts"
import type { SealedEnvelope } from "../sealing/Envelope.ts"
import { keyLine, keyView } from "./EscrowView.ts"
import { operatorLines, operatorOf, operatorStep } from "./EscrowRegistry.ts"
import { CliFailure, EXIT, usage } from "./Failure.ts"
import { clientOf, common, emit, say, signedIn, withKey } from "./Shared.ts"

type Client = Effect.Effect.Success<ReturnType<typeof clientOf>>

const operator = Options.text("operator").pipe(
  Options.withDescription("The auditor registry's operator (G…), who signs register_key / rotate_key (default: your wallet)"),
  Options.optional
)

const promise = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => e })

const keysOf = (client: Client) => Effect.map(client.escrow.list(), (list) => list.keys)

const currentOf = (keys: ReadonlyArray<EscrowKey>) => {
  const current = keys.find((k) => k.current)
  return current === undefined
    ? Effect.fail(new CliFailure({ code: EXIT.refused, message: "the organization has no escrow key: an owner or admin runs payroll escrow create --auditor-id <n>" }))
    : Effect.succeed(current)
}

/** Version `version` of the member's escrow key, from their wallet's signature over the documented message. */
const derive = (key: Keypair, orgId: string, version: number) =>
  promise(() => deriveEscrowKey({ signer: keypairSigner(key), account: key.publicKey(), organizationId: orgId, version }))

/** The members who may audit with a published sealing key, the signed-in member first. */
const readersWith = (client: Client, member: SealingMember) =>
  Effect.map(allMembers(client), (members) => [
    { memberId: member.memberId as string, sealingKey: member.keyPair.publicKey },
    ...escrowReaders(members).filter((r) => r.memberId !== member.memberId)
  ])

const registered = (chain: ServiceChain, auditorId: number) =>
  promise(() => readAuditorKey(chain.server, chain.deployment.networkPassphrase, chain.deployment.auditorRegistry, auditorId))

const status = Command.make("status", common, (c) =>
  Effect.gen(function*() {
    const signed = yield* signedIn(c)
    const client = yield* clientOf(signed)
    const keys = yield* keysOf(client)
    const readers = escrowReaders(yield* allMembers(client))
    const views = keys.map((k) => keyView(k, readers))
    const current = keys.find((k) => k.current)
    if (current === undefined) {
      return yield* emit(c, { keys: views, current: null, registry: null }, () => ["No escrow key yet: an owner or admin runs payroll escrow create --auditor-id <n>."])
    }
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const registry = yield* promise(() =>
      registryStatus(chain.server, chain.deployment.networkPassphrase, chain.deployment.auditorRegistry, { auditorId: current.auditorId, point: current.point }))
    yield* emit(c, { keys: views, current: current.id, registry }, () => [
      ...views.map(keyLine),
      registry.status === "registered"
        ? `The auditor registry holds the current key under auditor id ${current.auditorId}.`
        : registry.status === "unregistered"
        ? `The auditor registry has no key under auditor id ${current.auditorId}: the operator registers it (payroll escrow register).`
        : `The auditor registry holds another key under auditor id ${current.auditorId} (${registry.registered.slice(0, 16)}…).`
    ])
  })).pipe(Command.withDescription("The organization's escrow keys, the current one, and what the auditor registry holds"))

const create = Command.make("create", {
  ...common,
  auditorId: Options.integer("auditor-id").pipe(Options.withDescription("The auditor registry's id (u32) to register the key under")),
  operator
}, (c) =>
  Effect.gen(function*() {
    if (c.auditorId < 0 || c.auditorId > 0xffffffff) return yield* usage("--auditor-id is a u32: 0 to 4294967295")
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const op = yield* operatorOf(c.operator, signed.key)
    if ((yield* keysOf(client)).length > 0) {
      return yield* new CliFailure({ code: EXIT.refused, message: "the organization has an escrow key already (payroll escrow status): rotate it with payroll escrow rotate" })
    }
    const member = yield* unlockSealing(client, signed.key)
    const pair = yield* derive(signed.key, member.orgId, 1)
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const held = yield* registered(chain, c.auditorId)
    if (held !== undefined && held !== pair.pointHex) {
      return yield* new CliFailure({ code: EXIT.refused, message: `auditor id ${c.auditorId} holds another key in the auditor registry: choose a free --auditor-id` })
    }
    const readers = yield* readersWith(client, member)
    const envelope = yield* promise(() => sealEscrowSecret(pair, { organizationId: member.orgId, auditorId: c.auditorId }, readers))
    const key = yield* client.escrow.create({
      payload: yield* escrowPayload("create", { auditorId: c.auditorId, point: pair.pointHex, version: 1, envelope: yield* envelopePayload(envelope) })
    })
    const view = keyView(key, readers)
    if (held !== undefined) {
      return yield* emit(c, { key: view, registry: { status: "registered" } }, () => [`Created escrow key v1 (${key.id}); the registry holds it already.`])
    }
    const step = yield* Effect.either(operatorStep(client, chain, signed.key, { fn: "register_key", auditorId: c.auditorId, point: pair.pointHex, operator: op }))
    if (step._tag === "Left") {
      yield* emit(c, { key: view, registry: { status: "unregistered" } }, () => [`Created escrow key v1 (${key.id}), sealed to ${readers.length} member(s).`])
      return yield* new CliFailure({ code: EXIT.partial, message: `the key is stored but its register_key was not prepared (${step.left instanceof Error ? step.left.message : "refused"}): run payroll escrow register --operator <G…>` })
    }
    yield* emit(c, { key: view, registry: step.right }, () => [`Created escrow key v1 (${key.id}), sealed to ${readers.length} member(s).`, ...operatorLines(step.right)])
  })).pipe(Command.withDescription("Create the organization's escrow key from your wallet (org:manage), seal it to the auditors, prepare register_key"))

const register = Command.make("register", { ...common, operator }, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const op = yield* operatorOf(c.operator, signed.key)
    const current = yield* currentOf(yield* keysOf(client))
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const held = yield* registered(chain, current.auditorId)
    if (held === current.point) return yield* emit(c, { registry: { status: "registered" } }, () => [`The auditor registry holds the current key under auditor id ${current.auditorId}.`])
    if (held !== undefined) {
      return yield* new CliFailure({
        code: EXIT.refused,
        message: `the auditor registry holds another key under auditor id ${current.auditorId}: a rotation is recorded with payroll escrow rotate --landed <hash>`
      })
    }
    const step = yield* operatorStep(client, chain, signed.key, { fn: "register_key", auditorId: current.auditorId, point: current.point, operator: op })
    yield* emit(c, { registry: step }, () => operatorLines(step))
  })).pipe(Command.withDescription("Prepare the registry operator's register_key for the current escrow key (signed when you are the operator)"))

const rotate = Command.make("rotate", {
  ...common,
  operator,
  landed: Options.text("landed").pipe(
    Options.withDescription("The hash of the operator's rotate_key transaction, once it landed: records the new key with its ledger (not needed when you are the operator)"),
    Options.optional
  )
}, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const op = yield* operatorOf(c.operator, signed.key)
    const current = yield* currentOf(yield* keysOf(client))
    const member = yield* unlockSealing(client, signed.key)
    const pair = yield* derive(signed.key, member.orgId, current.version + 1)
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const call = { fn: "rotate_key" as const, auditorId: current.auditorId, point: pair.pointHex }
    let hash = Option.getOrElse(c.landed, () => "").toLowerCase()
    if (hash === "") {
      const held = yield* registered(chain, current.auditorId)
      if (held === pair.pointHex) return yield* usage(`the registry holds v${pair.version} already: record it with payroll escrow rotate --landed <hash of the rotate_key transaction>`)
      if (held !== current.point) {
        return yield* new CliFailure({ code: EXIT.refused, message: `the auditor registry does not hold the current key under auditor id ${current.auditorId}: payroll escrow status` })
      }
      const step = yield* operatorStep(client, chain, signed.key, { ...call, operator: op })
      if (step.status === "prepared") {
        return yield* emit(c, { version: pair.version, registry: step }, () => [
          ...operatorLines(step),
          `Once it has landed, record it: payroll escrow rotate --landed <transaction hash> (with your wallet: v${pair.version} is derived from it).`
        ])
      }
      yield* say(c, operatorLines(step).join("\n"))
      hash = step.hash
    }
    const landed = yield* landedCall(chain, hash, call)
    if (!landed.landed) return yield* new CliFailure({ code: EXIT.chain, message: `${landed.why}: pass the hash of the operator's rotate_key transaction` })
    const readers = yield* readersWith(client, member)
    const envelope = yield* promise(() => sealEscrowSecret(pair, { organizationId: member.orgId, auditorId: current.auditorId }, readers))
    const key = yield* client.escrow.rotate({
      path: { id: current.id },
      payload: yield* escrowPayload("rotate", { point: pair.pointHex, version: pair.version, envelope: yield* envelopePayload(envelope), replacedAtLedger: landed.ledger })
    })
    yield* emit(c, { key: keyView(key, readers), replacedAtLedger: landed.ledger }, () => [
      `Recorded escrow key v${key.version} (${key.id}) from ledger ${landed.ledger}; v${current.version} stays sealed for the events before it.`
    ])
  })).pipe(Command.withDescription("Rotate the escrow key: prepare the operator's rotate_key, then record the new key with --landed <hash>"))

const share = Command.make("share", common, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const client = yield* clientOf(signed)
    const member = yield* unlockSealing(client, signed.key)
    const readers = yield* readersWith(client, member)
    const shared: Array<{ keyId: string; version: number; added: ReadonlyArray<string> }> = []
    const notMine: Array<{ keyId: string; version: number }> = []
    for (const key of yield* keysOf(client)) {
      const lacking = keyView(key, readers).lacking
      if (lacking.length === 0) continue
      if (!key.envelope.recipients.some((r) => r.memberId === member.memberId)) {
        notMine.push({ keyId: key.id, version: key.version })
        continue
      }
      yield* say(c, `Sharing v${key.version} with ${lacking.length} member(s)…`)
      const envelope = yield* promise(() =>
        shareEscrowSecretWith(key.envelope as SealedEnvelope, escrowKeyRef(member.orgId, key), { memberId: member.memberId, keyPair: member.keyPair }, readers))
      yield* client.escrow.share({ path: { id: key.id }, payload: yield* envelopePayload(envelope) })
      shared.push({ keyId: key.id, version: key.version, added: lacking })
    }
    yield* emit(c, { shared, notSealedToYou: notMine }, () => [
      ...(shared.length === 0 ? ["Every member who may audit holds every escrow key they can be given."] : shared.map((s) => `Shared v${s.version} with ${s.added.join(", ")}.`)),
      ...notMine.map((k) => `v${k.version} is not sealed to you: a member who holds it runs payroll escrow share.`)
    ])
  })).pipe(Command.withDescription("Seal the escrow secrets for the members who may audit and lack them (audit:disclose)"))

export const escrow = Command.make("escrow").pipe(
  Command.withDescription("The organization's escrow key: status, create, share, rotate, register"),
  Command.withSubcommands([status, create, share, rotate, register])
)
