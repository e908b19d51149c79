/** A stored blob as a download answers it: its key, type, hash (the ETag) and the file name offered. */
export type ServedBlob = { key: string; contentType: string; sha256: string; fileName: string }
