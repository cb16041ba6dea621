import { describe, expect, it } from "@effect/vitest"
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { proofVerifier } from "./support/ConfidentialProving.ts"
import { LoopbackRpc } from "./support/LoopbackRpc.ts"
import { runDemo } from "./support/RunDemo.ts"

// `npm run demo` on a network (scripts/DemoNetwork.ts, scripts/DemoDeployment.ts) given only the token: the registries
// come from the token's instance storage, and every `register` names CONFIDENTIAL_AUDITOR_ID (default 0), checked with
// the auditor registry's `get_key` before the funder spends anything. The network is a loopback RPC the demo knows only
// by its URL; its token's auditor registry has no key at 0 (a deployment whose auditor registered at id 1), where
// `register(account, 0, data)` fails with AuditorNotRegistered, Error(Contract, #3301).

const TOKEN = StrKey.encodeContract(Buffer.alloc(32, 0x7b))
const UNIT = 10_000_000n
const PASSPHRASE = "Standalone Network ; February 2017"


/** A loopback network whose token's auditor registry holds a key at id 1 and none at 0, and a funder with XLM and USDC. */
const network = (verifying: boolean) =>
  Effect.gen(function*() {
    const verifier = verifying ? yield* proofVerifier : undefined
    const rpc = yield* Effect.acquireRelease(
      Effect.promise(() => LoopbackRpc.start({ ledgerIntervalMs: 500, networkPassphrase: PASSPHRASE })),
      (rpc) => Effect.promise(() => rpc.close())
    )
    const token = rpc.deployConfidentialToken(TOKEN, verifier === undefined ? {} : { verifier })
    token.removeAuditorKey(0)
    const funder = Keypair.random()
    rpc.setAccount({ id: funder.publicKey(), balance: 1_000n * UNIT })
    token.mintUnderlying(funder.publicKey(), 50n * UNIT)
    const env = { DEMO_FUNDER_SECRET: funder.secret(), STELLAR_RPC_URL: rpc.url, NETWORK_PASSPHRASE: PASSPHRASE, CONFIDENTIAL_TOKEN_CONTRACT: TOKEN }
    return { rpc, token, funder, env }
  })

describe("npm run demo on a network: the deployment from the token, CONFIDENTIAL_AUDITOR_ID checked before anything is spent", () => {
  it.scopedLive("an auditor id without a key (0, the default), or a registry the token does not name: one line, exit 1, nothing sent", () =>
    Effect.gen(function*() {
      const { rpc, token, funder, env } = yield* network(true)

      const unregistered = yield* runDemo(env)
      expect(unregistered.code, unregistered.output).toBe(1)
      const [line] = unregistered.output.split("\n").filter((l) => l.includes("CONFIDENTIAL_AUDITOR_ID 0"))
      expect(line, unregistered.output).toContain(`the auditor registry ${token.auditorRegistry} has no key at CONFIDENTIAL_AUDITOR_ID 0`)
      expect(line).toContain("#3301")
      expect(unregistered.output).not.toContain("Creating the demo's")
      expect(unregistered.output).not.toContain("Starting the service")
      expect(unregistered.output).not.toContain(funder.secret())

      const other = StrKey.encodeContract(Buffer.alloc(32, 0x01))
      const wrong = yield* runDemo({ ...env, CONFIDENTIAL_AUDITOR_ID: "1", CONFIDENTIAL_VERIFIER_CONTRACT: other })
      expect(wrong.code, wrong.output).toBe(1)
      expect(wrong.output).toContain(`CONFIDENTIAL_VERIFIER_CONTRACT is ${other}, but the token ${TOKEN} names ${token.verifierRegistry} as its verifier registry`)
      expect(wrong.output).not.toContain("Creating the demo's")

      const notAnId = yield* runDemo({ ...env, CONFIDENTIAL_AUDITOR_ID: "-1" })
      expect(notAnId.code).toBe(1)
      expect(notAnId.output.trim().split("\n")).toEqual([expect.stringContaining("CONFIDENTIAL_AUDITOR_ID is not an auditor id (a u32)")])

      expect(rpc.transactions).toHaveLength(0)
      expect(rpc.account(funder.publicKey())?.balance).toBe(1_000n * UNIT)
      expect(token.underlyingBalance(funder.publicKey())).toBe(50n * UNIT)
    }), 120_000)

  it.scopedLive("CONFIDENTIAL_AUDITOR_ID=1 and only the token named: pays five contractors, every account registered under auditor 1", () =>
    Effect.gen(function*() {
      const { rpc, token, env } = yield* network(true)
      const { code, output } = yield* runDemo({ ...env, CONFIDENTIAL_AUDITOR_ID: "1" })
      expect(code, output).toBe(0)
      expect(output).toContain(`its auditor registry ${token.auditorRegistry}, its verifier registry ${token.verifierRegistry}, its asset ${token.underlyingAsset}`)
      const created = [...output.matchAll(/^ {2}(.+?)\s+(G[A-Z2-7]{55})\s+[\d.]+ XLM$/gm)].map(([, role, account]) => ({ role: role!, account: account! }))
      const registered = created.filter((c) => c.role !== "sponsor")
      expect(registered).toHaveLength(6)
      for (const c of registered) expect(rpc.confidentialAccount(TOKEN, c.account)?.auditorId, c.role).toBe(1)
      expect([...output.matchAll(/received\s+[\d.]+\s+✓$/gm)]).toHaveLength(5)
    }), 12 * 60_000)
})
