import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query"
import { AcceptInvite } from "@confidential-payroll/client/contract"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

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

export const useAcceptInvite = (token: string) => {
  const client = useClient()
  const queries = useQueryClient()
  return useMutation({
    mutationFn: () => run(client.account.acceptInvite({ path: { token }, payload: new AcceptInvite({}) })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["me"] })
  })
}
