/** Set when this device signs out; the next page deletes that owner's offline copy (forget.ts). Its own module, so the root loads nothing else of sync. */
export const FORGET_KEY = 'sp.sync.forget'
