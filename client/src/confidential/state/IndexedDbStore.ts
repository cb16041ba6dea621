// A WalletStore in the browser's IndexedDB (the global `indexedDB`). The project compiles without the DOM library
// (tsconfig "lib": ES2023), so the few IndexedDB members used are declared here, structurally.
import type { WalletStore } from "./Store.ts"

interface IdbRequest<T> {
  readonly result: T
  readonly error: unknown
  onsuccess: (() => void) | null
  onerror: (() => void) | null
}

interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null
  onblocked: (() => void) | null
}

interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>
  put(value: Uint8Array, key: string): IdbRequest<unknown>
  delete(key: string): IdbRequest<unknown>
}

interface IdbTransaction {
  readonly error: unknown
  objectStore(name: string): IdbObjectStore
  oncomplete: (() => void) | null
  onerror: (() => void) | null
  onabort: (() => void) | null
}

interface IdbDatabase {
  readonly objectStoreNames: { contains(name: string): boolean }
  createObjectStore(name: string): unknown
  transaction(store: string, mode: "readonly" | "readwrite"): IdbTransaction
  close(): void
}

/** The part of `IDBFactory` this store uses. */
export interface IdbFactory {
  open(name: string, version: number): IdbOpenRequest
}

const OBJECT_STORE = "wallet-state"
const VERSION = 1

const failure = (error: unknown, what: string) => (error instanceof Error ? error : new Error(`IndexedDB: ${what} failed`))

/** The global `indexedDB`, or undefined outside a browser. */
export const globalIndexedDb = (): IdbFactory | undefined => (globalThis as { readonly indexedDB?: IdbFactory }).indexedDB

export class IndexedDbStore implements WalletStore {
  readonly #database: Promise<IdbDatabase>

  /** `name` is the IndexedDB database; `factory` defaults to the global `indexedDB`. */
  constructor(name = "confidential-wallet", factory: IdbFactory | undefined = globalIndexedDb()) {
    this.#database = new Promise((resolve, reject) => {
      if (factory === undefined) return reject(new Error("IndexedDB is not available here"))
      const request = factory.open(name, VERSION)
      request.onupgradeneeded = () => {
        if (!request.result.objectStoreNames.contains(OBJECT_STORE)) request.result.createObjectStore(OBJECT_STORE)
      }
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(failure(request.error, "open"))
      request.onblocked = () => reject(new Error("IndexedDB: open blocked by another tab holding an older version"))
    })
  }

  /** Runs one request in its own transaction; resolves when the transaction commits (a write is then durable). */
  async #run<T>(mode: "readonly" | "readwrite", make: (store: IdbObjectStore) => IdbRequest<T>): Promise<T> {
    const database = await this.#database
    return new Promise((resolve, reject) => {
      const transaction = database.transaction(OBJECT_STORE, mode)
      const request = make(transaction.objectStore(OBJECT_STORE))
      transaction.oncomplete = () => resolve(request.result)
      transaction.onerror = () => reject(failure(transaction.error ?? request.error, "request"))
      transaction.onabort = () => reject(failure(transaction.error, "transaction"))
    })
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const value = await this.#run("readonly", (store) => store.get(key))
    return value instanceof Uint8Array ? value.slice() : undefined
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.#run("readwrite", (store) => store.put(bytes.slice(), key))
  }

  async delete(key: string): Promise<void> {
    await this.#run("readwrite", (store) => store.delete(key))
  }

  async close(): Promise<void> {
    ;(await this.#database).close()
  }
}
