/** `~/` in a configured file path means the home folder, as it does in a shell. */
import { join } from "node:path";
import { readEnv } from "../../util/env.ts";

export function expandHome(path: string, home = readEnv("HOME")): string {
  if (!home) return path;
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}
