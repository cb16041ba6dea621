import type { ReactNode } from "react"
import type { Me, Permission } from "@confidential-payroll/client/contract"
import { permissionsOf } from "../api/Me.ts"
import { Page } from "./Page.tsx"

/** A page only some roles may open: opened by another (a bookmark), it says why instead of failing on every call. */
export const Restricted = ({ me, permission, title, children }: {
  readonly me: Me
  readonly permission: Permission
  readonly title: string
  readonly children: ReactNode
}) => {
  const allowed = permissionsOf(me)(permission)
  if (allowed.allowed) return <>{children}</>
  return <Page title={title}><p className="state state--empty">{allowed.reason} Ask an owner or admin of your organization.</p></Page>
}
