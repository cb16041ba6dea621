// Where `npm run demo` pays: the loopback ledger it starts itself (the default, offline), or a network it did not start
// (network mode: DEMO_FUNDER_SECRET and the settings below). The payroll script (DemoPayroll.ts) sees only this
// interface: the RPC and the token's deployment, how the accounts it needs come to exist, an account's sequence
// number, and how the employer gets the payroll's total into its confidential balance.
import { Keypair, Operation, rpc, StrKey, type Transaction, TransactionBuilder } from "@stellar/stellar-sdk"
import { Console, Effect, type Scope } from "effect"
import { prepareCall, type TokenCall } from "../client/src/confidential/chain/Calls.ts"
import type { TokenDeployment } from "../client/src/confidential/chain/Deployment.ts"
import type { ProvingSetup } from "../client/src/confidential/Circuits.ts"
import { loadCrsDir, openProvingSetup } from "../client/src/confidential/node.ts"
import { BUNDLED_CRS_DIR } from "../client/src/confidential/proving/CrsFiles.ts"
import { deploymentOf, provingSetup } from "../test/support/ConfidentialProving.ts"
import { checkedDeployment } from "./DemoDeployment.ts"
import { DEMO_TOKEN, demoLedger } from "./DemoLedger.ts"
import { type DemoFailure, step } from "./Step.ts"

/** USDC, like the token's underlying asset, has 7 decimals; so has XLM. */
export const UNIT = 10_000_000n
export const amountText = (amount: bigint) => `${amount / UNIT}.${(amount % UNIT).toString().padStart(7, "0")}`

export interface DemoNetwork {
  /** `loopback`: the ledger the demo started; `network`: one it did not start (network mode). */
  readonly kind: "loopback" | "network"
  readonly rpcUrl: string
  readonly networkPassphrase: string
  /** The confidential token and the two registries it calls (the client reads keys from them). */
  readonly deployment: TokenDeployment
  /** The auditor every `register` names (CONFIDENTIAL_AUDITOR_ID on a network; 0 on the loopback). */
  readonly auditorId: number
  /** What the service the demo starts is told about the network (STELLAR_RPC_URL, CRS_DIR, …). */
  readonly serviceEnv: Readonly<Record<string, string>>
  /** The client's prover: the circuits the project pins, bb.js, and the CRS this network accepts. */
  readonly provingSetup: Effect.Effect<ProvingSetup, unknown, Scope.Scope>
  readonly provingTitle: string
  /** What each of the five contractors is paid, in the token's units; undefined keeps the demo's own amounts. */
  readonly amounts: ReadonlyArray<bigint> | undefined
  /**
   * How much XLM each account the demo needs starts with. The service's faucet account (FAUCET_SECRET), which the demo
   * never asks for anything, is created on the loopback only, as it always was.
   */
  readonly startingBalances: {
    readonly employer: bigint
    readonly sponsor: bigint
    readonly contractor: bigint
    readonly faucet: bigint | undefined
  }
  /** Makes the accounts exist with their starting balances. */
  readonly createAccounts: (accounts: ReadonlyArray<DemoAccount>) => Effect.Effect<void, DemoFailure>
  /** The account's current sequence number, to build its next transaction on. */
  readonly sequence: (account: string) => Effect.Effect<string>
  /** Puts `amount` of the underlying asset into the registered employer's confidential balance (receiving, to merge). */
  readonly fundEmployer: (employer: Keypair, amount: bigint) => Effect.Effect<void>
  /** How the employer's funding reads in the demo's step title. */
  readonly fundingTitle: (amount: string) => string
}

export interface DemoAccount {
  readonly role: string
  readonly account: string
  readonly startingBalance: bigint
}

export const rpcServer = (url: string) => new rpc.Server(url, { allowHttp: url.startsWith("http:") })

/** Sends a signed transaction through Stellar RPC and waits until it is final; throws unless it succeeded. */
export const submit = async (server: rpc.Server, tx: Transaction, what: string, poll: { attempts: number; everyMs: number }) => {
  const sent = await server.sendTransaction(tx)
  if (sent.status !== "PENDING") {
    const code = sent.errorResult === undefined ? "" : ` (${resultCodes(sent.errorResult)})`
    throw new Error(`${what}: sendTransaction answered ${sent.status}${code}`)
  }
  const final = await server.pollTransaction(sent.hash, { attempts: poll.attempts, sleepStrategy: () => poll.everyMs })
  if (final.status !== rpc.Api.GetTransactionStatus.SUCCESS) {
    const code = final.status === rpc.Api.GetTransactionStatus.FAILED ? ` (${resultCodes(final.resultXdr)})` : ""
    throw new Error(`${what}: transaction ${sent.hash} ended ${final.status}${code}`)
  }
  return { hash: sent.hash, ledger: final.ledger }
}

/** A TransactionResult's code, with its operations' codes when it failed. */
const resultCodes = (result: rpc.Api.GetFailedTransactionResponse["resultXdr"]): string => {
  const r = result.result
  const inner = r.type === "txFeeBumpInnerFailed" ? r.innerResultPair.result.result : r
  if (inner.type !== "txFailed") return inner.type
  const ops = inner.results.map((op) => (op.type === "opInner" ? `${op.tr.type}: ${opCode(op.tr)}` : op.type))
  return `${inner.type}: ${ops.join(", ")}`
}
/** An operation's own result code: the `<operation>Result` arm of OperationResultTr (`createAccountResult`, …). */
const opCode = (tr: { readonly type: string }): string =>
  (tr as unknown as Record<string, { readonly type?: string } | undefined>)[`${tr.type}Result`]?.type ?? tr.type

/** A promise's failure as an Error, so a step names its message. */
const attempt = <A>(run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (e) => (e instanceof Error ? e : new Error(String(e))) })

// ---- the loopback (the default) ----

/**
 * The loopback ledger the demo starts (DemoLedger.ts: a standalone network, the token verifying proofs with bb.js),
 * and its powers: accounts set on it directly, the employer's underlying asset minted, which it then deposits itself.
 */
export const loopbackNetwork = (ledgerMs: number) =>
  Effect.gen(function*() {
    const ledger = yield* step(
      `Starting the loopback Stellar ledger (a ledger every ${ledgerMs / 1000} s, the confidential token at ${DEMO_TOKEN} verifying proofs with bb.js)`,
      demoLedger(ledgerMs)
    )
    const token = ledger.deployConfidentialToken(DEMO_TOKEN)
    const deployment = deploymentOf(token, ledger.networkPassphrase)
    const network: DemoNetwork = {
      kind: "loopback",
      rpcUrl: ledger.url,
      networkPassphrase: ledger.networkPassphrase,
      deployment,
      auditorId: 0,
      serviceEnv: {
        STELLAR_RPC_URL: ledger.url,
        FRIENDBOT_URL: ledger.url,
        NETWORK_PASSPHRASE: ledger.networkPassphrase,
        CONFIDENTIAL_TOKEN_CONTRACT: DEMO_TOKEN
      },
      provingSetup,
      provingTitle: "Loading the prover (OZ's circuits at 8af46e2c, bb.js, Aztec Ignition's CRS)",
      amounts: undefined,
      startingBalances: { employer: 10_000n * UNIT, sponsor: 10_000n * UNIT, contractor: 0n, faucet: 10_000n * UNIT },
      createAccounts: (accounts) =>
        Effect.sync(() => {
          for (const a of accounts) ledger.setAccount({ id: a.account, balance: a.startingBalance })
        }),
      sequence: (account) => Effect.sync(() => (ledger.account(account)?.sequence ?? 0n).toString()),
      fundEmployer: (employer, amount) =>
        Effect.gen(function*() {
          token.mintUnderlying(employer.publicKey(), amount)
          yield* sendCall(network, employer, { fn: "deposit", from: employer.publicKey(), to: employer.publicKey(), amount })
        }),
      fundingTitle: (amount) => `depositing ${amount} USDC and merging it`
    }
    return network
  })

// ---- a network the demo did not start (network mode) ----

/**
 * What network mode needs besides DEMO_FUNDER_SECRET, each checked before anything starts. The token names its
 * registries (its instance storage), so CONFIDENTIAL_AUDITOR_CONTRACT and CONFIDENTIAL_VERIFIER_CONTRACT are optional
 * (checked against the token when set), as are CONFIDENTIAL_AUDITOR_ID (default 0) and CRS_DIR (default: the CRS the
 * tree carries).
 */
const REQUIRED = ["STELLAR_RPC_URL", "NETWORK_PASSPHRASE", "CONFIDENTIAL_TOKEN_CONTRACT"] as const
const REGISTRIES = ["CONFIDENTIAL_AUDITOR_CONTRACT", "CONFIDENTIAL_VERIFIER_CONTRACT"] as const

export interface NetworkSettings {
  readonly funder: Keypair
  readonly rpcUrl: string
  readonly networkPassphrase: string
  readonly token: string
  /** CONFIDENTIAL_AUDITOR_CONTRACT and CONFIDENTIAL_VERIFIER_CONTRACT, when set: what the token must name. */
  readonly registries: { readonly auditorRegistry?: string; readonly verifierRegistry?: string }
  readonly auditorId: number
  readonly crsDir: string
}

const U32 = /^\d{1,10}$/

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/**
 * The demo's mode from the environment: the loopback unless DEMO_FUNDER_SECRET is set; then network mode, which needs
 * every setting of REQUIRED, or the one line saying what is missing or wrong (never a secret's value).
 */
export const demoMode = (env: NodeJS.ProcessEnv):
  | { readonly mode: "loopback" }
  | { readonly mode: "network"; readonly settings: NetworkSettings }
  | { readonly mode: "refused"; readonly line: string } => {
  const value = (name: string) => (env[name] ?? "").trim()
  if (value("DEMO_FUNDER_SECRET") === "") return { mode: "loopback" }
  const missing = REQUIRED.filter((name) => value(name) === "")
  const wrong = [
    ...(StrKey.isValidEd25519SecretSeed(value("DEMO_FUNDER_SECRET")) ? [] : ["DEMO_FUNDER_SECRET is not a Stellar secret seed (S...)"]),
    ...(value("STELLAR_RPC_URL") === "" || isHttpUrl(value("STELLAR_RPC_URL")) ? [] : ["STELLAR_RPC_URL is not an http(s) URL"]),
    ...(["CONFIDENTIAL_TOKEN_CONTRACT", ...REGISTRIES] as const)
      .filter((name) => value(name) !== "" && !StrKey.isValidContract(value(name)))
      .map((name) => `${name} is not a contract address (C...)`),
    ...(value("CONFIDENTIAL_AUDITOR_ID") === "" || (U32.test(value("CONFIDENTIAL_AUDITOR_ID")) && Number(value("CONFIDENTIAL_AUDITOR_ID")) <= 0xffffffff)
      ? []
      : ["CONFIDENTIAL_AUDITOR_ID is not an auditor id (a u32)"])
  ]
  if (missing.length > 0 || wrong.length > 0) {
    const parts = [...(missing.length > 0 ? [`set ${missing.join(", ")}`] : []), ...wrong]
    return {
      mode: "refused",
      line: `✗ npm run demo on a network (DEMO_FUNDER_SECRET is set): ${parts.join("; ")} (README.md, "The demo on a network")`
    }
  }
  const set = (name: string) => (value(name) === "" ? undefined : value(name))
  const auditorRegistry = set("CONFIDENTIAL_AUDITOR_CONTRACT")
  const verifierRegistry = set("CONFIDENTIAL_VERIFIER_CONTRACT")
  return {
    mode: "network",
    settings: {
      funder: Keypair.fromSecret(value("DEMO_FUNDER_SECRET")),
      rpcUrl: value("STELLAR_RPC_URL"),
      networkPassphrase: value("NETWORK_PASSPHRASE"),
      token: value("CONFIDENTIAL_TOKEN_CONTRACT"),
      registries: { ...(auditorRegistry === undefined ? {} : { auditorRegistry }), ...(verifierRegistry === undefined ? {} : { verifierRegistry }) },
      auditorId: Number(set("CONFIDENTIAL_AUDITOR_ID") ?? "0"),
      crsDir: set("CRS_DIR") ?? BUNDLED_CRS_DIR
    }
  }
}

/** Testnet's and the public network's base reserve (0.5 XLM): an account keeps (2 + its subentries) of them. */
const BASE_RESERVE = 5_000_000n
/** stroops per operation of the funder's classic transaction: ten times the minimum, so surge pricing still takes it. */
const CLASSIC_FEE = 1_000
/** A real network closes a ledger every ~5 s: wait up to two minutes for a transaction, asking every second. */
const NETWORK_POLL = { attempts: 120, everyMs: 1_000 }

/**
 * A network the demo did not start: testnet, or any Stellar RPC with OpenZeppelin's confidential token deployed.
 * The funder (DEMO_FUNDER_SECRET: XLM and the token's underlying asset) creates the demo's accounts in one classic
 * transaction and deposits the payroll's total straight into the employer's confidential balance; amounts stay small.
 */
export const externalNetwork = (settings: NetworkSettings) =>
  Effect.gen(function*() {
    const { funder, rpcUrl, networkPassphrase, auditorId, crsDir } = settings
    const server = rpcServer(rpcUrl)
    // everything checked before the funder spends anything: the network, the funder, the CRS (the service and the
    // prover would refuse another than Ignition's only later)
    const latest = yield* step(
      `Using the Stellar network at ${rpcUrl} ("${networkPassphrase}"): the demo starts no ledger of its own`,
      attempt(async () => {
        const network = await server.getNetwork()
        if (network.passphrase !== networkPassphrase) {
          throw new Error(`the RPC serves "${network.passphrase}", not NETWORK_PASSPHRASE "${networkPassphrase}"`)
        }
        const funderAccount = await server.getAccount(funder.publicKey()).catch(() => undefined)
        if (funderAccount === undefined) throw new Error(`the funder ${funder.publicKey()} (DEMO_FUNDER_SECRET) has no account on this network`)
        return (await server.getLatestLedger()).sequence
      }).pipe(Effect.zipLeft(loadCrsDir(crsDir)))
    )
    const deployment = yield* step(
      `Reading the token ${settings.token}'s deployment from its instance storage, and auditor ${auditorId}'s key (CONFIDENTIAL_AUDITOR_ID)`,
      attempt(() => checkedDeployment(server, settings))
    )
    // 1.0000000, 1.1000000, … USDC: small enough for a funder a faucet filled
    const amounts = [0n, 1n, 2n, 3n, 4n].map((i) => UNIT + i * (UNIT / 10n))
    yield* Console.log([
      `  the token ${deployment.contract}, its auditor registry ${deployment.auditorRegistry}, its verifier registry ${deployment.verifierRegistry}, its asset ${deployment.underlyingAsset}`,
      `  the funder ${funder.publicKey()}; the latest ledger ${latest}, where the service's archive starts (EVENTS_START_LEDGER)`,
      `  the payouts, kept small on a real network: ${amounts.map(amountText).join(", ")} USDC (${amountText(amounts.reduce((a, b) => a + b, 0n))} in all)`
    ].join("\n"))
    const network: DemoNetwork = {
      kind: "network",
      rpcUrl,
      networkPassphrase,
      deployment,
      auditorId,
      serviceEnv: {
        STELLAR_RPC_URL: rpcUrl,
        NETWORK_PASSPHRASE: networkPassphrase,
        CONFIDENTIAL_TOKEN_CONTRACT: deployment.contract,
        CONFIDENTIAL_AUDITOR_ID: String(auditorId),
        CRS_DIR: crsDir,
        EVENTS_START_LEDGER: String(latest)
      },
      provingSetup: openProvingSetup({ crsDir }),
      provingTitle: `Loading the prover (OZ's circuits at 8af46e2c, bb.js, the CRS in ${crsDir})`,
      amounts,
      // the employer pays its own register and merge; the sponsor (the service's SPONSOR_SECRET) every fee-bump;
      // a contractor needs only the minimum balance (two base reserves), as the service sponsors their register
      startingBalances: { employer: 10n * UNIT, sponsor: 100n * UNIT, contractor: UNIT, faucet: undefined },
      createAccounts: (accounts) =>
        step(
          `Creating the demo's ${accounts.length} accounts in one transaction of the funder's (createAccount × ${accounts.length})`,
          Effect.gen(function*() {
            const { hash, ledger } = yield* attempt(async () => {
              const entry = await server.getAccountEntry(funder.publicKey())
              const needed = accounts.reduce((sum, a) => sum + a.startingBalance, 0n) + BigInt(CLASSIC_FEE * accounts.length)
              const reserve = BigInt(2 + entry.numSubEntries) * BASE_RESERVE
              if (entry.balance - reserve < needed) {
                throw new Error(
                  `the funder ${funder.publicKey()} holds ${amountText(entry.balance)} XLM: the accounts need ${amountText(needed)} XLM ` +
                    `beyond its own reserve of ${amountText(reserve)} (on testnet, friendbot funds it)`
                )
              }
              const builder = new TransactionBuilder(await server.getAccount(funder.publicKey()), { fee: String(CLASSIC_FEE), networkPassphrase })
              for (const a of accounts) {
                builder.addOperation(Operation.createAccount({ destination: a.account, startingBalance: amountText(a.startingBalance) }))
              }
              const tx = builder.setTimeout(300).build()
              tx.sign(funder)
              return submit(server, tx, "creating the accounts", NETWORK_POLL)
            })
            for (const a of accounts) yield* Console.log(`  ${a.role.padEnd(18)} ${a.account}  ${amountText(a.startingBalance).padStart(13)} XLM`)
            yield* Console.log(`  created by the funder's transaction ${hash} in ledger ${ledger}`)
          })
        ).pipe(Effect.asVoid),
      sequence: (account) => Effect.promise(async () => (await server.getAccount(account)).sequenceNumber()),
      fundEmployer: (employer, amount) =>
        Effect.promise(async () => {
          const sequence = (await server.getAccount(funder.publicKey())).sequenceNumber()
          const call = { fn: "deposit", from: funder.publicKey(), to: employer.publicKey(), amount } as const
          const tx = await prepareCall(server, deployment, { account: funder.publicKey(), sequence }, call).catch((e: unknown) => {
            const why = e instanceof Error ? e.message : String(e)
            throw new Error(`the funder's deposit of ${amountText(amount)} of the token's underlying asset was refused in simulation: ${why}`)
          })
          tx.sign(funder)
          return submit(server, tx, "the funder's deposit", NETWORK_POLL)
        }).pipe(Effect.asVoid),
      fundingTitle: (amount) => `the funder depositing ${amount} USDC into its confidential balance, and merging it`
    }
    return network
  })

// ---- token calls a wallet signs ----

/** A token call built by simulation, signed by `key` (as a wallet would), for the caller to send or hand on. */
export const signedCall = (network: DemoNetwork, key: Keypair, call: TokenCall) =>
  Effect.flatMap(network.sequence(key.publicKey()), (sequence) =>
    Effect.promise(async () => {
      const tx = await prepareCall(rpcServer(network.rpcUrl), network.deployment, { account: key.publicKey(), sequence }, call)
      tx.sign(key)
      return tx
    }))

/** Sends a signed call through Stellar RPC, paying its own fee, and waits until it is final. */
export const sendCall = (network: DemoNetwork, key: Keypair, call: TokenCall) =>
  Effect.flatMap(signedCall(network, key, call), (tx) =>
    Effect.promise(() => submit(rpcServer(network.rpcUrl), tx, call.fn, { attempts: 600, everyMs: 100 })))
