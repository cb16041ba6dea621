import { Button, Input } from "@stellar/design-system"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { lazy, Suspense, useState } from "react"
import type { Me, Member } from "@confidential-payroll/client/contract"
import type { EscrowKey as Key } from "@confidential-payroll/client/escrow"
import type { Option } from "effect"
import { messageOf } from "../api/ApiError.ts"
import { run } from "../api/Client.ts"
import { permissionsOf } from "../api/Me.ts"
import { useClient } from "../api/useClient.ts"
import { CopyButton } from "../components/CopyButton.tsx"
import { Page, Section } from "../components/Page.tsx"
import { Restricted } from "../components/Restricted.tsx"
import { TxLink } from "../components/TxLink.tsx"
import { Empty, ErrorNote, Loading } from "../components/States.tsx"
import { useSession } from "../session/Session.tsx"
import { useSealing } from "../sealing/Sealing.tsx"

const ops = () => import("../escrow/EscrowOps.ts")

const useEscrow = () => {
  const client = useClient()
  const keys = useQuery({ queryKey: ["escrow-keys"], queryFn: ({ signal }) => run(client.escrow.list(), signal) })
  const members = useQuery({
    queryKey: ["members", "escrow"],
    queryFn: async ({ signal }) => (await run(client.members.list({ urlParams: { limit: 100 } }), signal)).items as ReadonlyArray<Member>,
    retry: false
  })
  return { keys, members }
}

/** What the auditor registry's `get_key` holds for the current key (shared by the status line and the actions). */
const useRegistry = (session: string, current: Key | undefined) =>
  useQuery({
    queryKey: ["escrow-registry", current?.auditorId, current?.point],
    queryFn: async () => (await ops()).statusOf(session, current!),
    enabled: current !== undefined,
    retry: false
  })

const Status = ({ status }: { readonly status: ReturnType<typeof useRegistry> }) => {
  if (status.isPending) return <Loading what="the auditor registry's key" />
  if (status.isError) return <ErrorNote what="read the auditor registry" error={status.error} />
  const s = status.data
  return (
    <p role="status" data-testid="registry-status">
      {s.status === "registered" ? "Registered: the auditor registry holds this key under its auditor id." : s.status === "unregistered"
        ? "Not registered yet: the registry's operator must call register_key."
        : "The registry holds another key under this auditor id: the operator must rotate it to this key."}
    </p>
  )
}

/** The operator's call: prepared from the operator's account, signed here when that is the signed-in wallet. */
const OperatorCall = ({ me, session, current, needed }: { readonly me: Me; readonly session: string; readonly current: Key; readonly needed: boolean }) => {
  const queries = useQueryClient()
  const [operator, setOperator] = useState(me.sub)
  const fn = current.replaces._tag === "Some" ? "rotate_key" : "register_key"
  const prepare = useMutation({
    mutationFn: async () => (await ops()).prepareOperatorCall(session, { fn, auditorId: current.auditorId, point: current.point, operator: operator.trim() })
  })
  const send = useMutation({
    mutationFn: async (prepared: { readonly xdr: string; readonly networkPassphrase: string }) => (await ops()).signAndSubmit(session, me.sub, prepared),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ["escrow-registry"] })
  })
  if (!needed && prepare.isIdle && send.isIdle) return null
  return (
    <Section title="The registry operator's call" id="escrow-operator">
      <p className="muted">{`${fn}(${current.auditorId}, point, operator) is the auditor registry operator's to sign.`}</p>
      <form className="row" onSubmit={(e) => { e.preventDefault(); prepare.mutate() }}>
        <Input id="escrow-operator-account" fieldSize="md" label="Operator's account" value={operator} onChange={(e) => setOperator(e.target.value)} />
        <Button variant="secondary" size="md" type="submit" isLoading={prepare.isPending}>Prepare the call</Button>
      </form>
      {prepare.isError ? <p className="error" role="alert">{messageOf(prepare.error)}</p> : null}
      {prepare.data === undefined ? null : (
        <>
          {operator.trim() === me.sub
            ? <Button variant="primary" size="md" type="button" isLoading={send.isPending} onClick={() => send.mutate(prepare.data)}>Sign as operator</Button>
            : <p>Hand this transaction to the operator: they sign it with their own tools and submit it.</p>}
          {send.isError ? <p className="error" role="alert">{messageOf(send.error)}</p> : null}
          {send.data === undefined ? null : <p role="status">On the ledger: transaction <TxLink hash={send.data.hash} /></p>}
          <label className="small" htmlFor="escrow-xdr">The call's transaction (XDR)</label>
          <textarea id="escrow-xdr" className="mono" readOnly rows={4} value={prepare.data.xdr} />
          <CopyButton text={prepare.data.xdr} label="Copy the XDR" />
        </>
      )}
    </Section>
  )
}

const KeyFacts = ({ current, keys }: { readonly current: Key; readonly keys: ReadonlyArray<Key> }) => (
  <dl className="facts">
    <div><dt>Auditor id</dt><dd data-testid="escrow-auditor-id">{current.auditorId}</dd></div>
    <div><dt>Version</dt><dd data-testid="escrow-version">{current.version}</dd></div>
    <div><dt>Point</dt><dd className="mono small" data-testid="escrow-point">{current.point}</dd></div>
    <div><dt>Sealed to</dt><dd>{current.envelope.recipients.length} member(s)</dd></div>
    <div><dt>Earlier keys kept</dt><dd>{keys.length - 1}</dd></div>
  </dl>
)

const ledgerOf = (ledger: Option.Option<number>, otherwise: string) => (ledger._tag === "Some" ? `ledger ${ledger.value}` : otherwise)

/** Every version, oldest first: the ledgers each was the registry's key for, i.e. which events it opens. */
const Versions = ({ keys }: { readonly keys: ReadonlyArray<Key> }) => (
  <table className="table" data-testid="escrow-versions">
    <caption className="visually-hidden">The escrow key's versions, oldest first</caption>
    <thead>
      <tr>
        <th scope="col">Version</th>
        <th scope="col">Point</th>
        <th scope="col">The registry's key from</th>
        <th scope="col">Replaced at</th>
        <th scope="col">Sealed to</th>
      </tr>
    </thead>
    <tbody>
      {keys.map((k) => (
        <tr key={k.id}>
          <td data-label="Version">{`v${k.version}${k.current ? " (current)" : ""}`}</td>
          <td data-label="Point" className="mono small" title={k.point}>{`${k.point.slice(0, 12)}…${k.point.slice(-8)}`}</td>
          <td data-label="The registry's key from">{ledgerOf(k.validFromLedger, "its registration")}</td>
          <td data-label="Replaced at">{ledgerOf(k.validUntilLedger, "—")}</td>
          <td data-label="Sealed to">{`${k.envelope.recipients.length} member(s)`}</td>
        </tr>
      ))}
    </tbody>
  </table>
)

/** The rotation panel (console/src/escrow/Rotation.tsx), fetched when an owner or admin opens the page: most never rotate. */
const Rotation = lazy(() => import("../escrow/Rotation.tsx").then((m) => ({ default: m.Rotation })))

export const EscrowKey = ({ me }: { readonly me: Me }) => {
  const session = useSession().session?.token ?? ""
  const client = useClient()
  const { keys, members } = useEscrow()
  const { unlocked, unlock } = useSealing(me)
  const queries = useQueryClient()
  const can = permissionsOf(me)
  const manage = can("org:manage").allowed
  const [auditorId, setAuditorId] = useState("")
  const refresh = () => void queries.invalidateQueries({ queryKey: ["escrow-keys"] })
  const sealingKey = async () => unlocked ?? await unlock.mutateAsync()
  /** The members as they are now: the secret is sealed to every reader at this moment. */
  const freshMembers = async () => (await run(client.members.list({ urlParams: { limit: 100 } }))).items
  const create = useMutation({
    mutationFn: async () => {
      const o = await ops()
      const u = await sealingKey()
      const id = auditorId.trim() === "" ? await o.suggestedAuditorId(u.orgId) : Number(auditorId)
      return await o.createKey(session, u, id, await freshMembers())
    },
    onSuccess: refresh
  })
  const current = keys.data?.keys.find((k) => k.current)
  const registry = useRegistry(session, current)
  const readers = members.data === undefined ? [] : members.data.filter((m) =>
    m.sealingKey !== undefined && ["owner", "admin", "auditor"].includes(m.role))
  const missing = current === undefined ? [] : readers.filter((m) => !current.envelope.recipients.some((r) => r.memberId === m.id && "sealingKey" in r && r.sealingKey === m.sealingKey))
  const share = useMutation({
    mutationFn: async () => (await ops()).shareKey(session, await sealingKey(), current!, members.data ?? []),
    onSuccess: refresh
  })
  return (
    <Restricted me={me} permission="audit:read" title="Escrow key">
      <Page title="Escrow key">
        <p className="muted">
          The organization's auditor key: its paying wallets register under its auditor id, so that the members who may audit
          (owner, admin, auditor) read every proven operation's amount from the public events, in their browser. The service
          keeps its point and its secret sealed to them, never the secret.
        </p>
        {keys.isPending ? <Loading what="the escrow key" /> : keys.isError ? <ErrorNote what="load the escrow key" error={keys.error} /> : current === undefined ? (
          <Section title="Create it" id="escrow-create">
            {!manage ? <Empty>The organization has no escrow key yet: an owner or admin creates it.</Empty> : (
              <form className="row" onSubmit={(e) => { e.preventDefault(); create.mutate() }}>
                <Input id="escrow-auditor-id-input" fieldSize="md" label="Auditor id (optional)" note="A u32; empty: one derived from the organization's id" value={auditorId} onChange={(e) => setAuditorId(e.target.value)} />
                <Button variant="primary" size="md" type="submit" isLoading={create.isPending}>Create the escrow key</Button>
              </form>
            )}
            {create.isError ? <p className="error" role="alert">{messageOf(create.error)}</p> : null}
          </Section>
        ) : (
          <>
            <Section title="The key" id="escrow-key">
              <KeyFacts current={current} keys={keys.data.keys} />
              <Status status={registry} />
              {missing.length === 0 ? null : (
                <p>
                  <Button variant="secondary" size="md" type="button" isLoading={share.isPending} onClick={() => share.mutate()}>
                    {`Share with ${missing.length} member${missing.length === 1 ? "" : "s"}`}
                  </Button>
                </p>
              )}
              {share.isError ? <p className="error" role="alert">{messageOf(share.error)}</p> : null}
            </Section>
            {keys.data.keys.length > 1 ? (
              <Section title="Every version" id="escrow-versions-title">
                <Versions keys={keys.data.keys} />
              </Section>
            ) : null}
            {manage ? <OperatorCall key={current.id} me={me} session={session} current={current} needed={registry.data?.status !== "registered"} /> : null}
            {manage ? <Suspense fallback={<Loading what="key rotation" />}><Rotation me={me} session={session} current={current} registry={registry.data} members={freshMembers} /></Suspense> : null}
          </>
        )}
      </Page>
    </Restricted>
  )
}
