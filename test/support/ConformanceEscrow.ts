// The escrow key's routes (issue 36 §2): an organization's key, sealed to its owner, and the registry operator's call.
// Each recipe stands on an employer of its own: an organization keeps one escrow key, under one auditor id.
import { Address, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomInt } from "node:crypto"
import { EscrowKeyPair } from "../../client/src/escrow/EscrowKey.ts"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"
import { ok, type Recipe } from "./ConformanceRecipe.ts"
import { envelope, reader } from "./ConformanceSealing.ts"
import { innerTransfer } from "./Transfer.ts"
import { tokenOf } from "./VersionedToken.ts"

const freshPoint = () => new EscrowKeyPair(BigInt(randomInt(1, 2 ** 47)) * 65_537n + 3n, 1).pointHex

/** What POST /org/escrow-keys takes, for a fresh employer sealing to themselves (the owner holds `audit:disclose`). */
const creation = (fx: ConformanceFixtures) =>
  Effect.gen(function*() {
    const employer = yield* fx.payer()
    const member = yield* reader(fx, employer.token)
    const json = { auditorId: randomInt(1_000, 2 ** 31), point: freshPoint(), version: 1, envelope: envelope([member]) }
    return { ...employer, member, json }
  })

const created = (fx: ConformanceFixtures) =>
  Effect.gen(function*() {
    const made = yield* creation(fx)
    const key = yield* fx.setUp("POST", "/org/escrow-keys", made.token, made.json)
    return { ...made, id: key.id as string, stored: key.envelope as ReturnType<typeof envelope> }
  })

/**
 * The operator's signed `register_key(auditor_id, point, operator)` of the organization's key: the loopback token's
 * auditor registry answers it (its functions served, the employer's wallet its operator, the id free).
 */
const registryCall = (fx: ConformanceFixtures) =>
  Effect.gen(function*() {
    const { json, token, wallet } = yield* creation(fx)
    yield* fx.setUp("POST", "/org/escrow-keys", token, json)
    const loopback = tokenOf(fx.app)
    for (const [fn, handler] of loopback.auditors.functions()) fx.app.rpc.setContractFunction(loopback.auditorRegistry, fn, handler)
    loopback.auditors.setOperator(wallet.publicKey())
    loopback.removeAuditorKey(json.auditorId)
    const args = [xdr.ScVal.scvU32(json.auditorId), xdr.ScVal.scvBytes(Buffer.from(json.point, "hex")), Address.fromString(wallet.publicKey()).toScVal()]
    return { token, signedXDR: innerTransfer(fx.app, wallet, { contract: loopback.auditorRegistry, fn: "register_key", args, register: false }) }
  })

export const escrowRequests: Readonly<Record<string, Recipe>> = {
  "GET /org/escrow-keys": (fx) => Effect.map(created(fx), ({ token }) => ok({ token })),
  "POST /org/escrow-keys": (fx) => Effect.map(creation(fx), ({ json, token }) => ok({ token, json }, 201)),
  "PUT /org/escrow-keys/{id}/sealed-secret": (fx) =>
    Effect.map(created(fx), ({ id, stored, token }) => ok({ token, params: { id }, json: stored })),
  "POST /org/escrow-keys/{id}/rotate": (fx) =>
    Effect.map(created(fx), ({ id, member, token }) =>
      ok({ token, params: { id }, json: { point: freshPoint(), version: 2, envelope: envelope([member]), replacedAtLedger: 100 } }, 201)),
  "POST /escrow/registry-calls": (fx) => Effect.map(registryCall(fx), ({ signedXDR, token }) => ok({ token, json: { signedXDR } }))
}
