import { Data } from "effect"

/** Stellar RPC could not be reached, or answered something this client cannot read (SDK.md §9: a transport failure). */
export class ChainUnavailable extends Data.TaggedError("ChainUnavailable")<{ readonly message: string; readonly cause?: unknown }> {}
