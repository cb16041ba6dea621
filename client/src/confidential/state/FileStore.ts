// A WalletStore in a directory (Node only: the browser entry must not import this file). One file per key, written
// to a temporary file, flushed, then renamed over the old one, so a crash leaves the old state or the new, never half.
import { mkdir, open, readFile, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import type { WalletStore } from "./Store.ts"

const isMissing = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

export class FileStore implements WalletStore {
  readonly #directory: string

  /** `directory` is created (owner-only) on the first write. */
  constructor(directory: string) {
    this.#directory = directory
  }

  /** The key percent-encoded, so that no key names a path outside the directory ("/" and "\" are escaped). */
  #path(key: string): string {
    return join(this.#directory, `${encodeURIComponent(key)}.sealed`)
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.#path(key)))
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await mkdir(this.#directory, { recursive: true, mode: 0o700 })
    const path = this.#path(key)
    const temporary = `${path}.${crypto.randomUUID()}.tmp`
    const file = await open(temporary, "w", 0o600)
    try {
      await file.writeFile(bytes)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, path)
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true })
  }
}
