import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { Conflict, Forbidden, NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import { SponsorRefused, TokenCallRequest, TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"

/** The calls a wallet makes on its own confidential account besides paying, sponsored as transfers are. */
export class TokenCallsApi extends HttpApiGroup.make("tokenCalls")
  .add(
    HttpApiEndpoint.post("submit", "/token/calls")
      .setPayload(TokenCallRequest)
      .addSuccess(TransferResult)
      .addError(Forbidden)
      .addError(SponsorRefused)
      .addError(TransferRejected)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .addError(TransferTimeout)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Submit a signed call on my own confidential account (sponsored)")
      .annotate(
        OpenApi.Description,
        "Sponsors one of the confidential token's calls on the caller's own account, signed by their wallet: " +
          "`register(account, auditor_id, data)`, `deposit(from, to, amount)`, `merge(account)` or " +
          "`withdraw(from, to, amount, data)`, every account argument being the signed-in wallet. The wallet's client " +
          "builds and proves it (a browser reads the chain through POST /stellar-rpc, which sends nothing) and " +
          "signs it; the service pays its fee with a fee-bump, submits it and answers once it is on the ledger, as " +
          "POST /transfer does. For a wallet (SEP-10) session of:\n\n" +
          "- a member whose role may pay (`transfers:submit`: owner, payer), for the wallet that funds payroll: " +
          "all four calls (recorded for the organization, with an audit row `token.register`, `token.deposit`, " +
          "`token.merge` or `token.withdraw`, naming the transaction);\n" +
          "- a contractor of an organization here (added with that address, or linked by accepting an invite): " +
          "`register`, `merge` and `withdraw` (not `deposit`: no payroll needs a contractor to move public funds " +
          "into the token). POST /contractor/register is this route for a contractor's `register` alone.\n\n" +
          "Refusals, before anything is sent:\n\n" +
          "- 501 for an email session (it cannot sign); API keys may not call it (403);\n" +
          "- 403 when the caller is neither (a `viewer`, `approver`, `initiator` or `admin` who is no contractor), " +
          "when a contractor sends a `deposit`, or when the transaction's source (or an operation's source) is not " +
          "the signed-in wallet;\n" +
          "- 400 when the envelope is not one base64 v1 transaction (not a fee-bump) with exactly one operation, or " +
          "carries no valid signature of its source for this network;\n" +
          "- 422 `SponsorRefused` under POST /transfer's rules: `operation` (not a contract call), `function` (none " +
          "of the four), `contract` (off `SPONSOR_ALLOWED_CONTRACTS`), `arguments` (an account argument other than " +
          "the source, such as a deposit into or a withdrawal to another account; a negative amount; a wrong " +
          "shape), `auth` (an authorization entry other than the source's own of this call; a deposit's may list " +
          "the underlying token's `transfer(from, the token, amount)` beneath it, as simulation gives it), `fee` " +
          "(over `SPONSOR_MAX_INNER_FEE`), `timebounds`, `quota` (shared with transfers: `SPONSOR_QUOTA` per " +
          "source account per window).\n\n" +
          "Then as POST /transfer: 200 once on the ledger; 422 `TransferRejected` when the network refuses it or " +
          "applies it as FAILED (a stale proof, an account already registered); 504 when not final in time (follow " +
          "it with GET /transfers/{hash}); 502 when Stellar RPC cannot be reached. The same transaction posted again " +
          "is never sent twice: it is answered with its submission's state; 409 when another organization submitted it."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Token calls")
  .annotate(
    OpenApi.Description,
    "A wallet's own calls on the confidential token (register, deposit, merge, withdraw), signed in the wallet's " +
      "client and sponsored by the service: the caller needs no XLM, and a browser needs no route to the network."
  )
{}
