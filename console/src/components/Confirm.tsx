import { Button } from "@stellar/design-system"
import { type ReactNode, useEffect, useRef, useState } from "react"

/** A second, explicit step before something that cannot be undone; the focus moves to it and back. */
export const Confirm = ({ question, confirmLabel, onConfirm, children }: {
  readonly question: string
  readonly confirmLabel: string
  readonly onConfirm: () => void
  readonly children: (ask: () => void) => ReactNode
}) => {
  const [asking, setAsking] = useState(false)
  const group = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (asking) group.current?.querySelector("button")?.focus()
  }, [asking])
  if (!asking) return <>{children(() => setAsking(true))}</>
  return (
    <div className="confirm" role="group" aria-label={question} ref={group}>
      <span>{question}</span>
      <Button
        variant="destructive"
        size="md"
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        {confirmLabel}
      </Button>
      <Button variant="tertiary" size="md" onClick={() => setAsking(false)}>Keep it</Button>
    </div>
  )
}
