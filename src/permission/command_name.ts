/** The name policies compare: basename, lower case (case-insensitive file systems), no `.exe`. */
export function commandName(argv0: string): string {
  return argv0.slice(argv0.lastIndexOf("/") + 1).toLowerCase().replace(/\.exe$/, "");
}
