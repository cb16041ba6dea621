import { lazy, Suspense } from "react"
import { Page } from "./components/Page.tsx"
import { Shell } from "./components/Shell.tsx"
import { Loading } from "./components/States.tsx"
import { SignIn } from "./pages/SignIn.tsx"
import { publicPage } from "./router/PublicRoutes.tsx"
import { match, useLocation } from "./router/Router.tsx"
import { useSession } from "./session/Session.tsx"

/** Everything past sign-in: the typed client (Effect and the contract) and the pages, in a chunk of their own. */
export const loadSignedIn = () => import("./SignedIn.tsx")

const SignedIn = lazy(loadSignedIn)

export const App = () => {
  const { session } = useSession()
  const { path } = useLocation()
  // A page anyone may open, signed in or not (a disclosure recipient has no account here).
  const open = publicPage(path)
  if (open !== undefined) return open
  if (session === undefined) return <Shell nav={[]}><SignIn invited={match("/invites/:token", path) !== undefined} /></Shell>
  return (
    <Suspense fallback={<Shell nav={[]}><Page title="Payroll console"><Loading what="the console" /></Page></Shell>}>
      <SignedIn path={path} />
    </Suspense>
  )
}
