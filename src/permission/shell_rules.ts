/**
 * The shell policy applied to what the bash tool found in a script
 * (src/tools/shell/parse.ts): the built-in ban list that no profile can lift
 * (shell_ban_list.ts), then the rules every profile has, then a profile's
 * `bash.deny` and `bash.allow` patterns (shell_patterns.ts). Order of checks:
 *   unparsable script → dynamic command name → ban list → assignments to variables
 *   that change what runs → redirection targets the script does not spell out →
 *   deny patterns → (with an allow list) code bash builds from run-time text →
 *   allow patterns.
 */
import type { Decision, ShellAccess, ShellAssignment, ShellCommand } from "./types.ts";
import { banContext, banOf } from "./shell_ban_check.ts";
import { riskyVariable } from "./shell_variables.ts";
import { allowsAssignment, deniesCommand, matchesPattern, parsePattern } from "./shell_patterns.ts";

export { matchesPattern };

const words = (list: string): string[] => list.split(" ");

export interface ShellRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

/**
 * Builtins that run no program; a profile's `bash.allow` does not need to list
 * them (`cd src && npm test` is allowed by "npm test"). Deny patterns still apply,
 * and what they assign (`read PS4`, `printf -v PATH`) is checked like any assignment.
 */
const NEUTRAL = new Set(words(
  "cd pushd popd dirs pwd echo printf true false : test [ exit return shift set unset " +
    "wait sleep read type",
));

/** The ban list alone: what holds whatever the profile says. */
export function checkBans(access: ShellAccess): Decision {
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
  const context = banContext(access);
  for (const cmd of access.commands) {
    const ban = banOf(cmd, context);
    if (ban) {
      return deny(
        `ban:${ban.entry.group}`,
        `\`${ban.what}\` is banned (${ban.entry.why}); in \`${cmd.text}\``,
      );
    }
  }
  return { allow: true };
}

export function checkShell(access: ShellAccess, rules: ShellRules = {}): Decision {
  const banned = checkBans(access);
  if (!banned.allow) return banned;
  const assigned = checkAssignments(access, rules.allow ?? []);
  if (!assigned.allow) return assigned;
  const redirected = checkRedirects(access);
  if (!redirected.allow) return redirected;
  for (const pattern of rules.deny ?? []) {
    const cmd = access.commands.find((c) => deniesCommand(pattern, c.argv));
    if (cmd) {
      return deny(`bash.deny:${pattern}`, `\`${cmd.text}\` matches the deny pattern "${pattern}"`);
    }
  }
  if (rules.allow !== undefined) {
    const evaluated = checkEvaluations(access, rules.allow);
    if (!evaluated.allow) return evaluated;
    // Patterns that only allow assignments (`PATH=*`) allow no command.
    const commandPatterns = rules.allow.filter((p) => parsePattern(p).words.length > 0);
    for (const cmd of access.commands) {
      if (NEUTRAL.has(cmd.argv[0])) continue;
      if (commandPatterns.some((p) => matchesPattern(p, cmd.argv, false))) continue;
      const list = rules.allow.length ? rules.allow.map((p) => `"${p}"`).join(", ") : "none";
      return deny(
        "bash.allow",
        `\`${cmd.text}\` matches no allowed command pattern (allowed: ${list})`,
      );
    }
  }
  return { allow: true };
}

/**
 * An assignment to a variable that changes what runs (shell_variables.ts) needs an
 * allow pattern that names it, in every profile; so does one whose name is known
 * only at run time, which no pattern can name.
 */
function checkAssignments(access: ShellAccess, allow: readonly string[]): Decision {
  const risky = (a: ShellAssignment) => a.name === undefined || riskyVariable(a.name) !== undefined;
  const refuse = (a: ShellAssignment, cmd?: ShellCommand) =>
    deny(
      "bash.assign",
      (a.name === undefined
        ? `\`${a.text}\` sets a variable whose name is known only at run time`
        : `\`${a.text}\` sets ${a.name}, which changes what commands run`) +
        (cmd ? ` (for \`${cmd.text}\`)` : "") +
        `; it needs a bash.allow pattern naming it, e.g. "${a.name ?? "NAME"}=*"`,
    );
  for (const a of access.assignments) {
    if (risky(a) && !allow.some((p) => allowsAssignment(p, a))) return refuse(a);
  }
  for (const cmd of access.commands) {
    for (const a of cmd.assigns ?? []) {
      if (risky(a) && !allow.some((p) => allowsAssignment(p, a, cmd.argv))) return refuse(a, cmd);
    }
  }
  return { allow: true };
}

/**
 * An allow list promises that only the programs it names run. Bash also runs code it
 * builds from text it has at run time (a variable's value in arithmetic can hold
 * `a[$(cmd)]`; `${x@P}`; a subscript in a variable name), which no allow pattern can
 * see, so under an allow list such constructs are refused. A list with `*` (every
 * command) promises nothing of the kind: there, as under `coder`, they are not checked.
 */
function checkEvaluations(access: ShellAccess, allow: readonly string[]): Decision {
  const everything = allow.some((p) => {
    const words = parsePattern(p).words;
    return words.length === 1 && words[0] === "*";
  });
  const e = everything ? undefined : access.evaluations[0];
  if (!e) return { allow: true };
  return deny(
    "bash.eval",
    `in \`${e.text}\`, ${e.what}; under a bash.allow list bash may not build code from ` +
      "run-time text (use literal numbers, or a program the list allows)",
  );
}

/**
 * Redirections must spell out their file, so that the path rules can check it
 * (`> $f` could be `/dev/tcp/…` or a file outside the workspace); a relative one
 * after a `cd` whose target is known only at run time could be anywhere.
 */
function checkRedirects(access: ShellAccess): Decision {
  for (const r of access.redirects) {
    if (!r.static) {
      return deny(
        "bash.redirect",
        `the file of the redirection \`${r.text}\` is known only at run time; ` +
          "write the file name literally",
      );
    }
    if (access.cd.unknown && !r.target.startsWith("/")) {
      return deny(
        "bash.redirect",
        `the redirection \`${r.text}\` follows a cd whose target is known only at run time; ` +
          "use an absolute path or a literal cd",
      );
    }
  }
  return { allow: true };
}

function deny(rule: string, reason: string): Decision {
  return { allow: false, rule, reason };
}
