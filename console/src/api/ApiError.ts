/**
 * A failed call, in words for a person: the API's `{error}` when it answered one, else what went wrong on the way.
 * `tag` is the error's `_tag` (`Unauthorized`, `Conflict`, ...), as the contract declares it.
 */
export class ApiError extends Error {
  readonly tag: string
  constructor(tag: string, message: string) {
    super(message)
    this.tag = tag
  }
}

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
