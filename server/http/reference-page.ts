import { createHash } from 'node:crypto'
import type { OpenApiDocument, OpenApiOperation } from './openapi'

/**
 * A readable reference of the OpenAPI document: one server-rendered page, no script, grouped by
 * area. Schemas are shown as the JSON Schema the document holds, so the page cannot say anything
 * the contract does not.
 */

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#0b1220}
h1{font-size:1.6rem}h2{border-bottom:1px solid #d0d7de;margin-top:2rem}h3{font-size:1rem;margin:1.5rem 0 .25rem}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:24rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700}table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left}
nav a{margin-right:.75rem}`

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

/** The page's own CSP: nothing but its one inline stylesheet. */
export const REFERENCE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

function json(value: unknown): string {
  return `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`
}

function renderOperation(method: string, path: string, op: OpenApiOperation): string {
  const params = op.parameters.length
    ? `<table><tr><th>Name</th><th>In</th><th>Required</th><th>Schema</th></tr>${op.parameters
        .map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escape(JSON.stringify(p.schema))}</code></td></tr>`)
        .join('')}</table>`
    : ''
  const body = op.requestBody
    ? `<p>Body: ${escape(op.requestBody.description ?? '')}</p>${Object.entries(op.requestBody.content)
        .map(([type, content]) => `<p><code>${escape(type)}</code></p>${json(content.schema)}`)
        .join('')}`
    : ''
  const answers = `<ul>${Object.entries(op.responses)
    .map(([status, response]) => `<li><strong>${escape(status)}</strong> ${escape(response.description)}</li>`)
    .join('')}</ul>`
  const access = op.security.length ? 'signed in' : 'public'
  return `<section id="${escape(op.operationId)}"><h3><span class="m">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary)} <em>(${access})</em></p>${op.description ? `<p>${escape(op.description)}</p>` : ''}${params}${body}${answers}</section>`
}

export function renderReferencePage(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>()
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags[0] ?? 'Other'
      const list = byTag.get(tag) ?? []
      list.push(renderOperation(method, path, op))
      byTag.set(tag, list)
    }
  }
  const tags = [...byTag.keys()]
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(document.info.title)} ${escape(document.info.version)}</title><style>${STYLE}</style></head><body>
<h1>${escape(document.info.title)} <small>${escape(document.info.version)}</small></h1><p>${escape(document.info.description)}</p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>
<nav>${tags.map((tag) => `<a href="#${escape(tag)}">${escape(tag)}</a>`).join('')}</nav>
${tags.map((tag) => `<h2 id="${escape(tag)}">${escape(tag)}</h2>${(byTag.get(tag) ?? []).join('\n')}`).join('\n')}
<h2 id="problem">Problem details</h2>${json(document.components.schemas.Problem)}</body></html>`
}
