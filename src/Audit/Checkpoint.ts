import type { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer } from "effect"
import { OperationalKeys } from "../Auth/Keys.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { AuditCheckpoint, CHECKPOINT } from "./AuditRecord.ts"
import type { ChainHead } from "./Chain.ts"

/**
 * The key that signs the audit trail's checkpoints: the service's SEP-10 signing key, which its stellar.toml publishes
 * as SIGNING_KEY, so that anyone holding a checkpoint can tell it came from this service. SEP-53's prefix keeps such a
 * signature from ever being taken for a transaction's (stellar/stellar-protocol, ecosystem/sep-0053.md).
 */
export class CheckpointSigner extends Context.Tag("Audit/CheckpointSigner")<CheckpointSigner, Keypair>() {}

export const CheckpointSignerLive = Layer.effect(CheckpointSigner, Effect.map(OperationalKeys, (keys) => keys.sep10))

/** The text a checkpoint's signature covers: what it is, whose chain, and the head. */
export const checkpointMessage = (orgId: OrgId, position: number, hash: string) =>
  `Confidential payroll audit checkpoint\norganization: ${orgId}\nposition: ${position}\nhash: ${hash}`

/** The chain's head, signed (SEP-53) for the organization. */
export const signCheckpoint = (signer: Keypair, orgId: OrgId, head: ChainHead): AuditCheckpoint => {
  const hash = Buffer.from(head.hash).toString("hex")
  const message = checkpointMessage(orgId, head.position, hash)
  return new AuditCheckpoint({
    position: head.position,
    hash,
    message,
    signature: Buffer.from(signer.signMessage(message)).toString("base64"),
    signingKey: signer.publicKey()
  }, { disableValidation: true })
}

/** A checkpoint as a client gives it back (`position:hash`, already matched by the parameter's pattern). */
export const parseCheckpoint = (text: string): ChainHead => {
  const [, position, hash] = CHECKPOINT.exec(text)!
  return { position: Number(position), hash: Buffer.from(hash!, "hex") }
}
