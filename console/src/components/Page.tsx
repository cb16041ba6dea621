import { type ReactNode, useEffect, useRef } from "react"

/**
 * One page: its title in the tab, and its heading, which takes the focus when the page opens, so that a keyboard or
 * screen-reader user starts at the top of what changed.
 */
export const Page = ({ title, actions, children }: { readonly title: string; readonly actions?: ReactNode; readonly children: ReactNode }) => {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${title} · Payroll console`
    heading.current?.focus({ preventScroll: true })
  }, [title])
  return (
    <section className="page" aria-labelledby="page-title">
      <div className="page__head">
        <h1 className="page__title" id="page-title" ref={heading} tabIndex={-1}>{title}</h1>
        {actions === undefined ? null : <div className="page__actions">{actions}</div>}
      </div>
      {children}
    </section>
  )
}

export const Section = ({ title, id, children }: { readonly title: string; readonly id: string; readonly children: ReactNode }) => (
  <section className="section" aria-labelledby={id}>
    <h2 className="section__title" id={id}>{title}</h2>
    {children}
  </section>
)
