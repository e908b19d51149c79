/**
 * What a production page needs to start (app/lib/first-paint.server.ts): the scripts React Router's
 * bootstrap imports after the first frame (the route modules and their shared chunks, fetched at
 * once) and the entry module it preloads. Every other script is fetched later, on the screen's own
 * (deferred forms, islands when idle). `<head>` names none of them: its module preloads are taken
 * out, so a page's scripts are read from the bootstrap.
 */
export function bootstrapScripts(html: string): Set<string> {
  const bootstrap = /<script[^>]+type="module"[^>]*>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? ''
  return new Set([...bootstrap.matchAll(/(?:import\(|rel: "modulepreload", href: )"(\/assets\/[^"]+\.js)"/g)].map((m) => m[1] ?? ''))
}

/** The stylesheet inlined into `<head>` (decision 007), empty when the page links its CSS instead. */
export function inlineStylesheet(html: string): string {
  return /<style[^>]*>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? ''
}
