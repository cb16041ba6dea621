import type { Server } from "node:http"
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { errorBody } from "./ErrorBody.ts"

/**
 * Requests Node's parser refuses (malformed HTTP, a head over 16 KiB, a head not received in time) never reach the
 * app: Node answers them itself with an empty body. This answers them as the app answers: JSON `{_tag, error}`, the
 * error the API declares for that status on every operation.
 * Call once on the process's HTTP server (src/Server/Launch.ts).
 */
export const answerMalformedRequests = (server: Server) =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
    if (error.code === "ECONNRESET" || !socket.writable || started) return void socket.destroy()
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400
    const body = JSON.stringify(errorBody(status))
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
    )
  })
