import type { Keypair } from "@stellar/stellar-sdk"
import { Effect, Schema } from "effect"
import { type Member, MemberId } from "../../../src/Domain/Members.ts"
import { PublishSealingKey, SealedEnvelope } from "../../../src/Domain/SealedAmounts.ts"
import { makeClient } from "../Client.ts"
import { deriveSealingKey, type SealingKeyPair } from "../sealing/SealingKey.ts"
import { keypairSigner } from "./KeypairSigner.ts"

/** A member's unlocked sealing key: who they are among an envelope's recipients, and their key pair (memory only). */
export interface SealingMember {
  readonly orgId: string
  readonly account: string
  readonly memberId: MemberId
  readonly keyPair: SealingKeyPair
}

type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** Every member of the signed-in member's organization, page by page. */
export const allMembers = (client: Client) =>
  Effect.gen(function*() {
    const all: Array<Member> = []
    let cursor: string | undefined
    do {
      const page = yield* client.members.list({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } })
      all.push(...page.items)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return all
  })

/**
 * The signed-in member's sealing key, as the console's "Unlock amounts" derives it (the documented SEP-53 message,
 * client/src/sealing/SealingKey.ts), and published (PUT /me/sealing-key) so that others can seal amounts to it. One
 * signature when it reproduces the key published before, two compared otherwise.
 */
export const unlockSealing = (client: Client, key: Keypair) =>
  Effect.gen(function*() {
    const me = yield* client.account.me({ urlParams: {} })
    const orgId = me.employer?.orgId
    if (orgId === undefined) return yield* Effect.fail(new Error("you are not a member of an organization"))
    const mine = (yield* allMembers(client)).find((m) => m.sub === me.sub)
    const published = mine?.sealingKey
    const keyPair = yield* Effect.tryPromise({
      try: () => deriveSealingKey({ organizationId: orgId, account: key.publicKey(), signer: keypairSigner(key), ...(published === undefined ? {} : { published }) }),
      catch: (e) => e
    })
    const member = mine !== undefined && published === keyPair.publicKey
      ? mine
      : yield* client.account.publishSealingKey({ payload: new PublishSealingKey({ sealingKey: keyPair.publicKey }) })
    return { orgId, account: key.publicKey(), memberId: member.id, keyPair } satisfies SealingMember
  })

/** The sealing library's envelope as the contract's payload (its class checks every field again). */
export const envelopePayload = (envelope: unknown) => Schema.decodeUnknown(SealedEnvelope)(envelope)
