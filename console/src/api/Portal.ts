import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query"
import { AcceptInvite, type ContractorPayout } from "@confidential-payroll/client/contract"
import { useClient } from "./useClient.ts"
import { type PayrollClient, run } from "./Client.ts"

/** The signed-in contractor's payouts, across every organization that pays them. */
export const useMyPayouts = () => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["my-payouts"],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.contractorPortal.payouts({ urlParams: { limit: 50, ...(pageParam === undefined ? {} : { cursor: pageParam }) } }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

/** Every one of the contractor's payouts, page after page: totals need them all, not the table's first page. */
export const allMyPayouts = async (client: PayrollClient, signal?: AbortSignal): Promise<ReadonlyArray<ContractorPayout>> => {
  const items: Array<ContractorPayout> = []
  let cursor: string | undefined
  do {
    const page = await run(client.contractorPortal.payouts({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } }), signal)
    items.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return items
}

export const useAcceptInvite = (token: string) => {
  const client = useClient()
  const queries = useQueryClient()
  return useMutation({
    mutationFn: () => run(client.account.acceptInvite({ path: { token }, payload: new AcceptInvite({}) })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["me"] })
  })
}
