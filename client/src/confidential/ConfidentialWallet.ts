// One account's confidential wallet (OpenZeppelin SDK.md §10): its keys, its openings kept sealed in a store the
// caller chooses, and the operations that prove — each checks the deployment's verification key and the openings
// against the chain before proving, and a spend is persisted as pending before its transaction exists.
import { Effect, Either } from "effect"
import type { ChainReader, OnChainAccount } from "./chain/ChainReader.ts"
import { encodeData } from "./chain/Calls.ts"
import { fromChain } from "./chain/FromChain.ts"
import { makeKeyCheck, type ProvingSetup } from "./Circuits.ts"
import { fieldFromBytes } from "./crypto/Field.ts"
import { commit, pointFromBytes, pointToBytes } from "./crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "./crypto/Keys.ts"
import { decryptBalance, decryptTransfer } from "./crypto/Decrypt.ts"
import { deriveEphemeralScalar } from "./crypto/EphemeralScalar.ts"
import { deriveSpendR } from "./crypto/Primitives.ts"
import { type RandomSource, sampleScalar, secureRandom } from "./crypto/Scalar.ts"
import { ProofFailed, StateMismatch } from "./Errors.ts"
import type { Proof } from "./proving/Prover.ts"
import { checkConsistency, type Commit } from "./state/Consistency.ts"
import { emptyState, Opening, type WalletState } from "./state/Opening.ts"
import { applyEvents, type Decryptor, type ReplayEvent } from "./state/Replay.ts"
import { makeSealer } from "./state/SealedState.ts"
import type { WalletStore } from "./state/Store.ts"
import { persistPending, spendBase, walletStateStore, type WalletStateStore } from "./state/Wallet.ts"
import { registerWitness } from "./witness/Register.ts"
import { transferWitness } from "./witness/Transfer.ts"
import { withdrawWitness } from "./witness/Withdraw.ts"

const commitBytes: Commit = (value, blinding) => pointToBytes(commit(value, blinding))

/** The holder's side of every ciphertext, for replay (state/Replay.ts). */
const decryptorOf = (keys: ConfidentialKeys): Decryptor => ({
  transferIn: (c) => decryptTransfer(keys, { ephemeralKey: pointFromBytes(c.rE), vTilde: fieldFromBytes(c.vTilde), sigma: fieldFromBytes(c.sigma) }),
  balance: (bTilde, sigma) => decryptBalance(keys, fieldFromBytes(bTilde), fieldFromBytes(sigma)),
  spendBlinding: (sigma) => deriveSpendR(keys.vk, fieldFromBytes(sigma))
})

/** The proof's public inputs must be the witness's, in storage.rs's order: what the contract will assemble. */
const sameInputs = (circuit: string, proof: Proof, expected: Uint8Array) =>
  proof.publicInputs.length === expected.length && proof.publicInputs.every((b, i) => b === expected[i])
    ? Effect.succeed(proof)
    : Effect.fail(new ProofFailed({ circuit, message: `the ${circuit} proof's public inputs are not the ones the contract assembles` }))

export interface WalletOptions {
  readonly keys: ConfidentialKeys
  /** The account (G...) the keys belong to, and whose transactions the wallet's signer signs. */
  readonly account: string
  readonly reader: ChainReader
  readonly setup: ProvingSetup
  readonly store: WalletStore
  readonly random?: RandomSource
}

export interface Balances {
  readonly spendable: bigint
  readonly receiving: bigint
}

export const openWallet = (options: WalletOptions) =>
  Effect.gen(function*() {
    const { keys, account, reader, setup } = options
    const contract = reader.deployment.contract
    const stored: WalletStateStore = walletStateStore(options.store, yield* Effect.promise(() => makeSealer(keys.sk, account, contract)))
    let state: WalletState = (yield* Effect.promise(() => stored.load())) ?? emptyState(account, contract)
    const checkKey = makeKeyCheck(setup, reader)
    const decryptor = decryptorOf(keys)
    const save = (next: WalletState) => Effect.promise(() => stored.save(next)).pipe(Effect.tap(() => { state = next }))
    const onChain = (address: string) =>
      Effect.flatMap(fromChain(`the account ${address}`, () => reader.account(address)), (found) =>
        found === undefined
          ? Effect.fail(new StateMismatch({ accumulator: "spendable", message: `${address} is not registered with the token` }))
          : Effect.succeed(found))
    const prove = (circuit: "register" | "transfer" | "withdraw", inputs: Record<string, string>, expected: Uint8Array) =>
      Effect.gen(function*() {
        yield* checkKey(circuit)
        return yield* Effect.flatMap(setup.prover.prove(setup.circuits[circuit], inputs), (p) => sameInputs(circuit, p, expected))
      })
    /** The spendable opening to prove on, reconciled with the chain (state/Wallet.ts's rules). */
    const base = (chain: OnChainAccount) =>
      Effect.flatMap(fromChain("the latest ledger", () => reader.server.getLatestLedger()), (latest) =>
        Either.match(spendBase(state, { commitment: chain.spendableCommitment, ledger: latest.sequence }, commitBytes), {
          onLeft: (e) => Effect.fail(e),
          onRight: (b) => Effect.succeed(b)
        }))

    const wallet = {
      account,
      keys,
      get state() {
        return state
      },
      /** `register`'s data: the proof that Y and PVK are this account's keys (circuits/register). */
      proveRegister: () =>
        Effect.gen(function*() {
          const witness = registerWitness(keys)
          const proof = yield* prove("register", witness.inputs, witness.publicInputs)
          return encodeData({ ...witness.payload }, proof.proof)
        }),
      /**
       * Rebuilds the openings from the account's events alone, from `start` (default: its registration), dropping
       * every pending spend: what to do after a StateMismatch, or when the local state is lost.
       */
      rebuild: (events: ReadonlyArray<ReplayEvent>, start: WalletState = emptyState(account, contract)) =>
        save(applyEvents({ ...start, pending: [] }, events, decryptor)),
      /** Applies the account's events (any order, duplicates allowed) and keeps the result sealed. */
      sync: (events: ReadonlyArray<ReplayEvent>) => save(applyEvents(state, events, decryptor)),
      /** Both balances, once the openings are checked against the chain (StateMismatch: sync again from events). */
      balances: () =>
        Effect.gen(function*() {
          const chain = yield* onChain(account)
          const landed = yield* base(chain)
          // Spends the chain has reached are settled into the confirmed opening and kept so.
          if (landed.state.pending.length !== state.pending.length) yield* save(landed.state)
          const checked = checkConsistency({ ...landed.state, pending: [] }, chain, commitBytes)
          if (Either.isLeft(checked)) return yield* checked.left
          return { spendable: landed.state.spendable.value, receiving: landed.state.receiving.value } satisfies Balances
        }),
      /**
       * `confidential_transfer`'s data for `amount` to `to`, proven on the newest pending spendable opening (so
       * consecutive payouts chain without waiting for the ledger); the new opening is persisted before this returns.
       * With it, the sender's receipt (the amount, r_e and σ: secrets that open this one transfer's amount, to seal
       * among those who may read it, sealing/SealedReceipt.ts).
       */
      proveTransferWithReceipt: (to: string, amount: bigint) =>
        Effect.gen(function*() {
          const [sender, recipient] = [yield* onChain(account), yield* onChain(to)]
          const [kAudS, kAudR] = [
            yield* fromChain("the sender's auditor key", () => reader.auditorKey(sender.auditorId)),
            yield* fromChain("the recipient's auditor key", () => reader.auditorKey(recipient.auditorId))
          ]
          const from = yield* base(sender)
          // r_e from (vk, σ) (SELECTIVE_DISCLOSURE.md §15.2): the sender can disclose this payout later with nothing stored.
          const sigma = sampleScalar(options.random ?? secureRandom, false)
          const witness = transferWitness({
            keys, spendable: from.opening, amount, recipientViewingKey: pointFromBytes(recipient.viewingPublicKey),
            recipientAuditorKey: pointFromBytes(kAudR), senderAuditorKey: pointFromBytes(kAudS),
            sigma, ephemeral: deriveEphemeralScalar(keys.vk, sigma)
          })
          const proof = yield* prove("transfer", witness.inputs, witness.publicInputs)
          const next = yield* Effect.promise(() =>
            persistPending(stored, from, {
              commitment: witness.payload.c_spend_new, opening: new Opening(witness.newSpendable.value, witness.newSpendable.blinding),
              basedOn: from.commitment, txHash: "", validUntilLedger: Number.MAX_SAFE_INTEGER
            }, commitBytes))
          state = next
          return { data: encodeData({ ...witness.payload }, proof.proof), receipt: { amount, ...witness.receipt } }
        }),
      /** `proveTransferWithReceipt`'s data alone. */
      proveTransfer: (to: string, amount: bigint) => Effect.map(wallet.proveTransferWithReceipt(to, amount), (proven) => proven.data),
      /** `withdraw`'s data for `amount` to the public address `to`, chained like a transfer. */
      proveWithdraw: (amount: bigint) =>
        Effect.gen(function*() {
          const chain = yield* onChain(account)
          const kAudS = yield* fromChain("the auditor key", () => reader.auditorKey(chain.auditorId))
          const from = yield* base(chain)
          const witness = withdrawWitness({
            keys, spendable: from.opening, amount, senderAuditorKey: pointFromBytes(kAudS),
            ...(options.random === undefined ? {} : { random: options.random })
          })
          const proof = yield* prove("withdraw", witness.inputs, witness.publicInputs)
          state = yield* Effect.promise(() =>
            persistPending(stored, from, {
              commitment: witness.payload.c_spend_new, opening: new Opening(witness.newSpendable.value, witness.newSpendable.blinding),
              basedOn: from.commitment, txHash: "", validUntilLedger: Number.MAX_SAFE_INTEGER
            }, commitBytes))
          return encodeData({ ...witness.payload }, proof.proof)
        }),
      /** Each transfer `events` hold to this account, its amount decrypted (R_e, v_tilde, sigma of the event). */
      received: (events: ReadonlyArray<ReplayEvent>) =>
        events.flatMap((e) =>
          e.type === "transfer" && e.to === account
            ? [{ id: e.id, ledger: e.ledger, from: e.from, amount: decryptor.transferIn(e).amount }]
            : []),
      /** The spends proven on `commitment` and after it never land (their transaction failed): forgets them. */
      abandon: (commitment: Uint8Array) =>
        save({ ...state, pending: state.pending.slice(0, Math.max(0, state.pending.findIndex((p) => p.commitment.every((b, i) => b === commitment[i])))) })
    }
    return wallet
  })

export type ConfidentialWallet = Effect.Effect.Success<ReturnType<typeof openWallet>>
