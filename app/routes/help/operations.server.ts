import { Marked } from 'marked'
// The guide as the build found it: the product serves its own copy, whatever is on the server's disk.
import guide from '../../../docs/operations.md?raw'

/** A heading's anchor: its words in lower case joined by hyphens ("Mail" → #mail, "Several instances" → #several-instances). */
export function anchorOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-')
}

const marked = new Marked({
  gfm: true,
  renderer: {
    heading({ tokens, depth }) {
      const inner = this.parser.parseInline(tokens)
      return `<h${depth + 1} id="${anchorOf(inner)}">${inner}</h${depth + 1}>\n`
    },
  },
})

let rendered: string | undefined

/**
 * docs/operations.md as HTML, rendered once. Our own document, not anyone's input, so its HTML is
 * trusted; its headings move one level down (the page's h1 is the screen's title) and get anchors.
 */
export function operationsGuideHtml(): string {
  rendered ??= marked.parse(guide.replace(/^# Operations guide\s*\n/, ''), { async: false })
  return rendered
}
