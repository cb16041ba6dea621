import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import {
  AddPayouts,
  ApproveBatch,
  type Batch,
  type BatchId,
  type BatchStatus,
  type ContractorId,
  CreateBatch,
  type PayoutId,
  RejectBatch
} from "@confidential-payroll/client/contract"
import { useBackoff } from "./Backoff.ts"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

const PAGE = 50

export const useBatches = (status: BatchStatus | undefined, limit = PAGE) => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["batches", status ?? null, limit],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.batches.list({
        urlParams: { limit, ...(status === undefined ? {} : { status }), ...(pageParam === undefined ? {} : { cursor: pageParam }) }
      }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

/** What changes as a batch runs: while none of it changes, polling slows down. */
const fingerprint = (batch: Batch) =>
  [batch.status, batch.settledCount, batch.failedCount, batch.canceledCount, batch.payoutCount, batch.approvals.length].join(":")

/** Batches others may still move: approvals, the payroll runner's transfers, a pause or a resume. */
const LIVE: ReadonlySet<BatchStatus> = new Set(["ready", "started", "paused"])

/**
 * How often to read a live batch again: every second after it changed, doubling while it does not, up to 30 s;
 * never for a draft (only this member edits it) or a finished batch.
 */
export const usePollDelay = (batch: Batch | undefined, updatedAt: number): number | false =>
  useBackoff(batch === undefined ? undefined : fingerprint(batch), updatedAt, batch !== undefined && LIVE.has(batch.status))

export const useBatch = (id: BatchId, interval: number | false) => {
  const client = useClient()
  return useQuery({
    queryKey: ["batch", id],
    refetchInterval: interval,
    queryFn: ({ signal }) => run(client.batches.get({ path: { id } }), signal)
  })
}

export const usePayouts = (id: BatchId, interval: number | false) => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["payouts", id],
    refetchInterval: interval,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.batches.payouts({ path: { id }, urlParams: { limit: 100, ...(pageParam === undefined ? {} : { cursor: pageParam }) } }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

export const useCreateBatch = () => {
  const client = useClient()
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (name: string) => run(client.batches.create({ payload: new CreateBatch({ name }) })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["batches"] })
  })
}

/** Every control of a batch page; each refreshes the batch, its payouts and the lists it appears in. */
export const useBatchControls = (id: BatchId) => {
  const client = useClient()
  const queries = useQueryClient()
  const refresh = (batch?: Batch) => {
    if (batch !== undefined) queries.setQueryData(["batch", id], batch)
    void queries.invalidateQueries({ queryKey: ["batch", id] })
    void queries.invalidateQueries({ queryKey: ["payouts", id] })
    void queries.invalidateQueries({ queryKey: ["batches"] })
  }
  const path = { path: { id } }
  const control = (call: () => Promise<Batch>) => useMutation({ mutationFn: call, onSuccess: refresh })
  return {
    ready: control(() => run(client.batches.ready(path))),
    approve: useMutation({
      // The digest of the sealed amounts the approver was shown: the service refuses it (409) if they changed since.
      mutationFn: (sealedAmountsDigest: string | undefined) =>
        run(client.batches.approve({ ...path, payload: new ApproveBatch(sealedAmountsDigest === undefined ? {} : { sealedAmountsDigest }) })),
      onSuccess: refresh
    }),
    pause: control(() => run(client.batches.pause(path))),
    resume: control(() => run(client.batches.resume(path))),
    cancel: control(() => run(client.batches.cancel(path))),
    reject: useMutation({
      mutationFn: (reason: string) => run(client.batches.reject({ ...path, payload: new RejectBatch({ reason }) })),
      onSuccess: refresh
    }),
    addPayouts: useMutation({
      mutationFn: (contractorIds: ReadonlyArray<ContractorId>) =>
        run(client.batches.addPayouts({ ...path, payload: new AddPayouts({ contractorIds }) })),
      onSuccess: () => refresh()
    }),
    removePayout: useMutation({
      mutationFn: (payoutId: PayoutId) => run(client.batches.removePayout({ path: { id, payoutId } })),
      onSuccess: () => refresh()
    }),
    cancelPayout: useMutation({
      mutationFn: (payoutId: PayoutId) => run(client.batches.cancelPayout({ path: { id, payoutId } })),
      onSuccess: () => refresh()
    }),
    remove: useMutation({
      mutationFn: () => run(client.batches.remove(path)),
      onSuccess: () => queries.invalidateQueries({ queryKey: ["batches"] })
    })
  }
}
