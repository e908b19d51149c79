/** Field maxima of the reporting forms (the schemas in ~/lib/schemas/reporting-items apply them); apart so code without zod can use them (the service worker). */
export const ITEM_TITLE_MAX = 200
export const ITEM_DESCRIPTION_MAX = 5000
export const ITEM_LOCATION_MAX = 200
export const RESPONSE_BODY_MAX = 5000
export const VIEW_NAME_MAX = 80
/** The bulk call takes this many ids at most (a page of the list is far fewer). */
export const BULK_MAX = 100
