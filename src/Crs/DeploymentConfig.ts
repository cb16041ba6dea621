import { StrKey } from "@stellar/stellar-sdk"
import { Config, Option } from "effect"
import { NetworkPassphrase } from "../Config.ts"
import { ContractId } from "../Domain/Stellar.ts"

const contract = (name: string, what: string) =>
  Config.option(Config.nonEmptyString(name).pipe(Config.validate({
    message: `${name} (${what}) is not a contract address (C...)`,
    validation: (id) => StrKey.isValidContract(id)
  }), Config.map((id) => ContractId.make(id))))

/**
 * Where the confidential token lives, as a browser wallet needs it (GET /confidential/deployment): the token is enough,
 * since at OpenZeppelin's 8af46e2c it keeps its underlying asset and its auditor and verifier registries in instance
 * storage, which Deployment.ts reads from the chain. CONFIDENTIAL_AUDITOR_CONTRACT and CONFIDENTIAL_VERIFIER_CONTRACT,
 * when set, are checked against what the token names. `auditorId` is the auditor a contractor's
 * `register(account, auditor_id, data)` names.
 */
export const DeploymentConfig = Config.all({
  contract: contract("CONFIDENTIAL_TOKEN_CONTRACT", "the confidential token"),
  auditorRegistry: contract("CONFIDENTIAL_AUDITOR_CONTRACT", "its auditor key registry"),
  verifierRegistry: contract("CONFIDENTIAL_VERIFIER_CONTRACT", "its verifier registry"),
  auditorId: Config.integer("CONFIDENTIAL_AUDITOR_ID").pipe(
    Config.validate({ message: "CONFIDENTIAL_AUDITOR_ID is not an auditor id (a u32)", validation: (id) => id >= 0 && id <= 0xffffffff }),
    Config.withDefault(0)
  ),
  networkPassphrase: NetworkPassphrase
}).pipe(Config.map(({ contract, ...rest }) => Option.map(contract, (token) => ({ contract: token, ...rest }))))
export type DeploymentConfig = Config.Config.Success<typeof DeploymentConfig>
