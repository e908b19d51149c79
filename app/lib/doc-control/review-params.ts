/** The address parameter of the template chosen for "Start review" on a document's page. */
export const REVIEW_TEMPLATE_PARAM = 'reviewTemplate'
