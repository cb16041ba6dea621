import { Effect } from "effect"
import type { Answer, ConformanceDocument, Operation } from "./ConformanceDocument.ts"
import { sendRaw } from "./ConformanceHttp.ts"
import type { Probe } from "./ConformanceVariants.ts"

export type Phase = "valid" | "invalid" | "rate limited" | "rpc down" | "database down"

export interface Finding {
  readonly operation: string
  readonly phase: Phase | "set-up"
  readonly kind: string
  readonly status: string
  readonly body: string
  /** Departures from the document: an undeclared status, a body or media type the declared response does not allow. */
  readonly problems: ReadonlyArray<string>
  /** Set when the status, though maybe declared, is not one a correct service gives to this request. */
  readonly expected?: string
}

/**
 * Findings as readable lines, one per kind of departure: the same request kind, answer and problems on several
 * operations are one line naming them all, with one body as a sample.
 */
export const describeFindings = (findings: ReadonlyArray<Finding>): ReadonlyArray<string> => {
  const groups = new Map<string, { readonly first: Finding; readonly operations: Array<string> }>()
  for (const f of findings) {
    const problems = f.problems.map((p) => p.replace(/ \(declared: [^)]*\)/, ""))
    const key = `[${f.phase}: ${f.kind}] → ${f.status}${f.expected === undefined ? "" : ` (expected ${f.expected})`}` +
      `${problems.length === 0 ? "" : `: ${problems.join("; ")}`}`
    const group = groups.get(key) ?? { first: f, operations: [] }
    group.operations.push(f.operation)
    groups.set(key, group)
  }
  return [...groups].map(([key, { first, operations }]) =>
    `  ${key}\n      ${operations.length === 1 ? operations[0] : `${operations.length} operations: ${operations.join(", ")}`}` +
    `${first.body === "" ? "" : `\n      body: ${first.body}`}`
  )
}

/** Every answer checked against the document as it arrives; every departure kept; which operation was exercised how. */
export const conformanceRecorder = (document: ConformanceDocument) => {
  const findings: Array<Finding> = []
  const exercised = new Map<string, Set<Phase>>()
  const statuses = new Map<Phase, Map<string, number>>()
  let requests = 0

  const record = (operation: Operation, phase: Phase, probe: Probe, answer: Answer) => {
    requests++
    exercised.set(operation.key, (exercised.get(operation.key) ?? new Set<Phase>()).add(phase))
    const problems = document.answerProblems(operation, answer)
    const status = answer._tag === "Answered" ? String(answer.status) : "none"
    const counts = statuses.get(phase) ?? new Map<string, number>()
    statuses.set(phase, counts.set(status, (counts.get(status) ?? 0) + 1))
    const surprise = probe.expect.length > 0 && !probe.expect.some((s) => String(s) === status)
    if (problems.length === 0 && !surprise) return
    findings.push({
      operation: operation.key,
      phase,
      kind: probe.kind,
      status,
      body: answer._tag === "Answered" ? answer.text.slice(0, 240) : "",
      problems,
      ...(surprise ? { expected: probe.expect.join(" or ") } : {})
    })
  }

  /** Sends the probe, records its answer and hands it back. */
  const send = (app: { readonly url: string }, operation: Operation, phase: Phase, probe: Probe) =>
    Effect.tap(sendRaw(app.url, probe.request), (answer) => record(operation, phase, probe, answer))

  const setUpFailed = (operation: string, kind: string, problem: string) =>
    findings.push({ operation, phase: "set-up", kind, status: "-", body: "", problems: [problem] })

  /** Operations of the document some phase did not reach. */
  const unexercised = (wanted: (operation: Operation) => ReadonlyArray<Phase>) =>
    document.operations.flatMap((o) => {
      const missing = wanted(o).filter((p) => !(exercised.get(o.key)?.has(p) ?? false))
      return missing.length === 0 ? [] : [`${o.key}: no ${missing.join(", ")} request`]
    })

  /** `phase: status×count ...` for each phase, to show what the requests met. */
  const tally = () =>
    [...statuses].map(([phase, counts]) => `${phase}: ${[...counts].sort().map(([s, n]) => `${s}×${n}`).join(" ")}`).join("; ")

  return { findings, send, setUpFailed, unexercised, tally, requests: () => requests } as const
}

export type ConformanceRecorder = ReturnType<typeof conformanceRecorder>
