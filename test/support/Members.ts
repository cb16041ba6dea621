import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import type { MemberRole } from "../../src/Domain/Roles.ts"
import { call, signIn } from "./Client.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"
import { walletEmployer } from "./Transfer.ts"

export interface Member {
  readonly wallet: Keypair
  readonly token: string
  readonly role: MemberRole
}

/** A set-up call that must succeed: its JSON body, or the test dies saying which call failed and how. */
export const must = (app: Pick<TestAppShape, "url">, method: string, path: string, token: string, json?: unknown) =>
  call(app, method, path, { token, ...(json === undefined ? {} : { json }) }).pipe(
    Effect.flatMap((r) =>
      r.status < 300 ? Effect.succeed(r.body) : Effect.dieMessage(`set-up ${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`)
    )
  )

/** A wallet on the loopback ledger joining the organization of `owner` with `role`, through an invite. */
export const joinAs = (app: TestAppShape, owner: { readonly token: string }, role: MemberRole) =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    app.rpc.setAccount({ id: wallet.publicKey() })
    const invite = yield* must(app, "POST", "/orgs/invites", owner.token, { role })
    const token = yield* signIn(app, wallet)
    yield* must(app, "POST", `/orgs/join/${invite.token}`, token)
    return { wallet, token, role } satisfies Member
  })

/** An organization (its owner's wallet on the ledger) and one member of each role. */
export const orgWithEveryRole = (app: TestAppShape, name = "Controls Co") =>
  Effect.gen(function*() {
    const owner = yield* walletEmployer(app, name)
    const members: Record<MemberRole, Member> = {
      owner: { ...owner, role: "owner" },
      admin: yield* joinAs(app, owner, "admin"),
      initiator: yield* joinAs(app, owner, "initiator"),
      approver: yield* joinAs(app, owner, "approver"),
      payer: yield* joinAs(app, owner, "payer"),
      viewer: yield* joinAs(app, owner, "viewer"),
      auditor: yield* joinAs(app, owner, "auditor")
    }
    return members
  })

/** A ready contractor (registered with the loopback token) of the organization `token` acts for. */
export const readyContractor = (app: TestAppShape, token: string, name = "Ada") =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
    const created = yield* must(app, "POST", "/contractors", token, { name, address: wallet.publicKey() })
    return { id: created.id as string, wallet }
  })

/** A batch of `n` payouts to ready contractors, made (and readied, unless `ready` is false) by `token`. */
export const batchOf = (app: TestAppShape, token: string, n: number, options: { readonly ready?: boolean; readonly readyBy?: string } = {}) =>
  Effect.gen(function*() {
    const contractors = []
    for (let i = 0; i < n; i++) contractors.push(yield* readyContractor(app, token, `Contractor ${i}`))
    const batch = yield* must(app, "POST", "/batches", token, { name: "November" })
    const payouts = yield* must(app, "POST", `/batches/${batch.id}/payouts`, token, { contractorIds: contractors.map((c) => c.id) })
    if (options.ready !== false) yield* must(app, "POST", `/batches/${batch.id}/ready`, options.readyBy ?? token)
    const byContractor = new Map(contractors.map((c) => [c.id, c.wallet]))
    return {
      batchId: batch.id as string,
      payouts: (payouts as Array<{ id: string; contractorId: string }>).map((p) => ({ id: p.id, to: byContractor.get(p.contractorId)! }))
    }
  })
