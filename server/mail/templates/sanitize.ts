/**
 * The HTML body an administrator writes is a fragment of simple formatting. Before it goes into a
 * mail (or the preview), every tag outside a short allow-list is removed, scripts and styles with
 * their content, every attribute but a link's href and title, and links other than http(s),
 * mailto, relative and #anchors. Text is left as it is; a stray `<` becomes `&lt;`.
 */

const ALLOWED = new Set(['p', 'br', 'a', 'ul', 'ol', 'li', 'strong', 'b', 'em', 'i', 'u', 's', 'h1', 'h2', 'h3', 'h4', 'blockquote', 'hr', 'span', 'div', 'code', 'pre', 'small'])
const VOID = new Set(['br', 'hr'])
/** Removed with everything inside them. */
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'style',
  'iframe',
  'object',
  'embed',
  'template',
  'noscript',
  'svg',
  'math',
  'textarea',
  'select',
  'title',
  'head',
  'frameset',
  'noembed',
  'xmp',
])
const ATTRIBUTES: Record<string, readonly string[]> = { a: ['href', 'title'] }

const TAG_START = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/y
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g

export function sanitizeHtml(html: string): string {
  let out = ''
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    if (lt === -1) {
      out += html.slice(i)
      break
    }
    out += html.slice(i, lt)
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4)
      i = end === -1 ? html.length : end + 3
      continue
    }
    TAG_START.lastIndex = lt
    const start = TAG_START.exec(html)
    if (!start) {
      // `<!doctype`, `<?xml`, `< 5`: not a tag we keep.
      if (html[lt + 1] === '!' || html[lt + 1] === '?') {
        const end = html.indexOf('>', lt)
        i = end === -1 ? html.length : end + 1
      } else {
        out += '&lt;'
        i = lt + 1
      }
      continue
    }
    const closing = start[1] === '/'
    const name = (start[2] ?? '').toLowerCase()
    const end = tagEnd(html, TAG_START.lastIndex)
    const attributes = html.slice(TAG_START.lastIndex, end === -1 ? html.length : end)
    i = end === -1 ? html.length : end + 1
    if (DROPPED_WITH_CONTENT.has(name)) {
      if (!closing) i = afterClosing(html, name, i)
      continue
    }
    if (!ALLOWED.has(name)) continue
    if (closing) {
      if (!VOID.has(name)) out += `</${name}>`
      continue
    }
    out += `<${name}${keptAttributes(name, attributes)}>`
  }
  return out
}

/** The `>` that ends a tag, skipping quoted attribute values. */
function tagEnd(html: string, from: number): number {
  let quote: string | null = null
  for (let j = from; j < html.length; j++) {
    const ch = html[j]
    if (quote) {
      if (ch === quote) quote = null
    } else if (ch === '"' || ch === "'") quote = ch
    else if (ch === '>') return j
  }
  return -1
}

function afterClosing(html: string, name: string, from: number): number {
  const match = new RegExp(`</${name}\\s*>`, 'i').exec(html.slice(from))
  return match ? from + match.index + match[0].length : html.length
}

function keptAttributes(tag: string, raw: string): string {
  const allowed = ATTRIBUTES[tag]
  if (!allowed) return ''
  let kept = ''
  for (const match of raw.matchAll(ATTRIBUTE)) {
    const name = (match[1] ?? '').toLowerCase()
    if (!allowed.includes(name) || kept.includes(` ${name}=`)) continue
    const value = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '')
    if (name === 'href' && !safeUrl(value)) continue
    kept += ` ${name}="${escapeHtml(value)}"`
  }
  return kept
}

/** http(s), mailto, a path on this site or an anchor; never javascript:, data: and the like. */
export function safeUrl(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- browsers ignore these inside a scheme, so must we
  const compact = value.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase()
  if (compact.startsWith('//')) return false
  return /^(https?:|mailto:)/.test(compact) || compact.startsWith('/') || compact.startsWith('#') || !/^[^/?#]*:/.test(compact)
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", colon: ':', tab: '\t', newline: '\n', sol: '/', nbsp: '\u00a0' }

export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ''
    }
    return NAMED[body.toLowerCase()] ?? whole
  })
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}
