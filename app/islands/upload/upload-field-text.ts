/** Texts and classes the plain file input and the upload island share. */
export const PHOTO_HELP = 'JPEG, PNG, WebP, HEIC or HEIF, up to 50 MB each.'
/** What the island adds to PHOTO_HELP: said only where script runs. */
export const PHOTO_UPLOAD_NOTE = 'They upload while you write; a lost connection resumes by itself.'
export const SHRINK_LABEL = 'Shrink photos before upload (faster on a weak connection)'
export const SHRINK_HELP = 'JPEG and WebP photos are sent as JPEGs of at most 2048 pixels on the longest side. PNG, HEIC and HEIF photos are sent as they are. Remembered on this device.'
export const fileInputClasses =
  'block w-full text-sm text-text file:mr-3 file:min-h-11 file:cursor-pointer file:rounded-md file:border file:border-border-strong file:bg-surface file:px-4 file:font-medium file:text-text hover:file:bg-surface-muted'
