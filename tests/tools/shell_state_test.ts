/**
 * The state a command leaves for the next call (src/tools/shell/process.ts): its folder
 * and exported variables, values byte for byte, and nothing that is not an exported
 * variable (functions, unexported names, `_`, what `export -n` took back).
 */
import assert from "node:assert/strict";
import { ShellProcess } from "../../src/tools/shell/process.ts";
import type { ShellLauncher } from "../../src/jail/types.ts";
import { directLauncher } from "../../src/jail/direct.ts";

const SCRIPT = [
  "cd /",
  "export MULTI=$'line one\\nline two' EQ='a=b=c' UNI='grüße ✓' EMPTY= SPACES='  x  '",
  "LOCAL=not-exported",
  "f() { echo hi; }; export -f f",
  "export -n HOME",
].join("; ");

const EXPECTED = {
  MULTI: "line one\nline two",
  EQ: "a=b=c",
  UNI: "grüße ✓",
  EMPTY: "",
  SPACES: "  x  ",
  PATH: "/usr/bin:/bin",
  KEEP: "from-start",
};

async function stateOf(
  launcher: ShellLauncher,
  locale: Record<string, string> = {},
  command = SCRIPT,
) {
  const p = new ShellProcess({
    command,
    cwd: "/",
    env: { PATH: "/usr/bin:/bin", HOME: "/root", KEEP: "from-start", ...locale },
    launcher,
  });
  await p.finished;
  return p.state;
}

/** What the exports of `state` that the script touched or kept look like. */
function exports(env: Record<string, string>): Record<string, string> {
  // bash adds what it always exports (SHLVL, PWD, OLDPWD); those are not the point here.
  const { SHLVL: _s, PWD: _p, OLDPWD: _o, ...rest } = env;
  return rest;
}

// C and UTF-8 locales read `export -p` (on bash ≥ 5.2); a Big5 locale walks every name.
for (const lang of [undefined, "C.UTF-8", "zh_TW.BIG5"]) {
  Deno.test(`the exports a command leaves are read exactly, LANG=${lang ?? "(none)"}`, async () => {
    const locale: Record<string, string> = lang ? { LANG: lang } : {};
    const state = await stateOf(directLauncher, locale);
    assert.ok(state, "the state was reported");
    assert.equal(state.cwd, "/");
    assert.deepEqual(exports(state.env), { ...EXPECTED, ...locale });
  });
}

Deno.test("a command that disables the export builtin leaves no state to carry", async () => {
  assert.equal(await stateOf(directLauncher, {}, "export A=1; enable -n export"), undefined);
});
