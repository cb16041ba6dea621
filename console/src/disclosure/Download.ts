/** Offers `text` as a file download named `name` (nothing is sent anywhere). */
export const download = (name: string, text: string) => {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }))
  const a = document.createElement("a")
  a.href = url
  a.download = name
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 1_000)
}

/** The text of a file the user picked. */
export const fileText = (input: HTMLInputElement): Promise<string | undefined> => input.files?.[0]?.text() ?? Promise.resolve(undefined)
