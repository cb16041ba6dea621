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

/** The operator's call prepared from the operator's account: its XDR, or why the registry refuses it in words. */
export const prepareOperatorCall = async (session: string, call: RegistryCall) => {
  const { server, deployment } = await chainOf(session)
  try {
    const account = await server.getAccount(call.operator)
    const tx = await prepareRegistryCall(server, deployment.networkPassphrase, deployment.auditorRegistry, account.sequenceNumber(), call, {
      timeoutSeconds: SPONSORED_TIMEOUT_SECONDS
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
