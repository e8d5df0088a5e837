/**
 * Which ban of the list (shell_ban_list.ts) applies to one command: by its name,
 * then, for commands banned only with certain arguments (global installs, rsync to
 * a remote host, `rm -r /`, …; shell_ban_args.ts), by what its arguments mean. An
 * argument known only at run time counts against the command where it could be the
 * banned one.
 */
import type { ShellAccess, ShellCommand } from "./types.ts";
import { type BanEntry, banGroup, bannedName } from "./shell_ban_list.ts";
import { ARG_RULES } from "./shell_ban_args.ts";
import type { CwdCandidates } from "./shell_ban_paths.ts";
import { commandName } from "./command_name.ts";

export { commandName };

/** What the script says around one command: its variables and the folders it may be in. */
export interface BanContext {
  env: ReadonlyMap<string, string>;
  cwds: CwdCandidates;
}

const NO_CONTEXT: BanContext = { env: new Map(), cwds: { dirs: [], home: false, unknown: false } };

/** The context of a whole script: every variable it sets, every folder `cd` may take it to. */
export function banContext(access: ShellAccess): BanContext {
  const env = new Map<string, string>();
  const all = [...access.assignments, ...access.commands.flatMap((c) => c.assigns ?? [])];
  for (const a of all) if (a.name !== undefined) env.set(a.name, a.value);
  const targets = access.cd.targets;
  const dirs = access.cwds ?? targets.filter((t) => t.startsWith("/"));
  return {
    env,
    cwds: {
      dirs,
      home: targets.some((t) => t.startsWith("~")),
      unknown: access.cd.unknown ||
        (access.cwds === undefined && targets.some((t) => !/^[/~]/.test(t))),
    },
  };
}

/** The ban that applies to one command, with the words that triggered it. */
export function banOf(
  cmd: ShellCommand,
  context: BanContext = NO_CONTEXT,
): { entry: BanEntry; what: string } | undefined {
  const argv0 = cmd.argv[0] ?? "";
  if (/^\/dev\/(tcp|udp)\//.test(argv0)) return { entry: banGroup("network"), what: argv0 };
  const name = commandName(argv0);
  const byName = bannedName(name);
  if (byName) return { entry: byName, what: name };
  const env = new Map(context.env);
  for (const a of cmd.assigns ?? []) if (a.name !== undefined) env.set(a.name, a.value);
  const input = {
    argv: cmd.argv,
    dynamic: new Set(cmd.dynamic_args ?? []),
    appended: cmd.appended === true,
    env,
    cwds: context.cwds,
  };
  for (const rule of ARG_RULES) {
    if (!rule.names.test(name)) continue;
    const what = rule.test(input);
    if (what) return { entry: banGroup(rule.group), what: `${name} ${what}` };
  }
  return undefined;
}
