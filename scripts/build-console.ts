// Builds the web console (console/, React + Vite) into dist/console/, which the service serves at /app
// (src/Console/ConsoleRoute.ts): index.html and content-hashed files under assets/. Run by `npm install` (prepare) and
// `npm run build`. Without Vite (an install without dev dependencies) nothing is built, and /app says so.
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

let vite: typeof import("vite")
try {
  vite = await import("vite")
} catch {
  console.warn("build-console: vite is not installed; the service answers /app with 501 until the console is built")
  process.exit(0)
}

// React's production build whoever runs this (vitest sets NODE_ENV=test, which would bundle React's development build).
process.env.NODE_ENV = "production"
const started = performance.now()
await vite.build({ configFile: Path.join(root, "console", "vite.config.ts"), mode: "production" })
console.log(`build-console: dist/console in ${Math.round(performance.now() - started)} ms`)
