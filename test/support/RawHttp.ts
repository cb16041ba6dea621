import { connect, type Socket } from "node:net"

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * One HTTP/1.1 connection kept alive by hand, so a test knows its requests travel on that very socket (an agent
 * would quietly open a new one). `send` answers `undefined` when the server closed the connection instead.
 */
export class KeptAlive {
  readonly #socket: Socket
  #buffer = Buffer.alloc(0)
  #closed = false
  #waiter: (() => void) | undefined

  private constructor(socket: Socket) {
    this.#socket = socket
    socket.on("data", (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#waiter?.()
    })
    const close = () => {
      this.#closed = true
      this.#waiter?.()
    }
    socket.on("close", close)
    socket.on("error", close)
  }

  static open(host: string, port: number): Promise<KeptAlive> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port }, () => resolve(new KeptAlive(socket)))
      socket.once("error", reject)
    })
  }

  get closed(): boolean {
    return this.#closed
  }

  async send(method: string, path: string, headers: Readonly<Record<string, string>> = {}): Promise<RawResponse | undefined> {
    if (this.#closed) return undefined
    const lines = [`${method} ${path} HTTP/1.1`, "host: 127.0.0.1", "connection: keep-alive"]
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
    this.#socket.write(`${lines.join("\r\n")}\r\n\r\n`)
    for (;;) {
      const parsed = this.#parse()
      if (parsed !== undefined) return parsed
      if (this.#closed) return undefined
      await new Promise<void>((resolve) => (this.#waiter = resolve))
      this.#waiter = undefined
    }
  }

  #parse(): RawResponse | undefined {
    const end = this.#buffer.indexOf("\r\n\r\n")
    if (end < 0) return undefined
    const [statusLine, ...headerLines] = this.#buffer.subarray(0, end).toString("latin1").split("\r\n")
    const headers: Record<string, string> = {}
    for (const line of headerLines) {
      const i = line.indexOf(":")
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
    }
    const length = Number(headers["content-length"] ?? 0)
    if (this.#buffer.length < end + 4 + length) return undefined
    const body = this.#buffer.subarray(end + 4, end + 4 + length).toString("utf8")
    this.#buffer = this.#buffer.subarray(end + 4 + length)
    return { status: Number(statusLine!.split(" ")[1]), headers, body }
  }

  close(): void {
    this.#socket.destroy()
  }
}
