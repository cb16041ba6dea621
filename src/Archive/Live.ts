import { Layer } from "effect"

/** The archive's services and workers, wired into the service by src/App.ts (skeleton). */
export const ArchiveLive = Layer.empty
