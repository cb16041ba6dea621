import { Button, Notification } from "@stellar/design-system"
import { useState } from "react"
import { messageOf } from "../api/ApiError.ts"
import { Page } from "../components/Page.tsx"
import { useSession } from "../session/Session.tsx"
import type { SignInStep } from "../wallet/SignInStep.ts"

const STEPS: Readonly<Record<SignInStep, string>> = {
  wallet: "Waiting for Freighter to share your account…",
  challenge: "Asking the service for a sign-in challenge…",
  signing: "Approve the sign-in challenge in Freighter…",
  verifying: "Checking the signature…"
}

/**
 * Sign-in with a Stellar wallet (SEP-10 through Freighter). Email sign-in (Privy) is not offered: Privy's login runs
 * in Privy's own frames and scripts, which the console's Content-Security-Policy (no third-party origin) does not load.
 */
export const SignIn = ({ invited }: { readonly invited: boolean }) => {
  const { signIn, ended } = useSession()
  const [step, setStep] = useState<SignInStep | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  // The wallet's module and the typed client are fetched with the page (index.html preloads them) and run on the way
  // to the button, so that a click finds them ready.
  const warm = () => void import("../wallet/Freighter.ts")
  const start = () => {
    setError(undefined)
    setStep("wallet")
    import("../wallet/Freighter.ts")
      .then(({ signInWithFreighter }) => signInWithFreighter(setStep))
      .then(signIn, (e: unknown) => setError(messageOf(e)))
      .finally(() => setStep(undefined))
  }
  return (
    <Page title="Sign in">
      <div className="signin">
        <p className="lead">
          {invited
            ? "You were invited to get paid through this payroll. Sign in with the Stellar wallet you will be paid to, then accept the invite."
            : "Run your organization's payroll controls: prepare and approve batches, pause or cancel them, and read the audit trail. Amounts stay encrypted: this console never sees them."}
        </p>
        {ended === undefined ? null : <Notification variant="warning" title="Signed out">{ended}</Notification>}
        <Button
          variant="primary"
          size="lg"
          onClick={start}
          onPointerEnter={warm}
          onFocus={warm}
          isLoading={step !== undefined}
          disabled={step !== undefined}
        >
          Sign in with Freighter
        </Button>
        <p className="muted" role="status" aria-live="polite">{step === undefined ? "" : STEPS[step]}</p>
        {error === undefined ? null : (
          <div role="alert">
            <Notification variant="error" title="Sign-in failed">{error}</Notification>
          </div>
        )}
        <p className="muted small">
          Freighter is Stellar's browser wallet. Your session lasts one hour and is kept in this tab only.
        </p>
      </div>
    </Page>
  )
}
