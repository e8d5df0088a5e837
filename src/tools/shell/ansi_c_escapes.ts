/**
 * The one-letter escapes of bash's `$'…'` quoting, shared by the policy's reading of
 * commands (words.ts) and the reading of `export -p` (export_listing.ts). Octal, hex,
 * `\u`, `\U` and `\c` escapes are decoded by each, as each needs bytes or characters.
 */
export const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};
