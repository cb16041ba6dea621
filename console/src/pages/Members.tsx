import { Button, Select } from "@stellar/design-system"
import { type FormEvent, useState } from "react"
import { type Me, type Member, MemberRole } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { useMemberControls, useMembers } from "../api/Org.ts"
import { Confirm } from "../components/Confirm.tsx"
import { ShownOnce } from "../components/ShownOnce.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { ErrorNote, Loading } from "../components/States.tsx"
import { Time } from "../components/Time.tsx"

const ROLES = MemberRole.literals

const MemberRow = ({ member, me }: { readonly member: Member; readonly me: Me }) => {
  const { setRole, remove } = useMemberControls()
  const self = member.sub === me.sub
  const error = setRole.isError ? messageOf(setRole.error) : remove.isError ? messageOf(remove.error) : undefined
  return (
    <tr>
      <td data-label="Member"><code title={member.sub}>{member.sub.length > 20 ? `${member.sub.slice(0, 6)}…${member.sub.slice(-6)}` : member.sub}</code>{self ? " (you)" : ""}</td>
      <td data-label="Role">
        <Select
          id={`role-${member.id}`}
          fieldSize="sm"
          label={<span className="visually-hidden">Role of {member.sub}</span>}
          value={member.role}
          disabled={setRole.isPending}
          onChange={(e) => setRole.mutate({ id: member.id, role: e.target.value as MemberRole })}
        >
          {ROLES.map((role) => <option key={role} value={role}>{role}</option>)}
        </Select>
      </td>
      <td data-label="Joined"><Time at={member.joinedAt} /></td>
      <td data-label="Actions">
        <Confirm question={self ? "Leave the organization?" : "Remove this member?"} confirmLabel={self ? "Yes, leave" : "Yes, remove"} onConfirm={() => remove.mutate(member.id)}>
          {(ask) => <Button variant="tertiary" size="sm" onClick={ask} isLoading={remove.isPending}>{self ? "Leave" : "Remove"}</Button>}
        </Confirm>
        {error === undefined ? null : <span className="action__error" role="alert">{error}</span>}
      </td>
    </tr>
  )
}

const Invite = () => {
  const { invite } = useMemberControls()
  const [role, setRole] = useState<MemberRole>("viewer")
  const submit = (event: FormEvent) => {
    event.preventDefault()
    invite.mutate(role)
  }
  return (
    <Section title="Invite someone" id="invite-member">
      <form className="form form--inline" onSubmit={submit}>
        <Select id="invite-role" fieldSize="md" label="Their role" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
          {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
        </Select>
        <Button variant="primary" size="md" type="submit" isLoading={invite.isPending}>Create invite</Button>
      </form>
      {invite.isError ? <ErrorNote what="create the invite" error={invite.error} /> : null}
      {invite.data === undefined ? null : (
        <ShownOnce value={invite.data.token} copyLabel="Copy invite token">
          Invite token (role <strong>{invite.data.role}</strong>), shown only now, valid until <Time at={invite.data.expiresAt} />: they sign in
          to this console and paste it under “Join an organization”.
        </ShownOnce>
      )}
    </Section>
  )
}

export const Members = ({ me }: { readonly me: Me }) => {
  const members = useMembers()
  const items = members.data?.pages.flatMap((p) => p.items) ?? []
  return (
    <Restricted me={me} permission="org:manage" title="Members">
      <Page title="Members">
        <Invite />
        <Section title="Members and roles" id="members-list">
          <p className="muted small">Changing a role takes effect at once, for the member's API keys too. Only an owner can change an owner.</p>
          {members.isPending
            ? <Loading what="members" />
            : members.isError
            ? <ErrorNote what="load the members" error={members.error} />
            : (
              <table className="table">
                <caption className="visually-hidden">Members of the organization</caption>
                <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col">Actions</th></tr></thead>
                <tbody>{items.map((m) => <MemberRow key={m.id} member={m} me={me} />)}</tbody>
              </table>
            )}
          {members.hasNextPage ? <Button variant="tertiary" size="md" onClick={() => void members.fetchNextPage()}>Load more members</Button> : null}
        </Section>
      </Page>
    </Restricted>
  )
}
