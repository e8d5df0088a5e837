/**
 * The shell policy applied to the commands the bash tool found in a script
 * (src/tools/shell/parse.ts): the built-in ban list that no profile can lift
 * (shell_ban_list.ts), then a profile's `bash.deny` and `bash.allow` patterns.
 * Order of checks:
 *   unparsable script → dynamic command name → ban list → deny patterns → allow patterns.
 */
import type { Decision, ShellAccess } from "./types.ts";
import { banOf, commandName } from "./shell_ban_check.ts";

const words = (list: string): string[] => list.split(" ");

export interface ShellRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

/**
 * Builtins that run no program; a profile's `bash.allow` does not need to list
 * them (`cd src && npm test` is allowed by "npm test"). Deny patterns still apply.
 */
const NEUTRAL = new Set(words(
  "cd pushd popd dirs pwd echo printf true false : test [ exit return shift set unset " +
    "wait sleep read type",
));

export function checkShell(access: ShellAccess, rules: ShellRules = {}): Decision {
  if (access.parse_error !== undefined) {
    return deny(
      "bash.parse",
      `the command could not be parsed (${access.parse_error}), so it cannot be checked`,
    );
  }
  for (const cmd of access.commands) {
    if (cmd.dynamic) {
      return deny(
        "bash.dynamic",
        `the command name in \`${cmd.text}\` is only known at run time (${cmd.argv[0] ?? ""}); ` +
          "write the command name literally",
      );
    }
  }
  for (const cmd of access.commands) {
    const ban = banOf(cmd);
    if (ban) {
      return deny(
        `ban:${ban.entry.group}`,
        `\`${ban.what}\` is banned (${ban.entry.why}); in \`${cmd.text}\``,
      );
    }
  }
  for (const pattern of rules.deny ?? []) {
    const cmd = access.commands.find((c) => matchesPattern(pattern, c.argv, true));
    if (cmd) {
      return deny(`bash.deny:${pattern}`, `\`${cmd.text}\` matches the deny pattern "${pattern}"`);
    }
  }
  if (rules.allow !== undefined) {
    for (const cmd of access.commands) {
      if (NEUTRAL.has(cmd.argv[0])) continue;
      if (rules.allow.some((p) => matchesPattern(p, cmd.argv, false))) continue;
      const list = rules.allow.length ? rules.allow.map((p) => `"${p}"`).join(", ") : "none";
      return deny(
        "bash.allow",
        `\`${cmd.text}\` matches no allowed command pattern (allowed: ${list})`,
      );
    }
  }
  return { allow: true };
}

function deny(rule: string, reason: string): Decision {
  return { allow: false, rule, reason };
}

/**
 * A `bash.allow`/`bash.deny` pattern against one command. Patterns are prefixes of
 * the command's words: "npm test" matches `npm test --watch`; `*` and `?` are globs
 * inside a word ("npm run lint*" matches `npm run lint:fix`); a trailing `*` word
 * or `:*` also matches no further words; "*" alone matches everything. Deny
 * patterns also match the command's basename (`/usr/bin/git push` is `git push`).
 */
export function matchesPattern(
  pattern: string,
  argv: readonly string[],
  byBasename: boolean,
): boolean {
  const tokens = pattern.trim().replace(/:\*$/, "").split(/\s+/).filter(Boolean);
  if (tokens.length === 0) return false;
  if (tokens.length === 1 && tokens[0] === "*") return true;
  while (tokens.length > 1 && tokens[tokens.length - 1] === "*") tokens.pop();
  if (argv.length < tokens.length) return false;
  return tokens.every((t, i) => {
    const re = globToRegExp(t);
    if (re.test(argv[i])) return true;
    return i === 0 && byBasename && re.test(commandName(argv[0]));
  });
}

const globCache = new Map<string, RegExp>();
function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(
      /\?/g,
      "[\\s\\S]",
    );
    re = new RegExp(`^${body}$`);
    globCache.set(glob, re);
  }
  return re;
}
