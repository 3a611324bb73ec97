/**
 * Text files must be UTF-8 (or ASCII). A UTF-16 file — what Excel's "Unicode text" and PowerShell's `>` write —
 * read as UTF-8 has a NUL byte beside every ASCII character, and the readers' messages printed those NULs
 * (issue 15). `utf16Problem` recognises it from the first bytes so the reader can say what to do instead.
 */

/** How many leading bytes are inspected. */
const SNIFF_BYTES = 4096;

/**
 * Why `head` (a file's first bytes) is not UTF-8 text, or null: a UTF-16 byte-order mark, or NUL bytes (UTF-16
 * without one, or a binary file). The message completes "<file> ...".
 */
export function utf16Problem(head: Uint8Array): string | null {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe)
    return 'looks like UTF-16 (little-endian byte-order mark FF FE); save it as UTF-8';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff)
    return 'looks like UTF-16 (big-endian byte-order mark FE FF); save it as UTF-8';
  const end = Math.min(head.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    if (head[i] === 0)
      return `has a NUL byte at byte ${i}: it looks like UTF-16 or a binary file; save it as UTF-8 text`;
  }
  return null;
}

/** The length of a UTF-8 byte-order mark (EF BB BF) at the start of `head`: 3 or 0. */
export function utf8BomLength(head: Uint8Array): number {
  return head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
}

export { SNIFF_BYTES };
