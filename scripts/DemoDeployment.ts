// The token's deployment as `npm run demo` on a network finds it, before the funder spends anything: read from the
// token's instance storage (client/src/confidential/chain/ReadDeployment.ts), the registries set in the environment
// checked against it, and the auditor every `register` will name (CONFIDENTIAL_AUDITOR_ID) looked up in the auditor
// registry (`get_key`): an id without a key would fail every register with AuditorNotRegistered (#3301).
import type { rpc } from "@stellar/stellar-sdk"
import { ChainReader, SimulationRefusedError } from "../client/src/confidential/chain/ChainReader.ts"
import { type ChainDeployment, readDeployment } from "../client/src/confidential/chain/ReadDeployment.ts"
import type { NetworkSettings } from "./DemoNetwork.ts"

const AUDITOR_NOT_REGISTERED = /Error\(Contract, #3301\)/

/** The deployment the token names, checked; an Error whose message is the one line to show, when it is not usable. */
export const checkedDeployment = async (server: rpc.Server, settings: NetworkSettings): Promise<ChainDeployment> => {
  const deployment = await readDeployment(server, settings.token, settings.networkPassphrase)
  const overrides = [
    ["CONFIDENTIAL_AUDITOR_CONTRACT", "auditor registry", settings.registries.auditorRegistry, deployment.auditorRegistry],
    ["CONFIDENTIAL_VERIFIER_CONTRACT", "verifier registry", settings.registries.verifierRegistry, deployment.verifierRegistry]
  ] as const
  for (const [name, what, set, onChain] of overrides) {
    if (set !== undefined && set !== onChain) {
      throw new Error(`${name} is ${set}, but the token ${settings.token} names ${onChain} as its ${what}: unset ${name} or correct it`)
    }
  }
  try {
    await new ChainReader(server, deployment).auditorKey(settings.auditorId)
  } catch (e) {
    if (e instanceof SimulationRefusedError && AUDITOR_NOT_REGISTERED.test(e.error)) {
      throw new Error(
        `the auditor registry ${deployment.auditorRegistry} has no key at CONFIDENTIAL_AUDITOR_ID ${settings.auditorId} ` +
          "(get_key: AuditorNotRegistered, #3301), so every register would fail: set CONFIDENTIAL_AUDITOR_ID to a registered auditor's id"
      )
    }
    throw e
  }
  return deployment
}
