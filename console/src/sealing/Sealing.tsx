import { useMutation, useQueryClient } from "@tanstack/react-query"
import { createContext, type ReactNode, useContext, useState } from "react"
import { type Me, type MemberId, PublishSealingKey } from "@confidential-payroll/client/contract"
import { run } from "../api/Client.ts"
import { permissionsOf } from "../api/Me.ts"
import { useClient } from "../api/useClient.ts"
import type { SealingKeyPair } from "./SealingOps.ts"

/** The operations module, loaded on first use (it carries HPKE and the Stellar SDK). */
export const sealingOps = () => import("./SealingOps.ts")

/** A member's unlocked sealing key: in this tab's memory only, gone on reload or sign-out. */
export interface Unlocked {
  readonly orgId: string
  readonly account: string
  readonly memberId: MemberId
  readonly keyPair: SealingKeyPair
}

const Context = createContext<{ readonly unlocked: Unlocked | undefined; readonly set: (u: Unlocked) => void } | undefined>(undefined)

export const SealingProvider = ({ children }: { readonly children: ReactNode }) => {
  const [unlocked, set] = useState<Unlocked | undefined>(undefined)
  return <Context.Provider value={{ unlocked, set }}>{children}</Context.Provider>
}

/** Why this member cannot read amounts here, in words, or undefined when they may unlock them. */
export const lockedReason = (me: Me): string | undefined => {
  const read = permissionsOf(me)("amounts:read")
  if (!read.allowed) return read.reason
  if (me.method !== "sep10") return "Amounts are sealed to wallets: sign in with Freighter to read them."
  return undefined
}

/** A refusal from the wallet or the key derivation, in words for a person. */
const unlockMessage = (error: unknown): string => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String((error as { _tag: unknown })._tag) : ""
  if (tag === "KeyDerivationFailed" || tag === "SignerNotDeterministic") {
    return "Freighter did not sign the sealing-key message (or signed it differently twice): the amounts stay locked."
  }
  return error instanceof Error ? error.message : "The amounts could not be unlocked."
}

/**
 * The signed-in member's sealing key: `unlock` asks Freighter to sign the documented message (twice, compared),
 * derives the key pair in this tab and publishes its public half (PUT /me/sealing-key), so that others can seal
 * amounts to it.
 */
export const useSealing = (me: Me) => {
  const value = useContext(Context)
  if (value === undefined) throw new Error("useSealing outside SealingProvider")
  const client = useClient()
  const queries = useQueryClient()
  const orgId = me.employer?.orgId
  const unlocked = value.unlocked !== undefined && value.unlocked.orgId === orgId && value.unlocked.account === me.sub ? value.unlocked : undefined
  /** The key this member published before, if the first page of members lists it. */
  const publishedKey = async () => {
    const page = await run(client.members.list({ urlParams: { limit: 100 } }))
    return page.items.find((m) => m.sub === me.sub)?.sealingKey
  }
  const unlock = useMutation({
    mutationFn: async (): Promise<Unlocked> => {
      if (orgId === undefined) throw new Error("You are not a member of an organization.")
      const ops = await sealingOps()
      let keyPair: SealingKeyPair
      try {
        keyPair = await ops.deriveKey(orgId, me.sub, await publishedKey())
      } catch (error) {
        throw new Error(unlockMessage(error))
      }
      const member = await run(client.account.publishSealingKey({ payload: new PublishSealingKey({ sealingKey: keyPair.publicKey }) }))
      return { orgId, account: me.sub, memberId: member.id, keyPair }
    },
    onSuccess: (u) => {
      value.set(u)
      void queries.invalidateQueries({ queryKey: ["members"] })
    }
  })
  return { unlocked, unlock, reason: lockedReason(me) }
}
