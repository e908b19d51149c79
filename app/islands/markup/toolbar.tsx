import { cx } from '~/components/ui/class-names'
import { COLOURS, STROKE_WIDTHS, TOOLS, type Tool } from './model'

/** Literal classes, so Tailwind generates them (no inline styles under the CSP). */
const SWATCH: Record<string, string> = {
  '#e11d48': 'bg-[#e11d48]',
  '#facc15': 'bg-[#facc15]',
  '#2563eb': 'bg-[#2563eb]',
  '#16a34a': 'bg-[#16a34a]',
  '#111827': 'bg-[#111827]',
  '#ffffff': 'bg-[#ffffff]',
}

const choice =
  'inline-flex min-h-11 cursor-pointer items-center justify-center gap-2 rounded-md border border-border-strong bg-surface px-3 text-sm font-medium text-text has-checked:border-primary has-checked:bg-primary has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-primary'

export type ToolbarProps = {
  tool: Tool
  colour: string
  strokeWidth: number
  onTool(tool: Tool): void
  onColour(colour: string): void
  onStrokeWidth(width: number): void
}

/** Tool, colour and stroke width: native radio groups, so keyboards and screen readers know them. */
export function MarkupToolbar({ tool, colour, strokeWidth, onTool, onColour, onStrokeWidth }: ToolbarProps) {
  return (
    <div className="flex flex-wrap gap-x-6 gap-y-3">
      <fieldset className="flex flex-wrap items-center gap-2">
        <legend className="mb-1 text-sm font-semibold text-text">Tool</legend>
        {TOOLS.map((t) => (
          <label key={t.tool} className={choice}>
            <input type="radio" name="markup-tool" className="sr-only" value={t.tool} checked={tool === t.tool} onChange={() => onTool(t.tool)} />
            {t.label}
          </label>
        ))}
      </fieldset>
      <fieldset className="flex flex-wrap items-center gap-2">
        <legend className="mb-1 text-sm font-semibold text-text">Colour</legend>
        {COLOURS.map((c) => (
          <label key={c.value} className={cx(choice, 'px-2')} title={c.name}>
            <input type="radio" name="markup-colour" className="sr-only" value={c.value} checked={colour === c.value} onChange={() => onColour(c.value)} aria-label={c.name} />
            <span aria-hidden="true" className={cx('block size-6 rounded-full border border-border-strong', SWATCH[c.value])} />
          </label>
        ))}
      </fieldset>
      <fieldset className="flex flex-wrap items-center gap-2">
        <legend className="mb-1 text-sm font-semibold text-text">Line width</legend>
        {STROKE_WIDTHS.map((w) => (
          <label key={w.value} className={choice}>
            <input type="radio" name="markup-width" className="sr-only" value={w.value} checked={strokeWidth === w.value} onChange={() => onStrokeWidth(w.value)} />
            {w.name}
          </label>
        ))}
      </fieldset>
    </div>
  )
}
