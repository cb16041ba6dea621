// What @effect/cli asks of its platform (CliApp.Environment: FileSystem, Path, Terminal), from @effect/platform alone:
// @effect/platform-node would bring the cluster's and the RPC's packages (its peers) and a native file watcher into
// every consumer of the client package for a help screen. The CLI reads no files through @effect/cli and asks nothing
// interactively (no wizard): the file system is a no-op and the terminal only writes.
import { FileSystem, Path, Terminal } from "@effect/platform"
import { Effect, Layer, Mailbox } from "effect"

const terminal: Terminal.Terminal = {
  columns: Effect.sync(() => process.stdout.columns ?? 100),
  rows: Effect.sync(() => process.stdout.rows ?? 40),
  isTTY: Effect.sync(() => process.stdout.isTTY === true),
  readInput: Effect.flatMap(Mailbox.make<Terminal.UserInput>(), (mailbox) => Effect.as(mailbox.end, mailbox)),
  readLine: Effect.fail(new Terminal.QuitException()),
  display: (text) => Effect.sync(() => {
    process.stdout.write(text)
  })
}

export const CliEnvironment = Layer.mergeAll(FileSystem.layerNoop({}), Path.layer, Layer.succeed(Terminal.Terminal, terminal))
