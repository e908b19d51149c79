import { type ReactNode } from 'react'
import { CheckboxField, type CheckboxFieldProps } from '~/components/ui/checkbox-field'
import { FieldHelp } from '~/components/ui/field-parts'
import { PHOTO_HELP, PHOTO_UPLOAD_NOTE, SHRINK_HELP, SHRINK_LABEL } from './upload-field-text'

/**
 * The photo field's group, one layout for the plain field and the upload island that takes its
 * place: the island arrives when the page is idle or the person turns to the form, and if it were
 * laid out otherwise everything below would move under their finger (the close request's checkbox
 * was tapped as it moved and missed). What only script does, the upload note and the device's
 * shrink setting, is hidden where no script runs (`noscript:`, the scripting media feature).
 * `controls` are the file input or the island's pickers; their help is `${id}-help`.
 */
export function PhotoFieldGroup({ id, controls, shrinkInput }: { id: string; controls: ReactNode; shrinkInput: CheckboxFieldProps['inputProps'] }) {
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend id={`${id}-legend`} className="font-medium text-text">
        Photos (optional)
      </legend>
      <FieldHelp id={`${id}-help`}>
        {PHOTO_HELP}
        <span className="noscript:hidden"> {PHOTO_UPLOAD_NOTE}</span>
      </FieldHelp>
      {controls}
      {/* No name: the setting is the device's, not part of the form. */}
      <CheckboxField className="mt-1 noscript:hidden" label={SHRINK_LABEL} help={SHRINK_HELP} inputProps={{ id: `${id}-shrink`, ...shrinkInput }} />
    </fieldset>
  )
}
