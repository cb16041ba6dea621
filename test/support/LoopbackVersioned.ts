/** A value written as of a ledger: what a simulation or a transaction reads as of its own ledger. */
export class Versioned<A> {
  readonly #versions: Array<{ ledger: number; value: A }> = []
  readonly #initial: A
  constructor(initial: A) {
    this.#initial = initial
  }
  write(value: A, ledger: number): void {
    this.#versions.push({ ledger, value })
  }
  at(ledger: number): A {
    for (let i = this.#versions.length - 1; i >= 0; i--) {
      const version = this.#versions[i]!
      if (version.ledger <= ledger) return version.value
    }
    return this.#initial
  }
}
