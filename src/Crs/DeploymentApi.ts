import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
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
  underlyingAsset: Schema.propertySignature(ContractId).annotations({
    description: "The SEP-41 asset the token wraps (a Stellar Asset Contract, USDC's): a deposit moves it from the depositor's public " +
      "balance, which a wallet reads with its `balance(id)`"
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
      underlyingAsset: ContractId.make("CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA"),
      auditorId: 0,
      networkPassphrase: "Test SDF Network ; September 2015"
    }]
  })
) {}

/** GET /confidential/deployment (in the CRS group: what the console's prover needs from this service). */
export const DeploymentEndpoint = HttpApiEndpoint.get("deployment", "/confidential/deployment")
  .addSuccess(TokenDeployment)
  .addError(NotImplemented)
  .addError(UpstreamUnavailable)
  .annotate(OpenApi.Summary, "Where the confidential token lives")
  .annotate(
    OpenApi.Description,
    "The confidential token this service pays through, its auditor and verifier registries and its underlying asset, " +
      "the auditor a contractor registers with, and the network: what the console's wallet needs to derive a " +
      "contractor's keys (they are bound to the token), check the verifier's key before proving, build the `register` " +
      "call and read the public balance a deposit draws on. The registries and the asset are read from the token's " +
      "instance storage (at OpenZeppelin's 8af46e2c: `UnderlyingAsset`, `Verifier`, `Auditor`) on the first request and " +
      "kept. Public: no session. 501 when CONFIDENTIAL_TOKEN_CONTRACT is not set, when it names no confidential token, " +
      "or when CONFIDENTIAL_AUDITOR_CONTRACT or CONFIDENTIAL_VERIFIER_CONTRACT is set to another contract than the " +
      "token names (the message names the variable); 502 when Stellar RPC cannot be read (retry later)."
  )
