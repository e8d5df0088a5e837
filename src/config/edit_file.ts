/**
 * Edits one key of a config file in place with jsonc-parser's edit API, so its
 * comments, order and formatting stay as the user wrote them (`mopac mcp add` and
 * `mcp remove` on the user's config file). The file is written whole to a sibling
 * and renamed over the old one, so a crash leaves the old file or the new one.
 */
import { dirname, join } from "node:path";
import { applyEdits, type FormattingOptions, modify } from "jsonc-parser";
import { ConfigError } from "../util/errors.ts";
import { type JsonPath, parseConfigText, type ParsedFile } from "./jsonc.ts";
import { userDirs } from "./paths.ts";

/** The user's config file: `$XDG_CONFIG_HOME/mopac/mopac.json` (default `~/.config/…`). */
export function userConfigFile(
  env: (name: string) => string | undefined,
  home?: string,
): string | undefined {
  const { configHome } = userDirs(env, home);
  return configHome ? join(configHome, "mopac", "mopac.json") : undefined;
}

/** The file as it is now; a missing file is an empty config. */
export async function readForEdit(file: string): Promise<ParsedFile> {
  let text = "";
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return parseConfigText(file, text);
}

/**
 * Sets `path` to `value` (or removes it when `value` is undefined) in `parsed`'s text
 * and writes the file, creating it and its folder when missing.
 */
export async function writeEdit(
  parsed: ParsedFile,
  path: JsonPath,
  value: unknown,
): Promise<void> {
  const base = parsed.text.trim() === "" ? "{}\n" : parsed.text;
  let text: string;
  try {
    text = applyEdits(base, modify(base, path, value, { formattingOptions: formatOf(base) }));
  } catch (err) {
    throw new ConfigError(`cannot edit ${parsed.file}: ${(err as Error).message}`, { cause: err });
  }
  parseConfigText(parsed.file, text); // never write what would not load
  await Deno.mkdir(dirname(parsed.file), { recursive: true });
  // A linked file (dotfiles) is edited where it lives, keeping the link and the file's mode.
  const target = await Deno.realPath(parsed.file).catch(() => parsed.file);
  const mode = (await Deno.stat(target).catch(() => undefined))?.mode ?? 0o600;
  const temp = `${target}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temp, text.endsWith("\n") ? text : `${text}\n`, { mode });
    await Deno.chmod(temp, mode & 0o7777);
    await Deno.rename(temp, target);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
}

/** Indentation as the file has it: the first indented line's, else two spaces. */
function formatOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return indent.startsWith("\t")
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}
