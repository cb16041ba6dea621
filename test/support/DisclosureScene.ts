// The payouts a selective-disclosure suite discloses, paid with real proofs on the loopback token that verifies them
// with OZ's published keys: one contractor paid three times by employer A and once by employer B, and a stranger paid
// once by A; then the auditor key of id 0 rotated (its event is the auditor registry's, not the token's), so that a
// D-auditor verifier must resolve the key active at the payout's ledger, not today's. Also the holder's and the
// verifier's tools: the disclosure circuits and committed keys, one bb.js for both.
import { Account, Contract, Keypair, nativeToScVal, rpc, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect, Schedule } from "effect"
import { strictEqual } from "node:assert/strict"
import { archiveTransfers } from "../../client/src/confidential/disclosure/ArchiveTransfers.ts"
import type { ProveDisclosure } from "../../client/src/confidential/disclosure/Disclose.ts"
import { loadDisclosureCircuits, loadDisclosureKeys } from "../../client/src/confidential/disclosure/DisclosureFiles.ts"
import { checkProofWith } from "../../client/src/confidential/disclosure/DisclosureKeys.ts"
import type { TransferEvent } from "../../client/src/confidential/disclosure/TransferEvent.ts"
import { ChainReader } from "../../client/src/confidential/chain/ChainReader.ts"
import { H, pointFromBytes, pointToBytes, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { makeProver } from "../../client/src/confidential/proving/Prover.ts"
import { crs, sequenceOf, signAndSend } from "./ConfidentialProving.ts"
import { fundedPayer, transferDirectly } from "./FundedPayer.ts"
import { loopbackDeployment, registeredWallet } from "./ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"
import { tokenOf } from "./VersionedToken.ts"

/** The amounts of the scene's payouts, in order. */
export const PAID = { fromA: [4_200n, 4_350n, 3_900n], fromB: 1_111n, toStranger: 777n } as const

/** The disclosure circuits and keys over Ignition's CRS, in one bb.js: the holder's `prove` and the verifier's `checkProof`. */
export const disclosureTools = Effect.gen(function*() {
  const prover = yield* makeProver({ crs: yield* crs, threads: 1 })
  const circuits = yield* loadDisclosureCircuits()
  const keys = yield* loadDisclosureKeys()
  const prove: ProveDisclosure = (name, inputs) => prover.prove(circuits[name], inputs)
  return { prove, checkProof: checkProofWith(keys, prover.verifyWithKey!) }
})

/** The holder's own transfer events as the archive gives them, once it holds `count` of them. */
export const transfersOf = (app: TestAppShape, account: string, count: number) =>
  archiveTransfers(app.url, CONFIDENTIAL_TOKEN, account).pipe(
    Effect.filterOrFail((events) => events.length >= count, () => "not yet" as const),
    Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 300 }),
    Effect.orDie
  )

/** `register_key`/`rotate_key` of the auditor registry, sent by its operator (the example contract's "manager"). */
const registryCall = (app: TestAppShape, operator: Keypair, fn: string, args: ReadonlyArray<xdr.ScVal>) =>
  Effect.gen(function*() {
    const server = new rpc.Server(app.rpc.url, { allowHttp: true })
    const tx = new TransactionBuilder(new Account(operator.publicKey(), sequenceOf(app.rpc, operator.publicKey())), {
      fee: "1000",
      networkPassphrase: app.rpc.networkPassphrase
    }).addOperation(new Contract(tokenOf(app).auditorRegistry).call(fn, ...args)).setTimeout(300).build()
    const prepared = yield* Effect.promise(() => server.prepareTransaction(tx))
    strictEqual(yield* signAndSend(server, prepared as typeof tx, operator), "SUCCESS")
    return Buffer.from(prepared.hash()).toString("hex")
  })

export const disclosureScene = (app: TestAppShape) =>
  Effect.gen(function*() {
    const total = 100_000n
    const [employerA, employerB] = [yield* fundedPayer(app, Keypair.random(), total), yield* fundedPayer(app, Keypair.random(), total)]
    const contractorKey = Keypair.random()
    const strangerKey = Keypair.random()
    const contractor = (yield* registeredWallet(app, contractorKey)).wallet
    yield* registeredWallet(app, strangerKey)
    for (const amount of PAID.fromA) yield* transferDirectly(employerA, contractorKey.publicKey(), amount)
    yield* transferDirectly(employerB, contractorKey.publicKey(), PAID.fromB)
    yield* transferDirectly(employerA, strangerKey.publicKey(), PAID.toStranger)

    const received = yield* transfersOf(app, contractorKey.publicKey(), 4)
    const sent = yield* transfersOf(app, employerA.key.publicKey(), 4)
    const toStranger = sent.find((e) => e.to === strangerKey.publicKey())!
    const fromA = received.filter((e) => e.from === employerA.key.publicKey())

    // The auditor of id 0 rotates its key after the payouts: an event of the registry (another contract than the token).
    const operator = Keypair.random()
    app.rpc.setAccount({ id: operator.publicKey() })
    tokenOf(app).auditors.setOperator(operator.publicKey())
    const rotatedTx = yield* registryCall(app, operator, "rotate_key", [
      xdr.ScVal.scvU32(0),
      xdr.ScVal.scvBytes(Buffer.from(pointToBytes(scalarMul(0x707a7edn, H)))),
      nativeToScVal(operator.publicKey(), { type: "address" })
    ])
    // What the employer reads before a D-sender: the payee's PVK as the token stores it.
    const reader = new ChainReader(new rpc.Server(app.rpc.url, { allowHttp: true }), loopbackDeployment(app))
    const payee = yield* Effect.promise(() => reader.account(contractorKey.publicKey()))
    return {
      contractorViewingKey: pointFromBytes(payee!.viewingPublicKey),
      employerA,
      employerB,
      contractor,
      contractorKey,
      strangerKey,
      received,
      fromA: fromA as ReadonlyArray<TransferEvent>,
      toStranger,
      rotation: { txHash: rotatedTx, opIndex: 0 as const, eventIndex: 0 }
    }
  })
