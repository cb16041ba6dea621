import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { Conflict, Forbidden, NotFound, NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import { SponsorRefused, TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"
import { RecipientRefused, SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { CreateEscrowKey, EscrowKey, EscrowKeyId, EscrowKeyList, RegistryCallRequest, RotateEscrowKey } from "./EscrowKey.ts"
import { EscrowPointInvalid } from "./EscrowPoint.ts"

// The contract the client imports (.dependency-cruiser.cjs "the-client-imports-only-the-contract").
export { CreateEscrowKey, EscrowKey, RegistryCallRequest, RotateEscrowKey }

const id = HttpApiSchema.param("id", Schema.propertySignature(EscrowKeyId).annotations({ description: "The escrow key's id" }))

const SEALED = "The secret is sealed in the browser (or the CLI) to the members holding `audit:disclose` (owner, admin, " +
  "auditor), each with the sealing key they published, in the envelope of PUT /batches/{id}/sealed-amounts; the " +
  "service checks its shape and recipients, never its content."
const RECIPIENTS = "422 `RecipientRefused` when a recipient is not a current member holding `audit:disclose` whose " +
  "entry names the sealing key they published (named)"
const POINT = "422 `EscrowPointInvalid` for a point the auditor registry would refuse (`reason`: `IdentityPoint`, " +
  "`PointNotOnCurve`); 400 for a point that is not 128 lowercase hex characters"

/** The organization's escrow key (issue 36 §2): the auditor key its paying wallets register under. */
export class EscrowApi extends HttpApiGroup.make("escrow")
  .add(
    HttpApiEndpoint.get("list", "/org/escrow-keys")
      .addSuccess(EscrowKeyList)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "List the organization's escrow keys")
      .annotate(
        OpenApi.Description,
        "The organization's escrow keys, oldest first: each one's public point, auditor id, sealed secret and the " +
          "ledgers it was current for; `current` marks the one the auditor registry should hold (compare it with the " +
          "registry's `get_key(auditor_id)`). Every member reads them (`audit:read`): a payer registers the paying " +
          "wallets under the current key's auditor id. 403 for a session of no organization."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/org/escrow-keys")
      .setPayload(CreateEscrowKey)
      .addSuccess(EscrowKey, { status: 201 })
      .addError(Forbidden)
      .addError(Conflict)
      .addError(RecipientRefused)
      .addError(EscrowPointInvalid)
      .annotate(OpenApi.Summary, "Create the organization's escrow key")
      .annotate(
        OpenApi.Description,
        "Stores the organization's escrow key: an auditor key pair in OpenZeppelin's form (Grumpkin, K = k·H, " +
          "DESIGN_cont.md §8) derived in the browser from the member's wallet signature over a documented message " +
          "(client/src/escrow), its public point, the auditor id it is to be registered under in the auditor " +
          `registry, and its secret k sealed. ${SEALED} The registry's operator then signs ` +
          "`register_key(auditor_id, point, operator)`. Needs `org:manage` (owner, admin): 403 otherwise. 409 when the " +
          "organization has a key already (rotate it), or the point or the auditor id is another organization's; " +
          `${POINT}; ${RECIPIENTS}.`
      )
  )
  .add(
    HttpApiEndpoint.put("share")`/org/escrow-keys/${id}/sealed-secret`
      .setPayload(SealedEnvelope)
      .addSuccess(EscrowKey)
      .addError(Forbidden)
      .addError(NotFound)
      .addError(Conflict)
      .addError(RecipientRefused)
      .annotate(OpenApi.Summary, "Share the escrow secret with more members")
      .annotate(
        OpenApi.Description,
        "The same sealed secret (same digest) for more members who may audit, sealed again in the browser by one who " +
          "can open it. A share may only add recipients: every entry on file whose member still holds " +
          "`audit:disclose` with the key it names comes back byte for byte and in its order. Needs `audit:disclose`: " +
          "403 otherwise. 404 when the organization has no such key; 409 for another secret (another digest) or a " +
          `share that would drop, change or move a current reader's entry; ${RECIPIENTS}.`
      )
  )
  .add(
    HttpApiEndpoint.post("rotate")`/org/escrow-keys/${id}/rotate`
      .setPayload(RotateEscrowKey)
      .addSuccess(EscrowKey, { status: 201 })
      .addError(Forbidden)
      .addError(NotFound)
      .addError(Conflict)
      .addError(RecipientRefused)
      .addError(EscrowPointInvalid)
      .annotate(OpenApi.Summary, "Record the escrow key's rotation")
      .annotate(
        OpenApi.Description,
        "Stores the key that replaced this one under the same auditor id (`rotate_key(auditor_id, new_point, " +
          "operator)`, applied in ledger `replacedAtLedger`), with its secret sealed. The old key stays, sealed as " +
          "it was, with the ledger it was replaced at, so events before it stay readable (OZ DESIGN_cont.md §8.3). " +
          `${SEALED} Needs \`org:manage\`: 403 otherwise. 404 when the organization has no such key; 409 when it was ` +
          "replaced already, the ledger is not after the one it took over at, or the point is another key's; " +
          `${POINT}; ${RECIPIENTS}.`
      )
  )
  .add(
    HttpApiEndpoint.post("registryCall", "/escrow/registry-calls")
      .setPayload(RegistryCallRequest)
      .addSuccess(TransferResult)
      .addError(Forbidden)
      .addError(SponsorRefused)
      .addError(TransferRejected)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .addError(TransferTimeout)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Submit the registry operator's signed call for the escrow key (sponsored)")
      .annotate(
        OpenApi.Description,
        "Sponsors the auditor registry operator's `register_key(auditor_id, point, operator)` or `rotate_key(" +
          "auditor_id, new_point, operator)` of the organization's current escrow key, signed by the operator's " +
          "wallet, which is the signed-in one (the console and the CLI prepare it through POST /stellar-rpc; an " +
          "operator who is not a member signs the same XDR with their own tools and submits it themselves). The " +
          "service pays its fee with a fee-bump and answers once it is on the ledger, as POST /token/calls does, " +
          "with an audit row `escrow.register_key` or `escrow.rotate_key` naming the transaction. Needs a wallet " +
          "(SEP-10) session of a member with `org:manage` (owner, admin): 501 for an email session, 403 otherwise or " +
          "when the transaction's source is not the signed-in wallet; 400 for an envelope that is not one signed v1 " +
          "transaction with one operation; 422 `SponsorRefused` under POST /token/calls' rules (`function`: not " +
          "`register_key` or `rotate_key`; `contract`: not the token's auditor registry; `arguments`: an `operator` " +
          "other than the source; an auditor id other than the organization's escrow key's; a `register_key` of " +
          "another point than the current key's; no escrow key; `auth`, `fee`, `timebounds`, `quota`). A `rotate_key`'s " +
          "new point is then recorded with POST /org/escrow-keys/{id}/rotate and the ledger it landed in. Then 200 " +
          "once on the ledger; 422 `TransferRejected` " +
          "when the registry refuses it (not its operator, #2000; the id taken, #3300); 504 when not final in time; " +
          "502 when Stellar RPC cannot be reached (the token's deployment unread included); 501 when no token is configured " +
          "or its deployment is refused (as GET /confidential/deployment)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Escrow key")
  .annotate(
    OpenApi.Description,
    "The organization's auditor key (issue 36): its paying wallets register under its auditor id, so that the " +
      "members who may audit read every proven operation's amounts from the public events, in their browser."
  )
{}
