import { Options } from "@effect/cli"
import type { Keypair } from "@stellar/stellar-sdk"
import { Console, Effect, Option } from "effect"
import { makeClient } from "../Client.ts"
import { signInWithKeypair } from "../payroll/SignIn.ts"
import { readApiKey, readSecret, saveSession, serviceUrl, storedSession } from "./Config.ts"
import { CliFailure, usage } from "./Failure.ts"

/** The options every command takes. */
export const common = {
  json: Options.boolean("json").pipe(Options.withDescription("Print one JSON document on stdout, for scripts")),
  service: Options.text("service").pipe(
    Options.withDescription("The service's URL (default: PAYROLL_SERVICE_URL, else where you last signed in)"),
    Options.optional
  ),
  secretFile: Options.text("secret-file").pipe(
    Options.withDescription("A file (mode 600) holding the account's secret key S…; default: PAYROLL_SECRET"),
    Options.optional
  ),
  apiKeyFile: Options.text("api-key-file").pipe(
    Options.withDescription("A file (mode 600) holding an API key (cpk_…) for the service's routes, instead of a session"),
    Options.optional
  )
}

export interface Common {
  readonly json: boolean
  readonly service: Option.Option<string>
  readonly secretFile: Option.Option<string>
  readonly apiKeyFile: Option.Option<string>
}

/** Runs a synchronous step whose refusals are CliFailures. */
export const attempt = <A>(f: () => A) =>
  Effect.try({ try: f, catch: (e) => (e instanceof CliFailure ? e : usage(e instanceof Error ? e.message : String(e))) })

export interface Signed {
  readonly baseUrl: string
  readonly token: string
  readonly key: Keypair | undefined
}

/** The service and the account's key given to a command. */
export const configured = (c: Common) =>
  attempt(() => ({ baseUrl: serviceUrl(Option.getOrUndefined(c.service)), key: readSecret(Option.getOrUndefined(c.secretFile)) }))

/** Signs in with the key (SEP-10) and keeps the session (0600). */
export const signIn = (baseUrl: string, key: Keypair) =>
  Effect.map(signInWithKeypair(baseUrl, key), (session) => {
    const stored = { account: key.publicKey(), token: session.token, expiresAt: new Date(session.expiresAt.epochMillis).toISOString() }
    saveSession(baseUrl, stored)
    return stored
  })

/**
 * The session a command runs with: an API key when --api-key-file is given, else the stored session of the account
 * (signed in again with its key when it has expired), else the last one signed in at this service.
 */
export const signedIn = (c: Common) =>
  Effect.gen(function*() {
    const { baseUrl, key } = yield* configured(c)
    const apiKey = yield* attempt(() => readApiKey(Option.getOrUndefined(c.apiKeyFile)))
    if (apiKey !== undefined) return { baseUrl, token: apiKey, key } satisfies Signed
    const stored = storedSession(baseUrl, key?.publicKey())
    if (stored !== undefined) return { baseUrl, token: stored.token, key } satisfies Signed
    if (key === undefined) return yield* usage("not signed in: run payroll login --secret-file <file> (or set PAYROLL_SECRET)")
    return { baseUrl, token: (yield* signIn(baseUrl, key)).token, key } satisfies Signed
  })

/** As `signedIn`, for a command that signs with the wallet. */
export const withKey = (c: Common) =>
  Effect.flatMap(signedIn(c), (s) =>
    s.key === undefined
      ? Effect.fail(usage("this command signs with your wallet: pass --secret-file <file> (mode 600) or set PAYROLL_SECRET"))
      : Effect.succeed({ ...s, key: s.key }))

export const clientOf = (s: Signed) => makeClient(s.baseUrl, s.token, { retryBusy: { times: 5 } })

const jsonReplacer = (_: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value)

/** The command's answer: JSON on stdout with --json, else lines for a person. */
export const emit = (c: Pick<Common, "json">, value: unknown, lines: () => ReadonlyArray<string>) =>
  Console.log(c.json ? JSON.stringify(value, jsonReplacer) : lines().join("\n"))

/** Progress for a person, on stderr (stdout stays the answer); silent with --json. */
export const say = (c: Pick<Common, "json">, line: string) => (c.json ? Effect.void : Console.error(line))
