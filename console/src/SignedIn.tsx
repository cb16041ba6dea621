import type { Me, Permission } from "@confidential-payroll/client/contract"
import { useMe } from "./api/Me.ts"
import { Page } from "./components/Page.tsx"
import { type NavItem, Shell } from "./components/Shell.tsx"
import { Empty, ErrorNote, Loading } from "./components/States.tsx"
import { ApiKeys } from "./pages/ApiKeys.tsx"
import { Audit } from "./pages/Audit.tsx"
import { BatchDetail } from "./pages/BatchDetail.tsx"
import { Batches } from "./pages/Batches.tsx"
import { Contractors } from "./pages/Contractors.tsx"
import { Exports } from "./pages/Exports.tsx"
import { Home } from "./pages/Home.tsx"
import { Invite } from "./pages/Invite.tsx"
import { Members } from "./pages/Members.tsx"
import { Onboarding } from "./pages/Onboarding.tsx"
import { Payouts } from "./pages/Payouts.tsx"
import { Settings } from "./pages/Settings.tsx"
import { Treasury } from "./pages/Treasury.tsx"
import { AuditorReport } from "./pages/AuditorReport.tsx"
import { EscrowKey } from "./pages/EscrowKey.tsx"
import { WebhookDetail } from "./pages/WebhookDetail.tsx"
import { Webhooks } from "./pages/Webhooks.tsx"
import { Link, match } from "./router/Router.tsx"
import { SealingProvider } from "./sealing/Sealing.tsx"

const NotFound = () => (
  <Page title="Page not found">
    <Empty>There is no page at this address. <Link to="/">Go to the home page</Link></Empty>
  </Page>
)

/** The pages of the console and who sees them in the navigation: `/me`'s permissions, never a copied table. */
const PAGES: ReadonlyArray<NavItem & { readonly needs?: Permission; readonly contractor?: true }> = [
  { to: "/", label: "Home" },
  { to: "/batches", label: "Batches", needs: "batches:read" },
  { to: "/contractors", label: "Contractors", needs: "directory:read" },
  { to: "/treasury", label: "Treasury", needs: "transfers:submit" },
  { to: "/audit", label: "Audit", needs: "audit:read" },
  { to: "/exports", label: "Exports", needs: "audit:read" },
  { to: "/escrow-key", label: "Escrow key", needs: "audit:read" },
  { to: "/auditor-report", label: "Auditor's report", needs: "audit:disclose" },
  { to: "/members", label: "Members", needs: "org:manage" },
  { to: "/api-keys", label: "API keys", needs: "org:manage" },
  { to: "/webhooks", label: "Webhooks", needs: "org:manage" },
  { to: "/settings", label: "Settings" },
  { to: "/payouts", label: "My payouts", contractor: true }
]

const navFor = (me: Me): ReadonlyArray<NavItem> => {
  const employer = me.employer
  const contractor = me.roles.includes("contractor")
  if (employer === undefined) return contractor ? [{ to: "/payouts", label: "My payouts" }] : []
  return PAGES.filter((page) =>
    page.contractor === true ? contractor : page.needs === undefined || employer.permissions.includes(page.needs)
  )
}

const employerPage = (me: Me, path: string) => {
  const batch = match("/batches/:id", path)
  if (batch !== undefined) return <BatchDetail rawId={batch.id!} me={me} />
  const webhook = match("/webhooks/:id", path)
  if (webhook !== undefined) return <WebhookDetail rawId={webhook.id!} me={me} />
  switch (path) {
    case "/": return <Home me={me} />
    case "/batches": return <Batches me={me} />
    case "/contractors": return <Contractors me={me} />
    case "/treasury": return <Treasury me={me} />
    case "/audit": return <Audit me={me} />
    case "/exports": return <Exports me={me} />
    case "/escrow-key": return <EscrowKey me={me} />
    case "/auditor-report": return <AuditorReport me={me} />
    case "/members": return <Members me={me} />
    case "/api-keys": return <ApiKeys me={me} />
    case "/webhooks": return <Webhooks me={me} />
    case "/settings": return <Settings me={me} />
    case "/payouts": return me.roles.includes("contractor") ? <Payouts /> : <NotFound />
    default: return <NotFound />
  }
}

/**
 * After sign-in, `GET /me` decides: an invite link shows the invite; a member of an organization gets the employer
 * app; a contractor only, the contractor portal; anyone else, onboarding (or the invite waiting for them).
 */
const pageFor = (me: Me, path: string) => {
  const invite = match("/invites/:token", path)
  if (invite !== undefined) return <Invite token={invite.token!} me={me} />
  if (me.employer !== undefined) return employerPage(me, path)
  if (me.roles.includes("contractor")) return path === "/" || path === "/payouts" ? <Payouts /> : <NotFound />
  if (me.invite !== undefined) return <Invite token={me.invite.token} me={me} />
  return <Onboarding />
}

/** The signed-in console (loaded beside the sign-in page: it holds the typed client and every page). */
const SignedIn = ({ path }: { readonly path: string }) => {
  const me = useMe(match("/invites/:token", path)?.token)
  if (me.isPending) return <Shell nav={[]}><Page title="Payroll console"><Loading what="your account" /></Page></Shell>
  if (me.isError) {
    return (
      <Shell nav={[]}>
        <Page title="Payroll console">
          <ErrorNote what="load your account" error={me.error}>
            <p><button type="button" className="linkish" onClick={() => void me.refetch()}>Try again</button></p>
          </ErrorNote>
        </Page>
      </Shell>
    )
  }
  return <SealingProvider><Shell me={me.data} nav={navFor(me.data)}>{pageFor(me.data, path)}</Shell></SealingProvider>
}

export default SignedIn
