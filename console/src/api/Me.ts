import { useQuery } from "@tanstack/react-query"
import type { Me, Permission } from "@confidential-payroll/client/contract"
import { useSession } from "../session/Session.tsx"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

export const meKey = (invite: string | undefined) => ["me", invite ?? null] as const

/**
 * `GET /me`: who is signed in, as what; it routes the console (onboarding, employer app, contractor portal).
 * `readAgain`, given the answer, says in how many milliseconds to read it again (false: not again).
 */
export const useMe = (invite?: string, readAgain?: (me: Me | undefined) => number | false) => {
  const client = useClient()
  const { session } = useSession()
  return useQuery({
    queryKey: meKey(invite),
    enabled: session !== undefined,
    queryFn: ({ signal }) => run(client.account.me({ urlParams: invite === undefined ? {} : { invite } }), signal),
    ...(readAgain === undefined ? {} : { refetchInterval: (query: { readonly state: { readonly data: Me | undefined } }) => readAgain(query.state.data) })
  })
}

/** Whether the member may do something, and if not, why, in words: from `/me`'s own `permissions`, never a copy. */
export interface Allowed {
  readonly allowed: boolean
  readonly reason: string | undefined
}

export const permissionsOf = (me: Me | undefined) => (permission: Permission): Allowed => {
  const employer = me?.employer
  if (employer === undefined) return { allowed: false, reason: "You are not a member of an organization." }
  return employer.permissions.includes(permission)
    ? { allowed: true, reason: undefined }
    : { allowed: false, reason: `Your role (${employer.role}) does not include ${permission}.` }
}
