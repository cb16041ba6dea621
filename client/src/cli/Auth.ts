import { Command } from "@effect/cli"
import { Effect } from "effect"
import { forgetSessions } from "./Config.ts"
import { usage } from "./Failure.ts"
import { clientOf, common, configured, emit, signedIn, signIn } from "./Shared.ts"

export const login = Command.make("login", common, (c) =>
  Effect.gen(function*() {
    const { baseUrl, key } = yield* configured(c)
    if (key === undefined) return yield* usage("login signs with your wallet: pass --secret-file <file> (mode 600) or set PAYROLL_SECRET")
    const session = yield* signIn(baseUrl, key)
    yield* emit(c, { service: baseUrl, account: session.account, expiresAt: session.expiresAt }, () => [
      `Signed in to ${baseUrl} as ${session.account} until ${session.expiresAt}.`
    ])
  })).pipe(Command.withDescription("Sign in with SEP-10 (the account's secret from --secret-file or PAYROLL_SECRET) and keep the session"))

export const logout = Command.make("logout", common, (c) =>
  Effect.gen(function*() {
    const { baseUrl, key } = yield* configured(c)
    const forgotten = forgetSessions(baseUrl, key?.publicKey())
    yield* emit(c, { service: baseUrl, forgotten }, () => [`Forgot ${forgotten} session${forgotten === 1 ? "" : "s"} of ${baseUrl}.`])
  })).pipe(Command.withDescription("Forget the stored sessions of the service (of one account with --secret-file)"))

export const whoami = Command.make("whoami", common, (c) =>
  Effect.gen(function*() {
    const signed = yield* signedIn(c)
    const me = yield* (yield* clientOf(signed)).account.me({ urlParams: {} })
    yield* emit(c, me, () => [
      `${me.sub} (${me.method})`,
      ...(me.employer === undefined ? [] : [`${me.employer.role} of ${me.employer.orgName} (${me.employer.orgId})`]),
      ...(me.contractor === undefined ? [] : ["a contractor"])
    ])
  })).pipe(Command.withDescription("Who the stored session is (GET /me)"))
