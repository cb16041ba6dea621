import { Button, Input, Notification } from "@stellar/design-system"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Option } from "effect"
import { type ChangeEvent, type FormEvent, useEffect, useId, useState } from "react"
import {
  type Batch,
  type BatchId,
  type ContractorId,
  type Me,
  type Member,
  type Payout,
  ROLE_PERMISSIONS,
  type SealedAmounts
} from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { useBatchControls } from "../api/Batches.ts"
import { useContractorAddresses, useContractors } from "../api/Contractors.ts"
import { permissionsOf } from "../api/Me.ts"
import { useMembers } from "../api/Org.ts"
import { useSealedAmounts, useStoreSealedAmounts } from "../api/SealedAmounts.ts"
import { Section } from "../components/Page.tsx"
import { ErrorNote, Loading } from "../components/States.tsx"
import { editableAmount, formatAmount, parseAmount } from "../lib/Amount.ts"
import { amountRows } from "../lib/Csv.ts"
import { sealingOps, type Unlocked, useSealing } from "../sealing/Sealing.tsx"
import { useSession } from "../session/Session.tsx"
import type { Recipient } from "../sealing/SealingOps.ts"

const short = (text: string) => (text.length > 14 ? `${text.slice(0, 6)}…${text.slice(-6)}` : text)

/** Members who may read amounts and have published a sealing key: whom amounts are sealed to. */
export const readersOf = (members: ReadonlyArray<Member>): Array<Recipient> =>
  members.flatMap((m) => (m.sealingKey !== undefined && ROLE_PERMISSIONS[m.role].includes("amounts:read") ? [{ memberId: m.id, sealingKey: m.sealingKey }] : []))

/** The readers the envelope holds no entry for, or one wrapped to another key than the one they published since. */
export const unsharedReaders = (envelope: SealedAmounts["envelope"], readers: ReadonlyArray<Recipient>): Array<Recipient> => {
  const keyOf = new Map(envelope.recipients.map((r) => [r.memberId as string, "sealingKey" in r ? r.sealingKey : undefined]))
  return readers.filter((r) => keyOf.get(r.memberId) !== r.sealingKey)
}

/** How often a reader's page asks for the members again, so that a key published meanwhile is offered a share. */
const MEMBERS_POLL_MS = 5_000

export interface BatchAmounts {
  /** Stored sealed amounts (null: none), once read. */
  readonly sealed: SealedAmounts | null | undefined
  /** The amounts opened in this tab, by payout id. */
  readonly opened: ReadonlyMap<string, bigint> | undefined
  readonly unlocked: Unlocked | undefined
  readonly reason: string | undefined
  readonly openError: unknown
  readonly sealedError: unknown
}

/** A batch's amounts for this member: the sealed envelope as stored, and what it opens to with their key. */
export const useBatchAmounts = (id: BatchId, me: Me, poll: number | false): BatchAmounts => {
  const { unlocked, reason } = useSealing(me)
  const sealed = useSealedAmounts(id, reason === undefined, poll)
  const stored = sealed.data
  const opened = useQuery({
    // A re-wrapped entry (a member's new key) keeps the digest and the count: the entries themselves name the envelope.
    queryKey: ["opened-amounts", id, stored?.digest, stored?.envelope.recipients.map((r) => r.wrappedKey).join(), unlocked?.memberId],
    enabled: unlocked !== undefined && stored !== undefined && stored !== null,
    retry: false,
    staleTime: Infinity,
    queryFn: async () => {
      const ops = await sealingOps()
      const amounts = await ops.openAmounts(stored!.envelope, id, unlocked!.memberId, unlocked!.keyPair)
      return new Map(amounts.map((a) => [a.payoutId, a.amount]))
    }
  })
  return { sealed: stored, opened: opened.data, unlocked, reason, openError: opened.error, sealedError: sealed.error }
}

const openReason = (error: unknown): string =>
  typeof error === "object" && error !== null && "reason" in error ? String((error as { reason: unknown }).reason) : ""

const openProblem = (error: unknown): string => {
  const reason = openReason(error)
  if (reason === "NotARecipient") {
    return "These amounts were sealed before you could read them. Every member who can read them is offered, on this " +
      "page, to share them with you."
  }
  if (reason === "WrappedKeyRejected") {
    return "These amounts were sealed to a sealing key you have replaced since. Every member who can read them is " +
      "offered, on this page, to share them with you again."
  }
  if (reason === "VersionOutdated") {
    return "These amounts were sealed in the old envelope format (version 1), which does not commit to its key, and no " +
      "longer open: they are sealed again while the batch is a draft (a ready batch is rejected back to draft first)."
  }
  if (reason === "KeyCommitmentMismatch") {
    return "The key these amounts were sealed to you with is not the one they commit to: whoever sealed them gave readers " +
      "different keys. Do not approve or pay this batch; have its amounts sealed again."
  }
  return `The sealed amounts could not be opened with your key: ${messageOf(error)}`
}

const Unlock = ({ me }: { readonly me: Me }) => {
  const { unlock } = useSealing(me)
  return (
    <div className="stack">
      <p>
        Amounts are sealed in the browser among the members who may read them; the service stores only ciphertext.
        Unlock them with your wallet: Freighter asks you to sign a message (twice, to check it always signs alike).
        Nothing is sent to the network, and the key stays in this tab.
      </p>
      <div className="row">
        <Button variant="primary" size="md" onClick={() => unlock.mutate()} isLoading={unlock.isPending}>Unlock amounts with Freighter</Button>
        {unlock.isError ? <span className="action__error" role="alert">{messageOf(unlock.error)}</span> : null}
      </div>
    </div>
  )
}

const Total = ({ amounts }: { readonly amounts: ReadonlyArray<bigint | undefined> }) => {
  const known = amounts.filter((a) => a !== undefined)
  return (
    <p className="total">
      <strong>Total: {formatAmount(known.reduce((a, b) => a + b, 0n))} USDC</strong>
      {known.length === amounts.length ? null : <span className="muted"> ({amounts.length - known.length} without an amount)</span>}
    </p>
  )
}

/**
 * Who can read the sealed amounts, who could but is not yet given them, and who has no key yet. The members are read
 * again every few seconds, so that the moment a member publishes a key (or another one), every reader here is offered
 * to share with them.
 */
const Readers = ({ sealed, me, unlocked, batch }: {
  readonly sealed: SealedAmounts
  readonly me: Me
  readonly unlocked: Unlocked
  readonly batch: Batch
}) => {
  const members = useMembers()
  const queries = useQueryClient()
  const store = useStoreSealedAmounts(batch.id)
  const finished = batch.status === "completed" || batch.status === "canceled"
  useEffect(() => {
    if (finished) return
    const timer = setInterval(() => void queries.invalidateQueries({ queryKey: ["members"] }), MEMBERS_POLL_MS)
    return () => clearInterval(timer)
  }, [finished, queries])
  // A share names every reader: all of them must be known.
  useEffect(() => {
    if (members.hasNextPage && !members.isFetchingNextPage) void members.fetchNextPage()
  }, [members])
  const all = members.data?.pages.flatMap((p) => p.items) ?? []
  const readers = readersOf(all)
  const given = new Set(sealed.envelope.recipients.map((r) => r.memberId as string))
  const newcomers = members.hasNextPage ? [] : unsharedReaders(sealed.envelope, readers)
  const keyless = all.filter((m) => m.sealingKey === undefined && ROLE_PERMISSIONS[m.role].includes("amounts:read"))
  const label = (m: Member) => (m.sub === me.sub ? "you" : `${short(m.sub)} (${m.role})`)
  const [shareError, setShareError] = useState<string | undefined>(undefined)
  const share = async () => {
    if (sealed.envelope.version !== 2) return
    setShareError(undefined)
    try {
      const ops = await sealingOps()
      store.mutate(await ops.shareWith(sealed.envelope, batch.id, { memberId: unlocked.memberId, keyPair: unlocked.keyPair }, readers))
    } catch (error) {
      setShareError(messageOf(error))
    }
  }
  const waiting = all.filter((m) => newcomers.some((r) => r.memberId === m.id))
  return (
    <div className="stack">
      {newcomers.length === 0 || finished ? null : (
        <div role="status">
          <Notification variant="primary" title={`${waiting.map(label).join(", ") || `${newcomers.length} members`} cannot read these amounts yet`}>
            <div className="stack">
              <span>
                They published a sealing key after the amounts were sealed. Sharing gives them these amounts; the
                amounts, and the digest the approvals name, stay the same.
              </span>
              <div className="row">
                <Button variant="primary" size="md" onClick={() => void share()} isLoading={store.isPending}>
                  {newcomers.length === 1 ? "Share with 1 new member" : `Share with ${newcomers.length} new members`}
                </Button>
                {store.isError || shareError !== undefined
                  ? <span className="action__error" role="alert">{shareError ?? messageOf(store.error)}</span>
                  : null}
              </div>
            </div>
          </Notification>
        </div>
      )}
      <p className="muted small">
        Sealed for {given.size === 1 ? "1 member" : `${given.size} members`}: {all.filter((m) => given.has(m.id)).map(label).join(", ") || "—"}.
        Digest <code title={sealed.digest}>{sealed.digest.slice(0, 12)}</code>.
      </p>
      {keyless.length === 0 ? null : (
        <p className="muted small">
          Not yet able to read amounts: {keyless.map(label).join(", ")}. Each unlocks amounts once on this page; every
          reader here is then offered to share with them.
        </p>
      )}
    </div>
  )
}

/** The amount editor of a draft: one input a payout, a CSV import, and "Seal amounts". */
const Editor = ({ batch, payouts, nameOf, opened, unlocked }: {
  readonly batch: Batch
  readonly payouts: ReadonlyArray<Payout>
  readonly nameOf: (contractorId: string) => string
  readonly opened: ReadonlyMap<string, bigint> | undefined
  readonly unlocked: Unlocked
}) => {
  const id = useId()
  const members = useMembers()
  const store = useStoreSealedAmounts(batch.id)
  const ready = useContractors({ status: "ready" }, 100)
  const { addPayouts } = useBatchControls(batch.id)
  const [draft, setDraft] = useState<Readonly<Record<string, string>>>({})
  const [imported, setImported] = useState<ReadonlyArray<string>>([])
  const [sealError, setSealError] = useState<string | undefined>(undefined)
  // What is stored fills the inputs (again after another member stores new amounts).
  useEffect(() => {
    if (opened === undefined) return
    setDraft(Object.fromEntries(payouts.flatMap((p) => {
      const amount = opened.get(p.id)
      return amount === undefined ? [] : [[p.contractorId as string, editableAmount(amount)]]
    })))
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened])
  const parsed = payouts.map((p) => ({ payout: p, text: draft[p.contractorId] ?? "", result: parseAmount(draft[p.contractorId] ?? "") }))
  const problems = parsed.filter((r) => "problem" in r.result)
  const unchanged = opened !== undefined && parsed.every((r) => "amount" in r.result && opened.get(r.payout.id) === r.result.amount) &&
    opened.size === payouts.length
  const seal = async (event: FormEvent) => {
    event.preventDefault()
    setSealError(undefined)
    if (problems.length > 0) return
    const recipients = readersOf(members.data?.pages.flatMap((p) => p.items) ?? [])
    const self = { memberId: unlocked.memberId as string, sealingKey: unlocked.keyPair.publicKey }
    const everyone = [self, ...recipients.filter((r) => r.memberId !== self.memberId)]
    try {
      const ops = await sealingOps()
      const envelope = await ops.sealAmounts(batch.id, parsed.map((r) => ({ payoutId: r.payout.id, amount: "amount" in r.result ? r.result.amount : 0n })), everyone)
      store.mutate(envelope)
    } catch (error) {
      setSealError(messageOf(error))
    }
  }
  const importCsv = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0]
    event.target.value = ""
    if (file === undefined) return
    const rows = amountRows(await file.text())
    if ("problem" in rows) {
      setImported([rows.problem])
      return
    }
    const candidates = ready.data?.pages.flatMap((p) => p.items) ?? []
    const present = new Set(payouts.map((p) => p.contractorId as string))
    const notes: Array<string> = []
    const amounts: Record<string, string> = {}
    const toAdd: Array<ContractorId> = []
    for (const row of rows.rows) {
      const key = row.key.toLowerCase()
      const found = candidates.filter((c) =>
        c.name.toLowerCase() === key || Option.exists(c.email, (e) => e.toLowerCase() === key) ||
        Option.exists(c.address, (a) => a.toLowerCase() === key))
      if (found.length !== 1) {
        notes.push(`Row ${row.line}: ${found.length === 0 ? "no ready contractor" : "more than one contractor"} matches "${row.key}".`)
        continue
      }
      const amount = parseAmount(row.amount)
      if ("problem" in amount) {
        notes.push(`Row ${row.line}: ${amount.problem}`)
        continue
      }
      const contractor = found[0]!
      amounts[contractor.id] = editableAmount(amount.amount)
      if (!present.has(contractor.id) && !toAdd.includes(contractor.id)) toAdd.push(contractor.id)
    }
    setDraft((now) => ({ ...now, ...amounts }))
    if (toAdd.length > 0) addPayouts.mutate(toAdd)
    const added = Object.keys(amounts).length
    setImported([`${added === 1 ? "1 amount" : `${added} amounts`} read from ${file.name}${toAdd.length === 0 ? "" : toAdd.length === 1 ? ", 1 payout added" : `, ${toAdd.length} payouts added`}: check them, then seal.`, ...notes])
  }
  return (
    <form className="form form--wide" onSubmit={(e) => void seal(e)} aria-describedby={`${id}-total`}>
      <table className="table">
        <caption className="visually-hidden">Amounts of {batch.name}</caption>
        <thead><tr><th scope="col">Contractor</th><th scope="col">Amount (USDC)</th></tr></thead>
        <tbody>
          {parsed.map(({ payout, text, result }) => (
            <tr key={payout.id}>
              <td data-label="Contractor">{nameOf(payout.contractorId)}</td>
              <td data-label="Amount">
                <Input
                  id={`amount-${payout.id}`}
                  fieldSize="md"
                  label={<span className="visually-hidden">Amount for {nameOf(payout.contractorId)}</span>}
                  inputMode="decimal"
                  autoComplete="off"
                  value={text}
                  onChange={(e) => setDraft((now) => ({ ...now, [payout.contractorId]: e.target.value }))}
                  error={text === "" || !("problem" in result) ? undefined : result.problem}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div id={`${id}-total`}><Total amounts={parsed.map((r) => ("amount" in r.result ? r.result.amount : undefined))} /></div>
      <div className="row">
        <Button variant="primary" size="md" type="submit" isLoading={store.isPending} disabled={problems.length > 0 || unchanged || payouts.length === 0}>
          {opened === undefined ? "Seal amounts" : "Seal new amounts"}
        </Button>
        <label className="file-button">
          <span>Import amounts from CSV</span>
          <input type="file" accept=".csv,text/csv" onChange={(e) => void importCsv(e)} />
        </label>
      </div>
      {store.isError || sealError !== undefined ? <p className="action__error" role="alert">{sealError ?? messageOf(store.error)}</p> : null}
      {imported.length === 0 ? null : <ul className="list small" aria-live="polite">{imported.map((n) => <li key={n}>{n}</li>)}</ul>}
      <p className="muted small">
        A CSV file names each contractor (a column <code>address</code>, <code>email</code> or <code>name</code>) and
        its <code>amount</code>; it is read in this browser and never uploaded. Sealing new amounts clears the batch's
        approvals.
      </p>
    </form>
  )
}

const VERDICT_WORDS = { "paid-as-approved": "paid as approved", mismatch: "mismatch", unchecked: "not checked" } as const

/**
 * The amounts as approved, and — once payouts are sent — each checked against the chain in this browser: its sealed
 * receipt opened, the transfer's ciphertext recomputed from it (confidential/Reconcile.ts).
 */
const ReadOnlyAmounts = ({ batch, me, payouts, nameOf, opened, unlocked }: {
  readonly batch: Batch
  readonly me: Me
  readonly payouts: ReadonlyArray<Payout>
  readonly nameOf: (contractorId: string) => string
  readonly opened: ReadonlyMap<string, bigint> | undefined
  readonly unlocked: Unlocked
}) => {
  const { session } = useSession()
  const sent = payouts.filter((p) => p.status === "submitted" || p.status === "settled" || p.status === "failed")
  const addresses = useContractorAddresses(sent.map((p) => p.contractorId), sent.length > 0)
  const check = useMutation({
    mutationFn: async () => {
      const { reconcile } = await import("../confidential/Reconcile.ts")
      const items = sent.flatMap((p) => {
        const to = addresses.data?.get(p.contractorId)
        return to === undefined ? [] : [{ payoutId: p.id as string, to, approved: opened?.get(p.id) }]
      })
      return await reconcile(session?.token ?? "", batch.id, unlocked, items)
    }
  })
  const verdicts = check.data
  const paidAsApproved = verdicts === undefined ? 0 : [...verdicts.values()].filter((v) => v.kind === "paid-as-approved").length
  return (
    <>
      <table className="table">
        <caption className="visually-hidden">Amounts of {batch.name}</caption>
        <thead>
          <tr><th scope="col">Contractor</th><th scope="col">Amount (USDC)</th>{verdicts === undefined ? null : <th scope="col">On chain</th>}</tr>
        </thead>
        <tbody>
          {payouts.map((p) => {
            const verdict = verdicts?.get(p.id)
            return (
              <tr key={p.id}>
                <td data-label="Contractor">{nameOf(p.contractorId)}</td>
                <td data-label="Amount" className="amount">{opened?.get(p.id) === undefined ? <span className="muted">no amount</span> : formatAmount(opened.get(p.id)!)}</td>
                {verdicts === undefined ? null : (
                  <td data-label="On chain">
                    {verdict === undefined
                      ? <span className="muted">not sent</span>
                      : <span className={`verdict verdict--${verdict.kind}`}>{VERDICT_WORDS[verdict.kind]}{verdict.kind === "paid-as-approved" ? "" : `: ${verdict.why}`}</span>}
                  </td>
                )}
              </tr>
            )
          })}
        </tbody>
      </table>
      <Total amounts={payouts.map((p) => opened?.get(p.id))} />
      {sent.length === 0 || me.method !== "sep10" ? null : (
        <div className="row">
          <Button variant="secondary" size="md" onClick={() => check.mutate()} isLoading={check.isPending} disabled={addresses.data === undefined}>
            Check against the chain
          </Button>
          {verdicts === undefined ? null : <span role="status">{paidAsApproved} of {sent.length} sent {sent.length === 1 ? "payout" : "payouts"} paid as approved.</span>}
          {check.isError ? <span className="action__error" role="alert">{messageOf(check.error)}</span> : null}
        </div>
      )}
    </>
  )
}

/** The amounts of a batch: locked, opened (with the total), or edited and sealed while a draft. */
export const Amounts = ({ batch, me, payouts, nameOf, amounts }: {
  readonly batch: Batch
  readonly me: Me
  readonly payouts: ReadonlyArray<Payout>
  readonly nameOf: (contractorId: string) => string
  readonly amounts: BatchAmounts
}) => {
  const { sealed, opened, unlocked, reason } = amounts
  const editing = batch.status === "draft" && permissionsOf(me)("batches:write").allowed
  const body = () => {
    if (reason !== undefined) return <p className="muted">{reason}</p>
    if (unlocked === undefined) return <Unlock me={me} />
    if (amounts.sealedError !== null) return <ErrorNote what="load the sealed amounts" error={amounts.sealedError} />
    if (sealed === undefined) return <Loading what="the sealed amounts" />
    if (sealed !== null && opened === undefined) {
      if (amounts.openError === null) return <Loading what="the amounts" />
      const problem = <p role="alert">{openProblem(amounts.openError)}</p>
      // Outdated amounts are sealed again from scratch: the editor starts empty.
      if (!editing || openReason(amounts.openError) !== "VersionOutdated") return problem
      return <>{problem}<Editor batch={batch} payouts={payouts} nameOf={nameOf} opened={undefined} unlocked={unlocked} /></>
    }
    return (
      <>
        {editing
          ? <Editor batch={batch} payouts={payouts} nameOf={nameOf} opened={opened} unlocked={unlocked} />
          : sealed === null
          ? <p className="muted">No amounts were entered for this batch.</p>
          : <ReadOnlyAmounts batch={batch} me={me} payouts={payouts} nameOf={nameOf} opened={opened} unlocked={unlocked} />}
        {sealed === null || sealed.envelope.version !== 2 ? null : <Readers sealed={sealed} me={me} unlocked={unlocked} batch={batch} />}
      </>
    )
  }
  return <Section title="Amounts" id="batch-amounts">{body()}</Section>
}
