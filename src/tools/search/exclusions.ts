/**
 * `paths.deny` globs as ripgrep `--glob '!…'` exclusions, so rg never opens a denied
 * file (a repository's `.gitignore` cannot bring one back: rg's globs win over
 * ignore files). Globs are relative to the workspace, rg's to the folder searched:
 * a glob that cannot be said from there is left out, and the caller's check of each
 * result (`readable`) still holds.
 */
import * as path from "node:path";

export function rgExclusions(
  denyGlobs: readonly string[],
  workspace: string,
  root: string,
): string[] {
  const out: string[] = [];
  const fromWorkspace = path.relative(workspace, root).split(path.sep).join("/");
  const inside = !fromWorkspace.startsWith("..") && !path.isAbsolute(fromWorkspace);
  for (const written of denyGlobs) {
    const glob = written.replaceAll("\\", "/").replace(/^(\.\/)+/, "").replace(/\/$/, "/**");
    if (glob === "") continue;
    if (!glob.includes("/") || glob.startsWith("**/")) {
      out.push(`!${glob}`); // a name, or any depth: the same from every folder
    } else if (glob.startsWith("/")) {
      const rel = path.posix.relative(root.split(path.sep).join("/"), glob);
      if (!rel.startsWith("..")) out.push(`!/${rel}`);
    } else if (inside && fromWorkspace === "") {
      out.push(`!/${glob}`);
    } else if (inside && glob.startsWith(`${fromWorkspace}/`)) {
      out.push(`!/${glob.slice(fromWorkspace.length + 1)}`);
    }
  }
  return out;
}
