import { Duration, Effect, Either, Schedule } from "effect"
import type { PayoutId } from "../../src/Domain/Ids.ts"
import { StellarAddress } from "../../src/Domain/Stellar.ts"
import { PrepareTransferRequest, type PreparedTransfer, TransferRequest } from "../../src/Domain/Transfer.ts"
import { type BusyRetry, makeClient, type RetryBusy } from "./Client.ts"

/** One transfer of a payroll that the service prepares and the caller's signer signs when its turn comes. */
export interface PayrollTransfer {
  readonly to: string
  /** The call's `data` (base64): the `TransferData` the employer's client built, encrypted amounts and proof. */
  readonly data: string
  readonly payoutId?: PayoutId
}

/**
 * Signs a prepared transfer and answers the signed envelope (base64 XDR), e.g. with stock stellar-sdk:
 * `(p) => { const tx = TransactionBuilder.fromXDR(p.xdr, p.networkPassphrase); tx.sign(keypair); return tx.toXDR() }`.
 * It may be asynchronous (a hardware wallet, a signing service).
 */
export type PayrollSigner = (prepared: PreparedTransfer) => string | Promise<string>

/** What became of one transfer, in the caller's order. */
export interface SignedResult {
  readonly i: number
  readonly hash: string
  readonly status: "SUCCESS" | "FAILED" | "REFUSED" | "ERROR"
  readonly error?: string | undefined
}

export interface SigningProgress {
  readonly items: number
  readonly itemsDone: number
  readonly retrying?: BusyRetry
}

export interface SigningOptions {
  readonly sign: PayrollSigner
  readonly onProgress?: (progress: SigningProgress) => void
  /** How often a transfer answered 502 or 504 with a hash is looked up until it is final (default 1 s). */
  readonly pollEvery?: Duration.DurationInput
  /** Each prepared transaction's validity in seconds (30 to 600; default the service's, 300). */
  readonly validFor?: number
  /** How answers 503 and 429 are retried (default: 20 times each, honouring `Retry-After` up to 60 s). */
  readonly retry?: Omit<RetryBusy, "onRetry">
  /** How many times one transfer is prepared again after it provably did not land (default 3). */
  readonly attempts?: number
}

/** The transfer provably never landed and cannot any more: a new one may be prepared for the same payment. */
const NEVER_LANDED = new Set(["txBadSeq", "txTooLate", "txTooEarly"])
/** A 502 without a hash: nothing was recorded (e.g. the account could not be read); the same call is tried again. */
const transient = Schedule.exponential("500 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")), Schedule.intersect(Schedule.recurs(10)))

type Outcome =
  | { readonly _tag: "Done"; readonly result: Omit<SignedResult, "i"> }
  /** Not on the ledger and never will be: prepare anew. */
  | { readonly _tag: "Again"; readonly why: string }

const done = (result: Omit<SignedResult, "i">): Outcome => ({ _tag: "Done", result })

/**
 * A payroll from the signed-in wallet, signed just in time: each transfer is prepared by the service (POST
 * /transfers/prepare), signed by `sign`, submitted (POST /transfer) and followed to the ledger before the next is
 * prepared, since an account lands one transaction per ledger. Nothing is signed ahead, so a payroll of any length
 * never outlives its time bounds.
 *
 * Never lost, never paid twice: 503 and 429 are retried after their `Retry-After`; a transfer answered 502 or 504 with
 * a hash was recorded and is followed (GET /transfers/{hash}) until final; only one the ledger provably never took
 * (rejected `txBadSeq` or `txTooLate`, or `EXPIRED`) is prepared again, at most `attempts` times. A refusal (the host
 * or the sponsor) is that transfer's result and the payroll goes on; so is a signer that throws.
 */
export const runSignedPayroll = (
  baseUrl: string,
  token: string,
  transfers: ReadonlyArray<PayrollTransfer>,
  options: SigningOptions
) =>
  Effect.gen(function*() {
    let itemsDone = 0
    const report = (retrying?: BusyRetry) =>
      options.onProgress?.({ items: transfers.length, itemsDone, ...(retrying === undefined ? {} : { retrying }) })
    const client = yield* makeClient(baseUrl, token, { retryBusy: { ...options.retry, onRetry: report } })
    const pollEvery = Duration.decode(options.pollEvery ?? Duration.seconds(1))

    /** Looks the transfer up until it is final. */
    const follow = (hash: string) =>
      client.transfers.status({ path: { hash } }).pipe(
        Effect.repeat({ schedule: Schedule.spaced(pollEvery), while: (s) => s.status === "PENDING" }),
        Effect.flatMap(() => client.transfers.status({ path: { hash } })),
        Effect.map((s): Outcome => {
          switch (s.status) {
            case "SUCCESS":
              return done({ hash: s.hash, status: "SUCCESS" })
            case "EXPIRED":
              return { _tag: "Again", why: `${s.hash} expired` }
            default:
              return s.resultCode !== undefined && NEVER_LANDED.has(s.resultCode) && s.status === "REJECTED"
                ? { _tag: "Again", why: `${s.hash} was rejected (${s.resultCode})` }
                : done({ hash: s.hash, status: "FAILED", error: `${s.status} (${s.resultCode ?? "unknown"})` })
          }
        })
      )

    const submit = (signedXDR: string, payoutId: PayoutId | undefined, fallbackHash: string) =>
      client.transfers.transfer({ payload: TransferRequest.make({ signedXDR, ...(payoutId === undefined ? {} : { payoutId }) }) }).pipe(
        Effect.map((r): Outcome => done({ hash: r.hash, status: "SUCCESS" })),
        Effect.catchTags({
          // Rejected at submission or failed on the ledger: its status tells which (only the first may go again).
          TransferRejected: (e) =>
            NEVER_LANDED.has(e.resultCode)
              ? follow(e.hash)
              : Effect.succeed(done({ hash: e.hash, status: "FAILED", error: `${e.error} (${e.resultCode})` })),
          TransferTimeout: (e) => follow(e.hash),
          UpstreamUnavailable: (e) => e.hash === undefined ? Effect.fail(e) : follow(e.hash)
        }),
        Effect.retry({ schedule: transient, while: (e) => e._tag === "UpstreamUnavailable" }),
        Effect.catchTags({
          SponsorRefused: (e) => Effect.succeed(done({ hash: fallbackHash, status: "REFUSED", error: `${e.error} (${e.rule})` })),
          Forbidden: (e) => Effect.succeed(done({ hash: fallbackHash, status: "REFUSED", error: e.error })),
          NotFound: (e) => Effect.succeed(done({ hash: fallbackHash, status: "REFUSED", error: e.error })),
          Conflict: (e) => Effect.succeed(done({ hash: fallbackHash, status: "REFUSED", error: e.error })),
          InvalidRequest: (e) => Effect.succeed(done({ hash: fallbackHash, status: "REFUSED", error: e.error }))
        })
      )

    /** A transfer that could not be prepared: its result, the payroll going on. */
    const ended = (status: SignedResult["status"], error: string) => Effect.succeed(Either.left({ status, error }))

    /** One transfer: prepared, signed and submitted, prepared again while it provably did not land. */
    const pay = (transfer: PayrollTransfer, i: number) =>
      Effect.gen(function*() {
        const attempts = options.attempts ?? 3
        let why = ""
        for (let attempt = 0; attempt < attempts; attempt++) {
          const prepared = yield* client.transfers.prepare({
            payload: PrepareTransferRequest.make({
              to: StellarAddress.make(transfer.to),
              data: transfer.data,
              // An organization that requires approvals prepares only transfers that name their payout (403 otherwise).
              ...(transfer.payoutId === undefined ? {} : { payoutId: transfer.payoutId }),
              ...(options.validFor === undefined ? {} : { validFor: options.validFor })
            })
          }).pipe(
            Effect.retry({ schedule: transient, while: (e) => e._tag === "UpstreamUnavailable" }),
            Effect.map(Either.right),
            Effect.catchTags({
              SimulationRefused: (e) => ended("REFUSED", `${e.error}: ${e.hostError}`),
              SponsorRefused: (e) => ended("REFUSED", `${e.error} (${e.rule})`),
              Forbidden: (e) => ended("REFUSED", e.error),
              NotImplemented: (e) => ended("REFUSED", e.error),
              InvalidRequest: (e) => ended("REFUSED", e.error),
              UpstreamUnavailable: (e) => ended("ERROR", e.error)
            })
          )
          if (Either.isLeft(prepared)) return { i, hash: "", ...prepared.left } satisfies SignedResult
          const signed = yield* Effect.tryPromise(async () => options.sign(prepared.right)).pipe(Effect.either)
          if (Either.isLeft(signed)) {
            const cause = signed.left.cause
            return { i, hash: prepared.right.hash, status: "ERROR", error: `the signer failed: ${cause instanceof Error ? cause.message : String(cause)}` } satisfies SignedResult
          }
          const outcome = yield* submit(signed.right, transfer.payoutId, prepared.right.hash)
          if (outcome._tag === "Done") return { i, ...outcome.result } satisfies SignedResult
          why = outcome.why
        }
        return { i, hash: "", status: "ERROR", error: `not landed after ${attempts} attempts: ${why}` } satisfies SignedResult
      }).pipe(Effect.tap(() => Effect.sync(() => {
        itemsDone += 1
        report()
      })))

    report()
    return yield* Effect.forEach(transfers, pay)
  }).pipe(Effect.withSpan("PayrollClient.runSignedPayroll"))
