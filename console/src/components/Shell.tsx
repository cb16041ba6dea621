import { Button } from "@stellar/design-system"
import type { ReactNode } from "react"
import type { Me } from "@confidential-payroll/client/contract"
import { Link, useLocation } from "../router/Router.tsx"
import { useSession } from "../session/Session.tsx"

export interface NavItem {
  readonly to: string
  readonly label: string
}

const short = (sub: string) => (sub.length > 14 ? `${sub.slice(0, 4)}…${sub.slice(-4)}` : sub)

/** The frame of every page: a skip link, the header (who, where, sign out), the navigation, and the page itself. */
export const Shell = ({ me, nav, children }: { readonly me?: Me | undefined; readonly nav: ReadonlyArray<NavItem>; readonly children: ReactNode }) => {
  const { session, signOut } = useSession()
  const { path } = useLocation()
  const active = (to: string) => (to === "/" ? path === "/" : path === to || path.startsWith(`${to}/`))
  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header className="header">
        <Link to="/" className="brand">Payroll console</Link>
        {me === undefined ? null : (
          <div className="who">
            {me.employer === undefined ? null : <span>{me.employer.orgName} · <strong>{me.employer.role}</strong> ·</span>}
            <code title={me.sub}>{short(me.sub)}</code>
          </div>
        )}
        {session === undefined ? null : <Button variant="tertiary" size="sm" onClick={() => signOut()}>Sign out</Button>}
      </header>
      {nav.length === 0 ? null : (
        <nav className="nav" aria-label="Console">
          <ul>
            {nav.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={active(item.to) ? "page" : undefined}>{item.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" className="main">{children}</main>
    </div>
  )
}
