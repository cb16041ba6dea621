import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import {
  type BatchId,
  MemberId,
  type SealedAmounts,
  SealedEnvelope,
  SealedRecipient
} from "@confidential-payroll/client/contract"
import type { SealedEnvelope as ClientEnvelope } from "../sealing/SealingOps.ts"
import { ApiError } from "./ApiError.ts"
import { run } from "./Client.ts"
import { useClient } from "./useClient.ts"

/** A batch's sealed amounts as stored (GET /batches/{id}/sealed-amounts), or null when none are. */
export const useSealedAmounts = (id: BatchId, enabled: boolean, interval: number | false) => {
  const client = useClient()
  return useQuery({
    queryKey: ["sealed-amounts", id],
    enabled,
    refetchInterval: interval,
    queryFn: async ({ signal }): Promise<SealedAmounts | null> => {
      try {
        return await run(client.batches.sealedAmounts({ path: { id } }), signal)
      } catch (error) {
        if (error instanceof ApiError && error.tag === "NotFound") return null
        throw error
      }
    }
  })
}

/** The client library's envelope as the contract's payload (its classes check every field again). */
export const asPayload = (envelope: ClientEnvelope): SealedEnvelope =>
  new SealedEnvelope({
    ...envelope,
    recipients: envelope.recipients.map((r) => new SealedRecipient({ ...r, memberId: MemberId.make(r.memberId) }))
  })

/** Stores a sealed envelope (PUT /batches/{id}/sealed-amounts): new amounts, or the same ones shared with more members. */
export const useStoreSealedAmounts = (id: BatchId) => {
  const client = useClient()
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (envelope: ClientEnvelope) => run(client.batches.sealAmounts({ path: { id }, payload: asPayload(envelope) })),
    onSuccess: (stored) => {
      queries.setQueryData(["sealed-amounts", id], stored)
      // New amounts clear the batch's approvals: read it again.
      void queries.invalidateQueries({ queryKey: ["batch", id] })
    }
  })
}
