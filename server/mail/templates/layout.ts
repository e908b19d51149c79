import { escapeHtml, safeUrl } from './sanitize'

/**
 * The responsive frame around every HTML mail, written in MJML (a well-kept library for markup
 * that renders in common mail clients, instead of hand-written tables). It is compiled once, with
 * placeholders; each mail then only substitutes its subject, header, body and footer, so queueing
 * a mail never runs the MJML compiler.
 */
const SLOTS = { title: '%%SP_TITLE%%', preview: '%%SP_PREVIEW%%', site: '%%SP_SITE%%', body: '%%SP_BODY%%', footer: '%%SP_FOOTER%%' } as const

const SOURCE = `<mjml>
  <mj-head>
    <mj-title>${SLOTS.title}</mj-title>
    <mj-preview>${SLOTS.preview}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" />
      <mj-text font-size="15px" line-height="1.5" color="#0B1220" />
    </mj-attributes>
    <mj-style>
      a { color: #2F6FED; }
      blockquote { margin: 0 0 12px; padding: 8px 12px; border-left: 3px solid #D0D7E2; color: #3A4556; white-space: pre-line; }
      p { margin: 0 0 12px; }
      ul, ol { margin: 0 0 12px; padding-left: 20px; }
    </mj-style>
  </mj-head>
  <mj-body background-color="#F6F8FA" width="600px">
    <mj-section padding="24px 16px 8px">
      <mj-column>
        <mj-text font-size="18px" font-weight="600" color="#0B1220">${SLOTS.site}</mj-text>
      </mj-column>
    </mj-section>
    <mj-section background-color="#FFFFFF" border-radius="8px" padding="16px 8px">
      <mj-column>
        <mj-text>${SLOTS.body}</mj-text>
      </mj-column>
    </mj-section>
    <mj-section padding="8px 16px 24px">
      <mj-column>
        <mj-text font-size="12px" line-height="1.4" color="#5B6472">${SLOTS.footer}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`

let compiled: Promise<string> | undefined

/** The layout's HTML with its placeholders (compiled on first use, then kept). */
export function compiledLayout(): Promise<string> {
  compiled ??= (async () => {
    // Loaded here, at the first mail, not at the server's start (importing mjml with juice took 0.3 CPU-s).
    const { default: mjml2html } = await import('mjml')
    // mjml 5's mjml2html answers a promise.
    const result = await mjml2html(SOURCE, { validationLevel: 'strict', minify: false, fonts: {} })
    for (const slot of Object.values(SLOTS)) if (!result.html.includes(slot)) throw new Error(`mail layout: placeholder ${slot} lost in compilation`)
    return result.html
  })()
  compiled.catch(() => {
    compiled = undefined
  })
  return compiled
}

export type LayoutParts = { subject: string; siteName: string; organisationName: string; publicUrl: string; bodyHtml: string; preview: string }

/** A whole HTML document: the layout around the (already sanitised) body. Plain values are escaped here. */
export async function wrapInLayout(parts: LayoutParts): Promise<string> {
  const layout = await compiledLayout()
  const footer = [
    `Sent by ${escapeHtml(parts.siteName)}${parts.organisationName ? ` for ${escapeHtml(parts.organisationName)}` : ''}.`,
    parts.publicUrl && safeUrl(parts.publicUrl) ? `<a href="${escapeHtml(parts.publicUrl)}">${escapeHtml(parts.publicUrl)}</a>` : '',
  ]
    .filter(Boolean)
    .join('<br>')
  const values: Record<string, string> = {
    [SLOTS.title]: escapeHtml(parts.subject),
    [SLOTS.preview]: escapeHtml(parts.preview),
    [SLOTS.site]: escapeHtml(parts.siteName),
    [SLOTS.body]: parts.bodyHtml,
    [SLOTS.footer]: footer,
  }
  // One pass over the placeholders: a value that happens to contain a placeholder's text stays as it is.
  return layout.replace(/%%SP_[A-Z]+%%/g, (slot) => values[slot] ?? slot)
}
