/** A QR code the server drew as SVG (app/lib/qr.server.ts): shown as one image with a name, scaled to its box. */
export function QrCode({ svg, label }: { svg: string; label: string }) {
  return <div role="img" aria-label={label} className="size-48 shrink-0 bg-white" dangerouslySetInnerHTML={{ __html: svg }} />
}
