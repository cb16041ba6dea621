import { useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query"
import { Option } from "effect"
import {
  BulkImport,
  type ContractorId,
  type ContractorStatus,
  CreateContractor,
  type StellarAddress,
  UpdateContractor
} from "@confidential-payroll/client/contract"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

export interface ContractorFilter {
  readonly status?: ContractorStatus | undefined
  readonly q?: string | undefined
}

export const useContractors = (filter: ContractorFilter, limit = 50) => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["contractors", filter.status ?? null, filter.q ?? null, limit],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.contractors.list({
        urlParams: {
          limit,
          ...(filter.status === undefined ? {} : { status: filter.status }),
          ...(filter.q === undefined || filter.q === "" ? {} : { q: filter.q }),
          ...(pageParam === undefined ? {} : { cursor: pageParam })
        }
      }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

/**
 * Contractors' names by id, for the contractors a page shows: one request per group of ids (at most 100 each, e.g.
 * one page of payouts), so a group already read is not asked again when another page loads.
 */
export const useContractorNames = (groups: ReadonlyArray<ReadonlyArray<ContractorId>>): ReadonlyMap<string, string> => {
  const client = useClient()
  const answers = useQueries({
    queries: groups.map((group) => {
      const ids = [...new Set(group)].sort()
      return {
        queryKey: ["contractor-names", ids],
        enabled: ids.length > 0,
        queryFn: ({ signal }: { readonly signal: AbortSignal }) =>
          run(client.contractors.list({ urlParams: { ids, limit: 100 } }), signal)
      }
    })
  })
  return new Map(answers.flatMap((answer) => answer.data?.items.map((c) => [c.id as string, c.name] as const) ?? []))
}

export interface NewContractor {
  readonly name: string
  readonly email?: string | undefined
  readonly address?: string | undefined
}

export const useContractorControls = () => {
  const client = useClient()
  const queries = useQueryClient()
  const refresh = () => {
    void queries.invalidateQueries({ queryKey: ["contractors"] })
    void queries.invalidateQueries({ queryKey: ["contractor-names"] })
  }
  return {
    create: useMutation({
      mutationFn: (c: NewContractor) =>
        run(client.contractors.create({
          payload: new CreateContractor({
            name: c.name,
            ...(c.email === undefined || c.email === "" ? {} : { email: c.email }),
            // The brand is checked where it is given: the constructor validates the payload (a ParseError names it).
            ...(c.address === undefined || c.address === "" ? {} : { address: c.address as StellarAddress })
          })
        })),
      onSuccess: refresh
    }),
    setStatus: useMutation({
      mutationFn: ({ id, status }: { readonly id: ContractorId; readonly status: ContractorStatus }) =>
        run(client.contractors.update({ path: { id }, payload: new UpdateContractor({ status }) })),
      onSuccess: refresh
    }),
    invite: useMutation({
      mutationFn: (id: ContractorId) => run(client.contractors.invite({ path: { id } }))
    }),
    bulk: useMutation({
      mutationFn: (rows: ReadonlyArray<unknown>) => run(client.contractors.bulk({ payload: new BulkImport({ rows }) })),
      onSuccess: refresh
    }),
    check: useMutation({
      mutationFn: (id: ContractorId) => run(client.contractors.check({ path: { id } })),
      onSuccess: refresh
    })
  }
}

/** The Stellar addresses of the contractors `ids` (those that have one): where their payouts go. */
export const useContractorAddresses = (ids: ReadonlyArray<string>, enabled: boolean) => {
  const client = useClient()
  const sorted = [...new Set(ids)].sort() as Array<ContractorId>
  return useQuery({
    queryKey: ["contractor-addresses", sorted],
    enabled: enabled && sorted.length > 0,
    queryFn: async ({ signal }) => {
      const page = await run(client.contractors.list({ urlParams: { ids: sorted, limit: 100 } }), signal)
      return new Map(page.items.flatMap((c) => Option.match(c.address, { onNone: () => [], onSome: (a) => [[c.id as string, a] as const] })))
    }
  })
}
