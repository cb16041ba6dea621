import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import {
  type ApiKeyId,
  CreateApiKey,
  CreateOrgInvite,
  type MemberId,
  type MemberRole,
  OrgSettings,
  type Scope,
  UpdateMember
} from "@confidential-payroll/client/contract"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

export const useMembers = () => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["members"],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.members.list({ urlParams: { limit: 100, ...(pageParam === undefined ? {} : { cursor: pageParam }) } }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

export const useMemberControls = () => {
  const client = useClient()
  const queries = useQueryClient()
  const refresh = () => queries.invalidateQueries({ queryKey: ["members"] })
  return {
    setRole: useMutation({
      mutationFn: ({ id, role }: { readonly id: MemberId; readonly role: MemberRole }) =>
        run(client.members.update({ path: { id }, payload: new UpdateMember({ role }) })),
      onSuccess: refresh
    }),
    remove: useMutation({ mutationFn: (id: MemberId) => run(client.members.remove({ path: { id } })), onSuccess: refresh }),
    invite: useMutation({ mutationFn: (role: MemberRole) => run(client.account.inviteEmployer({ payload: new CreateOrgInvite({ role }) })) })
  }
}

export const useSettings = () => {
  const client = useClient()
  return useQuery({ queryKey: ["settings"], queryFn: ({ signal }) => run(client.members.settings(), signal) })
}

export const useUpdateSettings = () => {
  const client = useClient()
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (approvalsRequired: 0 | 1 | 2) => run(client.members.updateSettings({ payload: new OrgSettings({ approvalsRequired }) })),
    onSuccess: (settings) => {
      queries.setQueryData(["settings"], settings)
      void queries.invalidateQueries({ queryKey: ["batches"] })
    }
  })
}

export const useApiKeys = () => {
  const client = useClient()
  return useQuery({ queryKey: ["api-keys"], queryFn: ({ signal }) => run(client.apiKeys.list(), signal) })
}

export interface NewKey {
  readonly name: string
  readonly scopes: ReadonlyArray<Scope>
  readonly role: MemberRole | undefined
}

export const useApiKeyControls = () => {
  const client = useClient()
  const queries = useQueryClient()
  const refresh = () => queries.invalidateQueries({ queryKey: ["api-keys"] })
  return {
    create: useMutation({
      mutationFn: (key: NewKey) =>
        run(client.apiKeys.create({
          payload: new CreateApiKey({ name: key.name, scopes: key.scopes, ...(key.role === undefined ? {} : { role: key.role }) })
        })),
      onSuccess: refresh
    }),
    revoke: useMutation({ mutationFn: (id: ApiKeyId) => run(client.apiKeys.revoke({ path: { id } })), onSuccess: refresh })
  }
}
