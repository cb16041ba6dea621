import { lazy, type ReactNode, Suspense } from "react"
import { Page } from "../components/Page.tsx"
import { Shell } from "../components/Shell.tsx"
import { Loading } from "../components/States.tsx"

const Verify = lazy(() => import("../pages/Verify.tsx").then((m) => ({ default: m.Verify })))

/**
 * The pages anyone may open, signed in or not: `/verify`, where a disclosure recipient makes its key and requests and
 * verifies the bundles it receives (issue 37). The App renders one of these before it looks at the session.
 */
export const publicPage = (path: string): ReactNode | undefined =>
  path === "/verify"
    ? (
      <Shell nav={[]}>
        <Suspense fallback={<Page title="Verify a disclosure"><Loading what="the verifier" /></Page>}>
          <Verify />
        </Suspense>
      </Shell>
    )
    : undefined
