import { Button } from "@stellar/design-system"
import { useState } from "react"

/** Copies `text`; says so (to screen readers too), or says why it could not. */
export const CopyButton = ({ text, label }: { readonly text: string; readonly label: string }) => {
  const [said, setSaid] = useState("")
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setSaid("Copied."),
      () => setSaid("The browser refused to copy: select the text and copy it by hand.")
    )
  return (
    <span className="row">
      <Button variant="secondary" size="sm" type="button" onClick={() => void copy()}>{label}</Button>
      <span className="muted small" role="status">{said}</span>
    </span>
  )
}
