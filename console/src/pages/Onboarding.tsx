import { Button, Input } from "@stellar/design-system"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { CreateOrg } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { run } from "../api/Client.ts"
import { Page, Section } from "../components/Page.tsx"
import { useClient } from "../api/useClient.ts"

/** A signed-in wallet of no organization: create one (it becomes its owner), or join one with an invite token. */
export const Onboarding = () => {
  const client = useClient()
  const queries = useQueryClient()
  const [name, setName] = useState("")
  const [token, setToken] = useState("")
  const done = () => queries.invalidateQueries({ queryKey: ["me"] })
  const create = useMutation({ mutationFn: () => run(client.account.createOrg({ payload: new CreateOrg({ name: name.trim() }) })), onSuccess: done })
  const join = useMutation({ mutationFn: () => run(client.account.joinOrg({ path: { token: token.trim() } })), onSuccess: done })
  const submitCreate = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const submitJoin = (event: FormEvent) => {
    event.preventDefault()
    join.mutate()
  }
  return (
    <Page title="Welcome">
      <p className="lead">You are signed in, but not yet part of an organization.</p>
      <div className="columns">
        <Section title="Create organization" id="create-org">
          <form className="form" onSubmit={submitCreate}>
            <Input
              id="org-name"
              fieldSize="md"
              label="Organization name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={200}
              required
              error={create.isError ? messageOf(create.error) : undefined}
            />
            <p className="muted small">You become its owner: you can then invite the rest of your team.</p>
            <Button variant="primary" size="md" type="submit" isLoading={create.isPending} disabled={name.trim() === ""}>
              Create organization
            </Button>
          </form>
        </Section>
        <Section title="Join an organization" id="join-org">
          <form className="form" onSubmit={submitJoin}>
            <Input
              id="join-token"
              fieldSize="md"
              label="Invite token"
              note="The token an owner or admin of the organization gave you."
              value={token}
              onChange={(e) => setToken(e.target.value)}
              maxLength={100}
              required
              autoComplete="off"
              error={join.isError ? messageOf(join.error) : undefined}
            />
            <Button variant="secondary" size="md" type="submit" isLoading={join.isPending} disabled={token.trim() === ""}>
              Join organization
            </Button>
          </form>
        </Section>
      </div>
    </Page>
  )
}
