// What a suite needs to pay with real proofs: Aztec Ignition's CRS as the project carries it (client/crs), the
// loopback token's verifier (bb.js in a worker, holding OZ's published verification keys as a real verifier registry
// does), the client's prover with OZ's circuits as the project keeps them (client/circuits/8af46e2c), and a wallet's
// signer.
import { type Keypair, rpc, type Transaction } from "@stellar/stellar-sdk"
import { Effect, Schedule } from "effect"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import type { ProvingSetup } from "../../client/src/confidential/Circuits.ts"
import type { TokenDeployment } from "../../client/src/confidential/chain/Deployment.ts"
import { ChainReader } from "../../client/src/confidential/chain/ChainReader.ts"
import { type ConfidentialWallet, openWallet } from "../../client/src/confidential/ConfidentialWallet.ts"
import { keysFromSigner, type MessageSigner } from "../../client/src/confidential/crypto/KeyDerivation.ts"
import { fetchAccountEvents } from "../../client/src/confidential/state/ArchiveEvents.ts"
import { MemoryStore } from "../../client/src/confidential/state/Store.ts"
import { type CircuitArtifact, loadCircuit, type Manifest } from "../../client/src/confidential/proving/Artifacts.ts"
import { BUNDLED_CRS_DIR, loadCrsDir } from "../../client/src/confidential/proving/CrsFiles.ts"
import { parseFieldsVk, toBinaryVk } from "../../client/src/confidential/proving/VerificationKey.ts"
import { makeProver } from "../../client/src/confidential/proving/Prover.ts"
import type { LoopbackConfidentialToken } from "./LoopbackConfidentialToken.ts"
import { LoopbackProofVerifier } from "./LoopbackProofVerifier.ts"
import type { LoopbackRpc } from "./LoopbackRpc.ts"

const root = Path.resolve(import.meta.dirname, "../..")
/** Aztec Ignition's prefix, the only CRS the prover and the service accept. */
export const CRS_DIR = BUNDLED_CRS_DIR
const CIRCUITS_DIR = Path.join(root, "client/circuits/8af46e2c")

const artifact = (name: string) => JSON.parse(readFileSync(Path.join(CIRCUITS_DIR, `${name}.json`), "utf8")) as CircuitArtifact
const manifest = () => JSON.parse(readFileSync(Path.join(CIRCUITS_DIR, "manifest.json"), "utf8")) as Manifest

/** Ignition's CRS, checked against its pins. */
export const crs = loadCrsDir(CRS_DIR)

/** OZ's published key of `circuit` (client/circuits/8af46e2c/vks, OZ's `circuits/vks` at 8af46e2c) in bb's binary form. */
export const ozVerificationKey = (circuit: string): Uint8Array =>
  toBinaryVk(parseFieldsVk(JSON.parse(readFileSync(Path.join(CIRCUITS_DIR, "vks", `${circuit}.vk.json`), "utf8")) as unknown))

/** The loopback token's verifier, holding OZ's published keys; stopped with the scope. */
export const proofVerifier = Effect.acquireRelease(
  Effect.promise(() =>
    LoopbackProofVerifier.start({
      crsDir: CRS_DIR,
      vks: Object.fromEntries(["register", "transfer", "withdraw"].map((n) => [n, ozVerificationKey(n)]))
    })),
  (verifier) => Effect.promise(() => verifier.stop())
)

/** The client's prover over the same CRS and the pinned artifacts (each checked against the manifest's ACIR hash). */
export const provingSetup = Effect.gen(function*() {
  const prover = yield* makeProver({ crs: yield* crs, threads: 1 })
  const pinned = manifest()
  const circuit = (name: "register" | "transfer" | "withdraw") => loadCircuit(name, artifact(name), pinned)
  return {
    prover,
    circuits: { register: yield* circuit("register"), transfer: yield* circuit("transfer"), withdraw: yield* circuit("withdraw") },
    version: pinned.commit
  } satisfies ProvingSetup
})

/** Where the loopback's token and its registries are. */
export const deploymentOf = (token: LoopbackConfidentialToken, networkPassphrase: string): TokenDeployment => ({
  contract: token.contractId,
  auditorRegistry: token.auditorRegistry,
  verifierRegistry: token.verifierRegistry,
  networkPassphrase
})

/** A wallet's SEP-53 `signMessage` as @stellar/freighter-api defines it (base64), played with the account's key. */
export const keypairSigner = (key: Keypair): MessageSigner => ({
  signMessage: async (message) => ({ signedMessage: Buffer.from(key.signMessage(message)).toString("base64"), signerAddress: key.publicKey() })
})

/** Signs and sends a transaction through Stellar RPC and waits until it is final; its status. */
export const signAndSend = (server: rpc.Server, tx: Transaction, key: Keypair) =>
  Effect.promise(async () => {
    tx.sign(key)
    const sent = await server.sendTransaction(tx)
    if (sent.status !== "PENDING") throw new Error(`sendTransaction answered ${sent.status}`)
    const final = await server.pollTransaction(sent.hash, { attempts: 200, sleepStrategy: () => 50 })
    return final.status
  })

/**
 * Syncs a wallet from the service's archive at `url` until `done` holds of its balances: the archive trails the ledger,
 * and until it has the latest events the openings do not match the chain (StateMismatch), so both are waited out.
 */
export const syncUntil = (
  url: string,
  contract: string,
  wallet: ConfidentialWallet,
  done: (b: { readonly spendable: bigint; readonly receiving: bigint }) => boolean
) =>
  Effect.gen(function*() {
    const history = yield* fetchAccountEvents(url, contract, wallet.account, wallet.state.cursor)
    yield* wallet.sync(history.events)
    const balances = yield* wallet.balances().pipe(Effect.catchTag("StateMismatch", () => Effect.fail("not yet" as const)))
    if (!done(balances)) return yield* Effect.fail("not yet" as const)
    return balances
  }).pipe(Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 300, while: (e) => e === "not yet" }))

/** A wallet of the confidential client for `key` on the token `deployment` at `rpcUrl`: keys from its SEP-53 signature, openings in memory. */
export const clientWallet = (rpcUrl: string, deployment: TokenDeployment, setup: ProvingSetup, key: Keypair) =>
  Effect.gen(function*() {
    const reader = new ChainReader(new rpc.Server(rpcUrl, { allowHttp: true }), deployment)
    const keys = yield* Effect.promise(() => keysFromSigner({ signer: keypairSigner(key), account: key.publicKey(), contract: deployment.contract }))
    return yield* openWallet({ keys, account: key.publicKey(), reader, setup, store: new MemoryStore() })
  })

/** `clientWallet` on the loopback's token at `contract`. */
export const loopbackWallet = (rpcServer: LoopbackRpc, contract: string, setup: ProvingSetup, key: Keypair) =>
  clientWallet(rpcServer.url, deploymentOf(rpcServer.deployConfidentialToken(contract), rpcServer.networkPassphrase), setup, key)

/** The account's current sequence number on the loopback, as a transaction built on it needs. */
export const sequenceOf = (rpcServer: LoopbackRpc, account: string) => (rpcServer.account(account)?.sequence ?? 0n).toString()
