// The organization's escrow key in the browser (issue 36 §2), loaded with import() by the Escrow key page only: derived
// from Freighter's SEP-53 signature of the documented message (client/src/escrow/EscrowKey.ts), sealed to the members
// who may audit with the member's unlocked sealing key, and the auditor registry's operator call prepared through the
// service's read-only gateway, signed by Freighter and sponsored (POST /escrow/registry-calls). The secret lives in
// this tab's memory only while it is sealed.
import type { Member } from "@confidential-payroll/client/contract"
import {
  CreateEscrowKey,
  deriveEscrowKey,
  RegistryCallRequest,
  RotateEscrowKey,
  type EscrowKey,
  type EscrowKeyPair,
  prepareRegistryCall,
  landedRegistryCall,
  readAuditorKey,
  type RegistryCall,
  registryStatus,
  sealEscrowSecret,
  shareEscrowSecretWith
} from "@confidential-payroll/client/escrow"
import { rpc, SimulationRefusedError } from "@confidential-payroll/client/confidential"
import { signMessage, signTransaction } from "@stellar/freighter-api"
import { clientFor, run } from "../api/Client.ts"
import { asPayload } from "../api/SealedAmounts.ts"
import { chainOf } from "../confidential/BrowserWallet.ts"
import type { Unlocked } from "../sealing/Sealing.tsx"

/** The sponsor accepts time bounds at most ten minutes ahead (src/Transfers/SponsorPolicy.ts MAX_VALIDITY_SECONDS). */
const SPONSORED_TIMEOUT_SECONDS = 300

/** Members who may audit (`audit:disclose`: owner, admin, auditor) and published a sealing key: the secret's readers. */
export const escrowReaders = (members: ReadonlyArray<Member>) =>
  members.flatMap((m) =>
    m.sealingKey !== undefined && (m.role === "owner" || m.role === "admin" || m.role === "auditor") ? [{ memberId: m.id, sealingKey: m.sealingKey }] : []
  )

/** An auditor id of the organization's own, the same each time: the first four bytes of SHA-256 of its id, as a u32. */
export const suggestedAuditorId = async (orgId: string) => {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(orgId)))
  return new DataView(digest.buffer).getUint32(0) >>> 1
}

const freighter = { signMessage: (message: string, opts?: { networkPassphrase?: string; address?: string }) => signMessage(message, opts) }

/** Freighter signs the escrow-key message (twice, compared); the pair of `version`. */
export const derive = (orgId: string, account: string, version: number, published?: string): Promise<EscrowKeyPair> =>
  deriveEscrowKey({ signer: freighter, account, organizationId: orgId, version, ...(published === undefined ? {} : { published }) })

/** Creates the organization's key: derived, sealed to every reader, stored (POST /org/escrow-keys). */
export const createKey = async (session: string, unlocked: Unlocked, auditorId: number, members: ReadonlyArray<Member>) => {
  const pair = await derive(unlocked.orgId, unlocked.account, 1)
  const envelope = await sealEscrowSecret(pair, { organizationId: unlocked.orgId, auditorId }, escrowReaders(members))
  return await run(clientFor(session).escrow.create({ payload: new CreateEscrowKey({ auditorId, point: pair.pointHex, version: 1, envelope: asPayload(envelope) }) }))
}

const refOf = (orgId: string, key: EscrowKey) => ({ organizationId: orgId, auditorId: key.auditorId, version: key.version, point: key.point })

/** The same secret for every reader now (PUT /org/escrow-keys/{id}/sealed-secret), opened with the member's key. */
export const shareKey = async (session: string, unlocked: Unlocked, key: EscrowKey, members: ReadonlyArray<Member>) => {
  const envelope = await shareEscrowSecretWith(key.envelope as never, refOf(unlocked.orgId, key), unlocked, escrowReaders(members))
  return await run(clientFor(session).escrow.share({ path: { id: key.id }, payload: asPayload(envelope) }))
}

/** Where the registry stands for the key (`get_key` through the gateway). */
export const statusOf = async (session: string, key: EscrowKey) => {
  const { server, deployment } = await chainOf(session)
  return await registryStatus(server, deployment.networkPassphrase, deployment.auditorRegistry, key)
}

/** An operator who signs elsewhere sends it unsponsored, and may take longer (the CLI's hand-over, RegistryCall.ts). */
const HANDED_OVER_TIMEOUT_SECONDS = 3600

/**
 * The operator's call prepared from the operator's account: its XDR, or why the registry refuses it in words. Valid
 * for the sponsor's ten minutes when the signed-in wallet (`signer`) signs it here, an hour when handed over.
 */
export const prepareOperatorCall = async (session: string, call: RegistryCall, signer?: string) => {
  const { server, deployment } = await chainOf(session)
  try {
    const account = await server.getAccount(call.operator)
    const tx = await prepareRegistryCall(server, deployment.networkPassphrase, deployment.auditorRegistry, account.sequenceNumber(), call, {
      timeoutSeconds: signer === undefined || signer === call.operator ? SPONSORED_TIMEOUT_SECONDS : HANDED_OVER_TIMEOUT_SECONDS
    })
    return { xdr: tx.toXDR(), networkPassphrase: deployment.networkPassphrase }
  } catch (error) {
    if (error instanceof SimulationRefusedError && /#2000\)/.test(error.error)) {
      throw new Error(`${call.operator} is not the auditor registry's operator (its "manager" role): hand the call to the operator.`)
    }
    if (error instanceof SimulationRefusedError && /#3300\)/.test(error.error)) {
      throw new Error(`The registry holds another key under auditor id ${call.auditorId} already.`)
    }
    throw error
  }
}

/** Freighter signs the prepared call as the operator; the service sponsors it. The ledger it landed in. */
export const signAndSubmit = async (session: string, account: string, prepared: { readonly xdr: string; readonly networkPassphrase: string }) => {
  const signed = await signTransaction(prepared.xdr, { networkPassphrase: prepared.networkPassphrase, address: account })
  if (signed.error !== undefined || signed.signedTxXdr === "") throw new Error("Freighter did not sign the operator's call.")
  const sent = await run(clientFor(session).escrow.registryCall({ payload: new RegistryCallRequest({ signedXDR: signed.signedTxXdr }) }))
  const { server } = await chainOf(session)
  const landed = await server.getTransaction(sent.hash)
  return { hash: sent.hash, ledger: landed.status === rpc.Api.GetTransactionStatus.SUCCESS ? landed.ledger : undefined }
}

/** The next key, sealed, recorded with the ledger `rotate_key` landed in (POST /org/escrow-keys/{id}/rotate). */
export const recordRotation = async (session: string, unlocked: Unlocked, key: EscrowKey, pair: EscrowKeyPair, ledger: number, members: ReadonlyArray<Member>) => {
  const envelope = await sealEscrowSecret(pair, { organizationId: unlocked.orgId, auditorId: key.auditorId }, escrowReaders(members))
  return await run(clientFor(session).escrow.rotate({
    path: { id: key.id },
    payload: new RotateEscrowKey({ point: pair.pointHex, version: pair.version, envelope: asPayload(envelope), replacedAtLedger: ledger })
  }))
}

/** What a rotation came to: recorded (the signed-in wallet is the operator), or the operator's call to hand over. */
export type Rotation =
  | { readonly status: "recorded"; readonly key: EscrowKey; readonly hash: string; readonly ledger: number }
  | { readonly status: "prepared"; readonly version: number; readonly point: string; readonly xdr: string }

/**
 * `payroll escrow rotate` in the browser (client/src/cli/Escrow.ts): the next version derived from the member's wallet
 * (the documented message names it, so the same wallet derives it again), the operator's `rotate_key` prepared while
 * the registry holds the current key; signed, sponsored and recorded with its ledger when the member is the operator.
 * The old key is left as it is: the service keeps it sealed beside the new one for the events before.
 */
export const rotateKey = async (session: string, unlocked: Unlocked, key: EscrowKey, operator: string, members: ReadonlyArray<Member>): Promise<Rotation> => {
  const pair = await derive(unlocked.orgId, unlocked.account, key.version + 1)
  const { server, deployment } = await chainOf(session)
  const held = await readAuditorKey(server, deployment.networkPassphrase, deployment.auditorRegistry, key.auditorId)
  if (held === pair.pointHex) {
    throw new Error(`The auditor registry holds version ${pair.version} already: record the rotation with its rotate_key transaction's hash.`)
  }
  if (held !== key.point) throw new Error(`The auditor registry does not hold the current key under auditor id ${key.auditorId}: there is nothing to rotate from.`)
  const call = { fn: "rotate_key" as const, auditorId: key.auditorId, point: pair.pointHex, operator }
  const prepared = await prepareOperatorCall(session, call, unlocked.account)
  if (operator !== unlocked.account) return { status: "prepared", version: pair.version, point: pair.pointHex, xdr: prepared.xdr }
  const sent = await signAndSubmit(session, unlocked.account, prepared)
  if (sent.ledger === undefined) throw new Error(`rotate_key is on the ledger (transaction ${sent.hash}) but its ledger was not read: record it with that hash.`)
  return { status: "recorded", key: await recordRotation(session, unlocked, key, pair, sent.ledger, members), hash: sent.hash, ledger: sent.ledger }
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`

/**
 * `payroll escrow rotate --landed <hash>`: the rotation the operator signed elsewhere, recorded with the ledger it landed
 * in once it is on the ledger. The new version is derived again from the wallet (`point`, when this tab prepared it:
 * one signature instead of two) and must be what the transaction rotated to and what the registry holds.
 */
export const recordLanded = async (session: string, unlocked: Unlocked, key: EscrowKey, hash: string, members: ReadonlyArray<Member>, point?: string) => {
  const pair = await derive(unlocked.orgId, unlocked.account, key.version + 1, point)
  const { server, deployment } = await chainOf(session)
  const landed = await landedRegistryCall(server, deployment.auditorRegistry, hash, { fn: "rotate_key", auditorId: key.auditorId, point: pair.pointHex })
  if (!landed.landed) throw new Error(`${capitalized(landed.why)}: give the hash of the operator's rotate_key transaction to version ${pair.version}'s point, once it has landed (was it prepared with this wallet?).`)
  const held = await readAuditorKey(server, deployment.networkPassphrase, deployment.auditorRegistry, key.auditorId)
  if (held !== pair.pointHex) throw new Error(`The auditor registry does not hold version ${pair.version} under auditor id ${key.auditorId}.`)
  return { key: await recordRotation(session, unlocked, key, pair, landed.ledger, members), ledger: landed.ledger }
}
