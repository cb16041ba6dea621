import { useMemo } from "react"
import { useSession } from "../session/Session.tsx"
import { clientFor, type PayrollClient } from "./Client.ts"

/** The typed client acting for the signed-in session. */
export const useClient = (): PayrollClient => {
  const { session } = useSession()
  return useMemo(() => clientFor(session?.token), [session?.token])
}
