/** Profile patterns (`bash.allow` / `bash.deny`) and the ban list's shape. */
import assert from "node:assert/strict";
import { loadShellParser, parseShell } from "../../src/tools/shell/parse.ts";
import { checkShell, matchesPattern, type ShellRules } from "../../src/permission/shell_rules.ts";
import { BAN_LIST } from "../../src/permission/shell_ban_list.ts";
import { banOf } from "../../src/permission/shell_ban_check.ts";

// The full parser, for scripts that are not plain commands (shell/plain.ts).
await loadShellParser();

const check = (script: string, rules?: ShellRules) => checkShell(parseShell(script), rules);
const FIXER: ShellRules = {
  allow: ["npm test", "npm run lint*", "git diff*", "git status"],
  deny: ["git push*"],
};

Deno.test("allow patterns are word prefixes with globs inside words", () => {
  assert.equal(matchesPattern("npm test", ["npm", "test"], false), true);
  assert.equal(matchesPattern("npm test", ["npm", "test", "--watch"], false), true);
  assert.equal(matchesPattern("npm test", ["npm", "testing"], false), false);
  assert.equal(matchesPattern("npm test", ["npm"], false), false);
  assert.equal(matchesPattern("npm run lint*", ["npm", "run", "lint:fix"], false), true);
  assert.equal(matchesPattern("npm run lint*", ["npm", "run", "lint"], false), true);
  assert.equal(matchesPattern("npm run lint*", ["npm", "run", "build"], false), false);
  assert.equal(matchesPattern("git diff*", ["git", "diff-tree", "x"], false), true);
  assert.equal(
    matchesPattern("git diff *", ["git", "diff"], false),
    true,
    "trailing * word is optional",
  );
  assert.equal(
    matchesPattern("npm run test:*", ["npm", "run", "test"], false),
    true,
    "Claude-style :*",
  );
  assert.equal(matchesPattern("*", ["anything", "at", "all"], false), true);
  assert.equal(matchesPattern("make -j?", ["make", "-j2"], false), true);
  assert.equal(matchesPattern("git.x", ["gitax"], false), false, "dots are literal");
});

Deno.test("deny patterns also match the basename; allow patterns need the exact name", () => {
  assert.equal(matchesPattern("git push*", ["/usr/bin/git", "push"], true), true);
  assert.equal(matchesPattern("git status", ["/tmp/evil/git", "status"], false), false);
});

Deno.test("with allow patterns every command must match one", () => {
  assert.deepEqual(check("npm test", FIXER), { allow: true });
  assert.deepEqual(check("npm run lint:fix && git diff --stat", FIXER), { allow: true });
  assert.deepEqual(check("cd src && npm test", FIXER), { allow: true }, "cd needs no pattern");
  const d = check("npm test && rm -rf dist", FIXER);
  assert.equal(d.allow, false);
  if (!d.allow) {
    assert.equal(d.rule, "bash.allow");
    assert.match(d.reason, /`rm -rf dist` matches no allowed command pattern/);
  }
  const sub = check("npm test $(rm -rf x)", FIXER);
  assert.equal(sub.allow, false, "a substitution is a command of its own");
  const wrapped = check("timeout 60 npm test", FIXER);
  assert.deepEqual(wrapped, { allow: true }, "wrappers are looked through");
  const viaShell = check("bash -c 'npm test'", FIXER);
  assert.deepEqual(viaShell, { allow: true });
});

Deno.test("an empty allow list allows nothing but builtins", () => {
  assert.equal(check("ls", { allow: [] }).allow, false);
  assert.deepEqual(check("echo hi && cd x", { allow: [] }), { allow: true });
});

Deno.test("deny patterns win over allow patterns and name the pattern", () => {
  const d = check("git status; git push origin main", { ...FIXER, allow: ["*"] });
  assert.equal(d.allow, false);
  if (!d.allow) {
    assert.equal(d.rule, "bash.deny:git push*");
    assert.match(d.reason, /`git push origin main` matches the deny pattern "git push\*"/);
  }
  assert.equal(check("sh -c 'git push'", { deny: ["git push*"] }).allow, false);
  assert.equal(check("/usr/bin/git push", { deny: ["git push*"] }).allow, false);
});

Deno.test("the ban list applies whatever the patterns allow", () => {
  const d = check("curl x", { allow: ["*"] });
  assert.equal(d.allow, false);
  if (!d.allow) assert.equal(d.rule, "ban:network");
});

Deno.test("parse errors and dynamic names come first, with their own rules", () => {
  const p = check("echo 'open", { allow: ["*"] });
  assert.equal(!p.allow && p.rule, "bash.parse");
  const d = check("$TOOL x", { allow: ["*"] });
  assert.equal(!d.allow && d.rule, "bash.dynamic");
  if (!d.allow) assert.match(d.reason, /\$TOOL/);
});

Deno.test("argument-dependent bans look at the arguments", () => {
  const ban = (argv: string[], dynamic_args?: number[]) =>
    banOf({ argv, dynamic: false, text: argv.join(" "), dynamic_args })?.entry.group;
  assert.equal(ban(["npm", "install", "-g", "x"]), "global_install");
  assert.equal(ban(["npm", "install", "x"]), undefined);
  assert.equal(ban(["npm", "ls", "-g"]), undefined, "read-only subcommands may look at globals");
  assert.equal(ban(["npm", "link"]), "global_install");
  assert.equal(ban(["npm", "link", "../lib"]), undefined);
  assert.equal(ban(["npm", "install", "$FLAG"], [2]), "global_install");
  assert.equal(ban(["pip", "install", "--user", "x"]), "global_install");
  assert.equal(ban(["pip", "install", "x"]), undefined);
  assert.equal(ban(["python3.12", "-m", "pip", "install", "--user", "x"]), "global_install");
  assert.equal(ban(["uv", "pip", "install", "--system", "x"]), "global_install");
  assert.equal(ban(["rsync", "-a", "a/", "b/"]), undefined);
  assert.equal(ban(["rsync", "-a", "a/", "user@h:/x"]), "network");
  assert.equal(ban(["dd", "if=x", "of=/dev/null"]), undefined);
  assert.equal(ban(["dd", "if=x", "of=/dev/nvme0n1"]), "system");
  assert.equal(ban(["rm", "-rf", "dist"]), undefined);
  assert.equal(ban(["rm", "-r", "/*"]), "system");
  assert.equal(ban(["kill", "-1", "1234"]), undefined, "-1 as the signal (SIGHUP)");
  assert.equal(ban(["kill", "-s", "KILL", "-1"]), "system");
  assert.equal(ban(["/dev/tcp/h/80"]), "network");
  assert.equal(ban(["MKFS.EXT4", "/dev/x"]), "system");
  assert.equal(ban(["curl.exe", "x"]), "network");
});

Deno.test("BAN_LIST documents every group with a reason", () => {
  const groups = BAN_LIST.map((e) => e.group);
  assert.deepEqual(groups, ["network", "privilege", "system_packages", "global_install", "system"]);
  for (const e of BAN_LIST) {
    assert.ok(e.why.length > 20, `${e.group} has a reason`);
    assert.ok(e.commands.length + e.when.length > 0, `${e.group} bans something`);
    for (const c of e.commands) assert.equal(c, c.toLowerCase().trim());
  }
});
