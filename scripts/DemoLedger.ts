import { StrKey } from "@stellar/stellar-sdk"
import { Console, Effect } from "effect"
import { STANDALONE_PASSPHRASE } from "../client/src/confidential/proving/CrsFiles.ts"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { proofVerifier } from "../test/support/ConfidentialProving.ts"

/** Where the emulated OpenZeppelin confidential token lives on the loopback ledger. */
export const DEMO_TOKEN = StrKey.encodeContract(Buffer.alloc(32, 0x5e))

/**
 * The loopback Stellar RPC the suites use, on a standalone network, closing a ledger every `ledgerMs`, with the
 * confidential token emulation deployed at DEMO_TOKEN verifying real proofs (bb.js, against OZ's published
 * verification keys). Closed with the scope.
 */
export const demoLedger = (ledgerMs: number) =>
  Effect.gen(function*() {
    const verifier = yield* proofVerifier
    return yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const rpc = await LoopbackRpc.start({ ledgerIntervalMs: ledgerMs, networkPassphrase: STANDALONE_PASSPHRASE })
        rpc.deployConfidentialToken(DEMO_TOKEN, { verifier })
        return rpc
      }),
      (rpc) => Console.log("▸ Closing the loopback ledger").pipe(Effect.zipRight(Effect.promise(() => rpc.close())))
    )
  })
