// The escrow key's rotation on the Escrow key page (issue 36 §2), loaded with import() by that page for an owner or admin.
import { Button, Input } from "@stellar/design-system"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useEffect, useRef, useState } from "react"
import type { Me, Member } from "@confidential-payroll/client/contract"
import type { EscrowKey as Key, RegistryStatus } from "@confidential-payroll/client/escrow"
import { messageOf } from "../api/ApiError.ts"
import { CopyButton } from "../components/CopyButton.tsx"
import { Section } from "../components/Page.tsx"
import { useSealing } from "../sealing/Sealing.tsx"

const ops = () => import("./EscrowOps.ts")

const HASH = /^[0-9a-f]{64}$/

/**
 * `payroll escrow rotate` on the page (issue 36 §2): the next version derived from the member's wallet and sealed, the
 * operator's `rotate_key` signed here when the member is the operator, or handed over and recorded by its hash once it
 * landed. Asked for once more first, saying what happens to the events before.
 */
export const Rotation = ({ me, session, current, registry, members }: {
  readonly me: Me
  readonly session: string
  readonly current: Key
  readonly registry: RegistryStatus | undefined
  readonly members: () => Promise<ReadonlyArray<Member>>
}) => {
  const queries = useQueryClient()
  const { unlocked, unlock } = useSealing(me)
  const sealingKey = async () => unlocked ?? await unlock.mutateAsync()
  const [asking, setAsking] = useState(false)
  const [operator, setOperator] = useState(me.sub)
  const [hash, setHash] = useState("")
  const panel = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (asking) panel.current?.querySelector("input")?.focus()
  }, [asking])
  const refresh = () => {
    void queries.invalidateQueries({ queryKey: ["escrow-keys"] })
    void queries.invalidateQueries({ queryKey: ["escrow-registry"] })
  }
  const rotate = useMutation({
    mutationFn: async () => (await ops()).rotateKey(session, await sealingKey(), current, operator.trim(), await members()),
    onSuccess: (r) => {
      setAsking(false)
      if (r.status === "recorded") refresh()
    }
  })
  const record = useMutation({
    mutationFn: async () => {
      const landed = hash.trim().toLowerCase()
      if (!HASH.test(landed)) throw new Error("A transaction hash is 64 hexadecimal characters.")
      const point = rotate.data?.status === "prepared" ? rotate.data.point : undefined
      return (await ops()).recordLanded(session, await sealingKey(), current, landed, await members(), point)
    },
    onSuccess: () => {
      rotate.reset()
      setHash("")
      refresh()
    }
  })
  const next = current.version + 1
  const done = rotate.data?.status === "recorded" ? rotate.data : record.data
  const handedOver = rotate.data?.status === "prepared" ? rotate.data : undefined
  return (
    <Section title="Rotate the key" id="escrow-rotate">
      {done === undefined ? null : (
        <p role="status" data-testid="escrow-rotated">
          {`Rotated: version ${done.key.version} is the registry's key from ledger ${done.ledger}; version ${done.key.version - 1} stays sealed beside it for the events before.`}
        </p>
      )}
      {registry?.status === "registered" ? (
        asking ? (
          <div className="secret" role="group" aria-label={`Rotate the escrow key to version ${next}?`} ref={panel}>
            <div className="stack">
              <p><strong>{`Rotate the escrow key to version ${next}?`}</strong></p>
              <p>
                {`Freighter signs the escrow-key message for version ${next} (twice, compared): the new key comes from your wallet, so it can be derived again. Its secret is sealed to the members who may audit, and the registry's operator calls rotate_key(${current.auditorId}, new point, operator).`}
              </p>
              <p>
                {`Events from the ledger rotate_key lands in are encrypted to version ${next}. Version ${current.version} is not deleted: it stays sealed beside the new one with that ledger, so older events stay readable with it.`}
              </p>
              <p>
                When you are the operator, you sign rotate_key here and the service pays its fee; otherwise the call is prepared for
                the operator to sign, and you record it here with its transaction's hash once it has landed.
              </p>
              <form className="row" onSubmit={(e) => { e.preventDefault(); rotate.mutate() }}>
                <Input id="escrow-rotate-operator" fieldSize="md" label="Operator's account" value={operator} onChange={(e) => setOperator(e.target.value)} />
                <Button variant="primary" size="md" type="submit" isLoading={rotate.isPending}>{`Rotate to version ${next}`}</Button>
                <Button variant="tertiary" size="md" type="button" disabled={rotate.isPending} onClick={() => setAsking(false)}>Keep version {current.version}</Button>
              </form>
            </div>
          </div>
        ) : (
          <>
            <p className="muted">
              A new key from your wallet under the same auditor id, for a key that may have leaked or a reader who left: the old
              one stays sealed for the events before it.
            </p>
            <Button variant="secondary" size="md" type="button" onClick={() => { rotate.reset(); setAsking(true) }}>Rotate the key</Button>
          </>
        )
      ) : registry?.status === "unregistered" ? <p className="muted">The key can be rotated once the registry holds it.</p>
        : registry?.status === "other key" && handedOver === undefined
        ? <p>{`If the operator ran rotate_key to version ${next} of your wallet's key, record it here with that transaction's hash.`}</p>
        : null}
      {rotate.isError ? <p className="error" role="alert">{messageOf(rotate.error)}</p> : null}
      {handedOver === undefined ? null : (
        <>
          <p>{`rotate_key to version ${handedOver.version}, prepared for ${operator.trim()}: hand it to the operator, who signs it with their own tools and submits it (valid an hour).`}</p>
          <label className="small" htmlFor="escrow-rotate-xdr">The rotation's transaction (XDR)</label>
          <textarea id="escrow-rotate-xdr" className="mono" readOnly rows={4} value={handedOver.xdr} />
          <CopyButton text={handedOver.xdr} label="Copy the XDR" />
        </>
      )}
      {handedOver !== undefined || registry?.status === "other key" ? (
        <form className="row" onSubmit={(e) => { e.preventDefault(); record.mutate() }}>
          <Input
            id="escrow-rotate-hash"
            fieldSize="md"
            label="The rotate_key transaction's hash"
            note={`Once it has landed: version ${next} is derived again from your wallet and recorded with its ledger`}
            value={hash}
            onChange={(e) => setHash(e.target.value)}
          />
          <Button variant="secondary" size="md" type="submit" isLoading={record.isPending}>Record the rotation</Button>
        </form>
      ) : null}
      {record.isError ? <p className="error" role="alert">{messageOf(record.error)}</p> : null}
    </Section>
  )
}
