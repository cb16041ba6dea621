// Pluggable persistence for sealed wallet state (SDK.md §10.1: "Persistence MUST be pluggable"). A store keeps bytes
// only: what it holds is sealed (SealedState.ts) before it gets here. It is not a cache: with RPC-only event access,
// losing it loses the receiving-side openings for good, so implementations write durably.

export interface WalletStore {
  get(key: string): Promise<Uint8Array | undefined>
  put(key: string, bytes: Uint8Array): Promise<void>
  delete(key: string): Promise<void>
}

/** The key one account's state on one token is kept under. */
export const walletStateKey = (contract: string, account: string): string => `wallet-state/${contract}/${account}`

/** A store in memory, for tests and short-lived processes. It keeps copies, so callers may reuse their buffers. */
export class MemoryStore implements WalletStore {
  readonly #entries = new Map<string, Uint8Array>()

  get(key: string): Promise<Uint8Array | undefined> {
    const bytes = this.#entries.get(key)
    return Promise.resolve(bytes === undefined ? undefined : bytes.slice())
  }

  put(key: string, bytes: Uint8Array): Promise<void> {
    this.#entries.set(key, bytes.slice())
    return Promise.resolve()
  }

  delete(key: string): Promise<void> {
    this.#entries.delete(key)
    return Promise.resolve()
  }
}
