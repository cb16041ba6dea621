import { useInfiniteQuery, useMutation } from "@tanstack/react-query"
import { DateTime } from "effect"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

export interface AuditFilter {
  readonly subjectType?: string
  readonly subjectId?: string
  readonly actor?: string
  readonly action?: string
  /** Local date-times from the form (`2026-11-24T09:30`), read in the user's time zone. */
  readonly from?: string
  readonly to?: string
}

const text = (key: string, value: string | undefined) => (value === undefined || value.trim() === "" ? {} : { [key]: value.trim() })
const moment = (key: "from" | "to", value: string | undefined) =>
  value === undefined || value === "" ? {} : { [key]: DateTime.unsafeMake(new Date(value)) }

export const useAudit = (filter: AuditFilter) => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["audit", filter],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.audit.list({
        urlParams: {
          limit: 50,
          ...text("subjectType", filter.subjectType),
          ...text("subjectId", filter.subjectId),
          ...text("actor", filter.actor),
          ...text("action", filter.action),
          ...moment("from", filter.from),
          ...moment("to", filter.to),
          ...(pageParam === undefined ? {} : { cursor: pageParam })
        }
      }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

/**
 * `GET /audit/verify`: an action the member asks for (it links what waits, then walks the whole chain), optionally
 * against an earlier checkpoint (`position:hash`).
 */
export const useVerify = () => {
  const client = useClient()
  return useMutation({
    mutationFn: (checkpoint: string) =>
      run(client.audit.verify({ urlParams: checkpoint.trim() === "" ? {} : { checkpoint: checkpoint.trim() } }))
  })
}
