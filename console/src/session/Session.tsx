import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query"
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react"
import { ApiError } from "../api/ApiError.ts"

/** The session token and when it ends; kept in sessionStorage (this tab only, gone with it), never localStorage. */
export interface StoredSession {
  readonly token: string
  readonly expiresAt: number
}

const KEY = "payroll.session"

const load = (): StoredSession | undefined => {
  try {
    const raw = window.sessionStorage.getItem(KEY)
    if (raw === null) return undefined
    const parsed: unknown = JSON.parse(raw)
    if (typeof parsed !== "object" || parsed === null) return undefined
    const { token, expiresAt } = parsed as { readonly token?: unknown; readonly expiresAt?: unknown }
    if (typeof token !== "string" || typeof expiresAt !== "number" || expiresAt <= Date.now()) return undefined
    return { token, expiresAt }
  } catch {
    return undefined
  }
}

interface SessionContext {
  readonly session: StoredSession | undefined
  /** Why the last session ended, when it ended by itself (expired, or refused by the service). */
  readonly ended: string | undefined
  readonly signIn: (session: StoredSession) => void
  readonly signOut: (reason?: string) => void
}

const Context = createContext<SessionContext | undefined>(undefined)

export const useSession = (): SessionContext => {
  const value = useContext(Context)
  if (value === undefined) throw new Error("useSession outside SessionProvider")
  return value
}

/** The session and the query cache (emptied when the session ends); api/useClient.ts gives the client acting for it. */
export const SessionProvider = ({ children }: { readonly children: ReactNode }) => {
  const [session, setSession] = useState(load)
  const [ended, setEnded] = useState<string | undefined>(undefined)
  const signOutRef = useRef<(reason?: string) => void>(() => undefined)
  const [queryClient] = useState(() =>
    new QueryClient({
      queryCache: new QueryCache({
        onError: (error) => {
          if (error instanceof ApiError && error.tag === "Unauthorized") signOutRef.current("The service no longer accepts this session: sign in again.")
        }
      }),
      defaultOptions: {
        queries: {
          retry: (count, error) => count < 2 && error instanceof ApiError && ["RequestError", "ServiceUnavailable"].includes(error.tag),
          refetchOnWindowFocus: false,
          staleTime: 5_000
        }
      }
    })
  )

  const signOut = useCallback((reason?: string) => {
    window.sessionStorage.removeItem(KEY)
    setSession(undefined)
    setEnded(reason)
    queryClient.clear()
  }, [queryClient])
  signOutRef.current = signOut

  const signIn = useCallback((next: StoredSession) => {
    window.sessionStorage.setItem(KEY, JSON.stringify(next))
    queryClient.clear()
    setEnded(undefined)
    setSession(next)
  }, [queryClient])

  useEffect(() => {
    if (session === undefined) return
    const timer = window.setTimeout(
      () => signOut("Your session ended (sessions last one hour): sign in again."),
      Math.max(0, session.expiresAt - Date.now())
    )
    return () => window.clearTimeout(timer)
  }, [session, signOut])

  const value = useMemo(() => ({ session, ended, signIn, signOut }), [session, ended, signIn, signOut])
  return (
    <Context.Provider value={value}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </Context.Provider>
  )
}
