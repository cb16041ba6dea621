import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotImplemented } from "../Domain/Errors.ts"
import { ContractId } from "../Domain/Stellar.ts"
import { documented } from "../Domain/Documented.ts"

const TokenDeploymentFields = {
  contract: Schema.propertySignature(ContractId).annotations({ description: "The confidential token (OpenZeppelin's, 8af46e2c)" }),
  auditorRegistry: Schema.propertySignature(ContractId).annotations({
    description: "Its auditor key registry: `get_key(auditor_id)`, the key transfers encrypt the auditor's channel to"
  }),
  verifierRegistry: Schema.propertySignature(ContractId).annotations({
    description: "Its verifier registry: `get_verification_key(circuit_type)`, which a client compares with its own key before proving"
  }),
  auditorId: Schema.propertySignature(Schema.Int.pipe(Schema.between(0, 0xffffffff))).annotations({
    description: "The auditor a contractor's `register(account, auditor_id, data)` names"
  }),
  networkPassphrase: Schema.propertySignature(Schema.String).annotations({ description: "The network the token is on" })
}

export class TokenDeployment extends Schema.Class<TokenDeployment>("TokenDeployment")(
  TokenDeploymentFields,
  documented(TokenDeploymentFields, {
    description: "Where the confidential token lives: what a wallet in a browser needs to read it and to sign its calls",
    examples: [{
      contract: ContractId.make("CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"),
      auditorRegistry: ContractId.make("CDAYJPY37XIN5X5LDYJQUAXM4JY3EPFN5IY4FEBN75LL5OA4GKUXRFRE"),
      verifierRegistry: ContractId.make("CD27WFKPHWHGYX5AB6U667YDK5TGMLEPZT7Z6OSPZTWTPQD2PKFGGGIK"),
      auditorId: 0,
      networkPassphrase: "Test SDF Network ; September 2015"
    }]
  })
) {}

/** GET /confidential/deployment (in the CRS group: what the console's prover needs from this service). */
export const DeploymentEndpoint = HttpApiEndpoint.get("deployment", "/confidential/deployment")
  .addSuccess(TokenDeployment)
  .addError(NotImplemented)
  .annotate(OpenApi.Summary, "Where the confidential token lives")
  .annotate(
    OpenApi.Description,
    "The confidential token this service pays through, its auditor and verifier registries, the auditor a " +
      "contractor registers with, and the network: what the console's wallet needs to derive a contractor's keys " +
      "(they are bound to the token), check the verifier's key before proving, and build the `register` call. " +
      "Public: no session. 501 when CONFIDENTIAL_TOKEN_CONTRACT, CONFIDENTIAL_AUDITOR_CONTRACT and " +
      "CONFIDENTIAL_VERIFIER_CONTRACT are not all set."
  )
