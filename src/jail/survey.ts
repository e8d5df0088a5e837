/**
 * Before a Linux jail is built, mopac must know what exists outside the places
 * Deno lets it read: which credential stores are in HOME, which Unix sockets a
 * command could connect to, what lies under an absolute `paths.deny` glob. mopac's
 * own Deno permissions are narrow on purpose, so it asks bubblewrap instead: one
 * bwrap start with the jail's namespaces (this is also the probe that the jail
 * works here) runs a short bash script that reports kinds and sockets.
 */

/** What a path is; links are reported but never mounted over (the mount would land on the target). */
export type Kind = "file" | "dir" | "socket" | "link";

export interface SurveyRequest {
  /** Report the kind of each of these that exists. */
  paths: string[];
  /** Report every file, folder and socket below each, down to `depth`. */
  walk: Array<{ dir: string; depth: number }>;
  /** Report Unix sockets below each, down to `depth`, skipping bulky cache folders. */
  sockets: Array<{ dir: string; depth: number }>;
}

export interface SurveyResult {
  kinds: Map<string, Kind>;
}

/** Most entries one walk reports: a bound on the time and the mounts it can cause. */
export const WALK_LIMIT = 20_000;

/** Folders of HOME that hold caches and toolchains, never agent sockets. */
const SOCKET_PRUNE = [
  "node_modules",
  ".cache",
  ".npm",
  ".cargo",
  ".rustup",
  ".pyenv",
  ".nvm",
  ".deno",
  "go",
  ".gradle",
  ".m2",
  ".git",
];

/**
 * bash's arguments: the script, then `P path`, `W depth dir`, `S depth dir` groups.
 * Output: `<f|d|s> <path>` records separated by NUL (paths may hold newlines).
 */
export function surveyScript(req: SurveyRequest, requireCommands: string[] = []): string[] {
  const prune = SOCKET_PRUNE.map((n) => `-name ${n}`).join(" -o ");
  const script = [
    // Exit 3 names a program the jail needs and does not have.
    ...requireCommands.map((c) =>
      `command -v ${c} >/dev/null || { echo "mopac-survey: missing ${c}" >&2; exit 3; }`
    ),
    `out() { printf '%s %s\\0' "$1" "$2"; }`,
    `while [ $# -gt 0 ]; do case "$1" in`,
    `P) p=$2; if [ -S "$p" ]; then out s "$p"; elif [ -d "$p" ]; then out d "$p";` +
    ` elif [ -e "$p" ]; then out f "$p"; fi; shift 2;;`,
    `W) find "$3" -mindepth 1 -maxdepth "$2" \\( -type d -printf 'd %p\\0' \\) -o` +
    ` \\( -type s -printf 's %p\\0' \\) -o \\( -type l -printf 'l %p\\0' \\) -o -printf 'f %p\\0'` +
    ` 2>/dev/null | head -z -n ${WALK_LIMIT}; shift 3;;`,
    `S) find "$3" -xdev -maxdepth "$2" \\( ${prune} \\) -prune -o -type s -printf 's %p\\0'` +
    ` 2>/dev/null | head -z -n ${WALK_LIMIT}; shift 3;;`,
    `*) shift;; esac; done; exit 0`,
  ].join("\n");
  const args = ["-c", script, "mopac-survey"];
  for (const p of req.paths) args.push("P", p);
  for (const w of req.walk) args.push("W", String(w.depth), w.dir);
  for (const s of req.sockets) args.push("S", String(s.depth), s.dir);
  return args;
}

export function parseSurvey(out: Uint8Array): SurveyResult {
  const kinds = new Map<string, Kind>();
  const text = new TextDecoder().decode(out);
  for (const record of text.split("\0")) {
    const kind: Kind = record[0] === "s"
      ? "socket"
      : record[0] === "d"
      ? "dir"
      : record[0] === "l"
      ? "link"
      : "file";
    if (record.length < 3 || record[1] !== " ") continue;
    kinds.set(record.slice(2), kind);
  }
  return { kinds };
}
