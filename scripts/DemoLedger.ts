import { StrKey } from "@stellar/stellar-sdk"
import { Console, Effect } from "effect"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"

/** Where the emulated OpenZeppelin confidential token lives on the loopback ledger. */
export const DEMO_TOKEN = StrKey.encodeContract(Buffer.alloc(32, 0x5e))

/**
 * The loopback Stellar RPC the suites use, closing a ledger every `ledgerMs`, with the confidential token emulation
 * deployed at DEMO_TOKEN. Closed with the scope.
 */
export const demoLedger = (ledgerMs: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const rpc = await LoopbackRpc.start({ ledgerIntervalMs: ledgerMs })
      rpc.deployConfidentialToken(DEMO_TOKEN)
      return rpc
    }),
    (rpc) => Console.log("▸ Closing the loopback ledger").pipe(Effect.zipRight(Effect.promise(() => rpc.close())))
  )
