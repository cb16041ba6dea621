import { Button, Notification } from "@stellar/design-system"
import { useRef } from "react"
import type { Me } from "@confidential-payroll/client/contract"
import { messageOf } from "../api/ApiError.ts"
import { useMe } from "../api/Me.ts"
import { nextWait, type Wait } from "../api/Backoff.ts"
import { useAcceptInvite } from "../api/Portal.ts"
import { Page } from "../components/Page.tsx"
import { StatusBadge } from "../components/StatusBadge.tsx"
import { RegisterStep } from "../confidential/RegisterStep.tsx"
import { Link } from "../router/Router.tsx"
import { useSession } from "../session/Session.tsx"

const NEXT: Readonly<Record<string, string>> = {
  invited: "Your invite is not accepted yet.",
  onboarding:
    "Accepted. Your wallet still has to register with the confidential token; once the ledger has it, you are ready to be paid.",
  ready: "Accepted, and your wallet is registered with the confidential token: you can be paid.",
  inactive: "Your employer has deactivated you in their directory."
}

/**
 * The longest wait between reads of `/me` while the registration can still move: the contractor is on this page
 * waiting for the chain, and one read every 5 s (about a ledger) is cheap.
 */
const MAX_DELAY = 5_000

/** The accepted record's registration as `/me` tells it now (the chain moves it), else as the acceptance answered. */
const registration = (accepted: { readonly id: string; readonly status: string }, me: Me | undefined) =>
  me?.contractor !== undefined && me.contractor.id === accepted.id ? me.contractor.status : accepted.status

/** Registering from this page needs the wallet's own session (SEP-10): an email session has no wallet to sign with. */
const Registering = ({ me }: { readonly me: Me }) => {
  const { session } = useSession()
  if (me.method !== "sep10" || session === undefined) {
    return (
      <p className="muted">
        Registering needs your Stellar wallet: sign in with Freighter to register from this page, or use the payroll's command-line client.
      </p>
    )
  }
  return <RegisterStep account={me.sub} session={session.token} />
}

/**
 * A contractor's invite link (`/app/invites/{token}`): whose it is, accepting it with the signed-in wallet, and then
 * registering that wallet with the confidential token from this page.
 */
export const Invite = ({ token, me }: { readonly token: string; readonly me: Me }) => {
  const accept = useAcceptInvite(token)
  const invite = me.invite !== undefined && me.invite.token === token ? me.invite : undefined
  // Accepted here, or earlier (the link is used, and the contractor it made is still registering).
  const accepted = accept.data ?? (invite === undefined && me.contractor?.status === "onboarding" ? me.contractor : undefined)
  // Once accepted, `/me` is read again while the registration can still move: after a second, the wait doubling
  // up to 5 s while it stays the same.
  const wait = useRef<Wait | undefined>(undefined)
  useMe(token, accepted === undefined ? undefined : (current) => {
    const status = registration(accepted, current)
    if (status !== "invited" && status !== "onboarding") return false
    wait.current = nextWait(wait.current, status, MAX_DELAY)
    return wait.current.delay
  })
  // Once offered here, the registration stays on the page when `/me` turns `ready`: its outcome ("Registered in …",
  // the transaction) is what the contractor just did, and the next read of `/me` may come before they have seen it.
  const offered = useRef(false)
  if (accepted !== undefined) {
    const status = registration(accepted, me)
    if (status === "onboarding") offered.current = true
    return (
      <Page title="Invite accepted">
        <p className="lead">You are in the directory as <strong>{accepted.name}</strong>.</p>
        <div className="row" aria-live="polite">Registration: <StatusBadge status={status} /></div>
        <p>{NEXT[status]}</p>
        {status === "onboarding" || (status === "ready" && offered.current) ? <Registering me={me} /> : null}
        <p><Link to="/payouts">See my payouts</Link></p>
      </Page>
    )
  }
  if (invite === undefined) {
    return (
      <Page title="Invite">
        <p className="state state--empty">
          This invite link cannot be used: it was already used, it expired (after 7 days), or it was never valid. Ask the company that sent it for a new one.
        </p>
        {me.contractor === undefined ? null : <p><Link to="/payouts">See my payouts</Link></p>}
      </Page>
    )
  }
  return (
    <Page title={`${invite.company} invites you`}>
      <p className="lead">
        {invite.company} wants to pay you as a contractor through this payroll, to the wallet you signed in with. Amounts stay encrypted: only you can read them.
      </p>
      <Button variant="primary" size="lg" onClick={() => accept.mutate()} isLoading={accept.isPending}>Accept invite</Button>
      {accept.isError ? <div role="alert"><Notification variant="error" title="Could not accept the invite">{messageOf(accept.error)}</Notification></div> : null}
    </Page>
  )
}
