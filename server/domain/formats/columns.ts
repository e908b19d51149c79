/** A column of an exported table: its header, its width in an XLSX sheet, and how a row gives its cell. */
export type ExportColumn<T> = { header: string; width: number; value: (row: T) => string | number }
