/**
 * Assignments to variables that change what runs, in every form bash has, through
 * the real gate: refused under the built-in coder profile and under an allowlist
 * (even an empty one), allowed only by a pattern that names them; ordinary
 * assignments stay free.
 */
import assert from "node:assert/strict";
import { mismatches, shellGate } from "./_shell_gate.ts";

/** Each must be refused with rule bash.assign (no pattern names it). */
export const RISKY_ASSIGNMENTS: readonly string[] = [
  // prompts expanded under `set -x`, startup files, options
  "PS4='$(touch pwned)'; set -x; echo hi",
  "PS4='$(touch pwned)' bash -xc 'echo hi'",
  "export PS4='$(id)'",
  "declare PS4='`id`'",
  "typeset -x PS4=x",
  "local PS4=x",
  "readonly PS4=x",
  "set -a; BASH_ENV=/tmp/e.sh",
  "export BASH_ENV=./evil.sh",
  "BASH_ENV=./evil.sh npm test",
  "ENV=./evil.sh sh -c true",
  "PROMPT_COMMAND='id'",
  "SHELLOPTS=xtrace bash -c 'echo hi'",
  "BASHOPTS=extdebug",
  "CDPATH=/etc; cd ssh",
  "BASH_XTRACEFD=3",
  "GLOBIGNORE='*'",
  "PS0=x PS1=y PS2=z PS3=w",
  // the environment prefix of an allowed command
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' git status",
  "GIT_EXTERNAL_DIFF=./x.sh git diff",
  "GIT_SSH_COMMAND='sh -c id' git fetch",
  "GIT_DIR=/tmp/other git log",
  "GIT_PAGER='sh -c id' git log",
  "PATH=./x:$PATH npm test",
  "PATH=. ls",
  "export PATH=$PWD/node_modules/.bin:$PATH",
  "LD_PRELOAD=./x.so ls",
  "LD_LIBRARY_PATH=. make",
  "DYLD_INSERT_LIBRARIES=./x.dylib ls",
  "NPM_CONFIG_SCRIPT_SHELL=./sh npm test",
  "npm_config_registry=http://127.0.0.1:9 npm ci",
  "YARN_RC_FILENAME=x yarn install",
  "NODE_OPTIONS='--require ./x.js' npm test",
  "NODE_PATH=. node index.js",
  "PYTHONPATH=. python3 -m pytest",
  "PYTHONSTARTUP=x.py python3",
  "PYTHONBREAKPOINT=os.system python3 script.py",
  "PIP_INDEX_URL=http://127.0.0.1:9 pip install -r requirements.txt",
  "PERL5OPT=-Mx perl script.pl",
  "RUBYOPT=-rx ruby x.rb",
  "JAVA_TOOL_OPTIONS=-javaagent:x.jar java -jar a.jar",
  "MAKEFLAGS=--eval=x make",
  "MAKEFILES=evil.mk make",
  "CC='sh -c id' make",
  "GOFLAGS=-toolexec=./x go test ./...",
  "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=./x cargo test",
  "RUSTC_WRAPPER=./x cargo build",
  "HOME=. git status",
  "XDG_CONFIG_HOME=. git status",
  "EDITOR='sh -c id' git commit",
  "PAGER=./x man ls",
  "TAR_OPTIONS=--to-command=./x tar xf a.tar",
  "http_proxy=http://127.0.0.1:9 npm ci",
  "NO_PROXY='*' npm ci",
  "SHELL=./x make",
  "KUBECONFIG=x kubectl get pods",
  // through wrappers
  "env PS4='$(id)' bash -x -c true",
  "env -i PATH=. ls",
  "env 'BASH_FUNC_ls%%=() { id; }' bash -c ls",
  "timeout 5 env GIT_DIR=x git status",
  "nohup env LD_PRELOAD=x ls",
  "bash -c 'PATH=. ls'",
  "eval 'PS4=x'",
  "builtin export PS4=x",
  "command declare PS4=x",
  // builtins that store into a variable
  "read PS4 < .gitignore",
  "read -r BASH_ENV <<< ./x",
  "read -a PATH <<< x",
  "printf -v PS4 '%s' '$(id)'",
  "mapfile -t PATH < list",
  "readarray LD_PRELOAD < list",
  "getopts ab PS4",
  "wait -p PATH",
  "for PS4 in '$(id)'; do set -x; done",
  "select PATH in a b; do break; done",
  "((PATH=1))",
  "let PATH=1",
  "let 'GIT_DIR++'",
  ": ${PS4:='$(id)'}",
  ": ${BASH_ENV=./x}",
  "echo ${PATH:=.}",
  // namerefs and names known only at run time
  "declare -n r=PS4; r='$(id)'",
  "local -n r=PATH",
  'export "$NAME=x"',
  'declare "$(echo PS4)=x"',
  'read "$v"',
  'printf -v "$v" x',
  'env "$X=1" ls',
  "export 'PS4=$(id)'",
];

/** Ordinary assignments: allowed with no pattern naming them. */
const ORDINARY: readonly string[] = [
  "FOO=1 npm run build",
  "NODE_ENV=test npm test",
  "CI=1 deno test -A",
  "export DEBUG=1",
  "GIT_AUTHOR_NAME=bot GIT_AUTHOR_EMAIL=b@x git commit -m x",
  "LANG=C sort file",
  "TZ=UTC date",
  "x=1; y=$((x+1)); echo $y",
  "for f in *.ts; do echo $f; done",
  "read -r line < README.md",
  "printf -v out '%s' hi",
  "((i++))",
  "PYTHONUNBUFFERED=1 python3 script.py",
  "GOOS=linux GOARCH=arm64 go build ./...",
  "RUST_BACKTRACE=1 cargo test",
  "declare -a list=(a b)",
];

Deno.test("corpus: assignments that change what runs are refused under coder", async () => {
  await using gate = await shellGate();
  assert.ok(RISKY_ASSIGNMENTS.length >= 80, `${RISKY_ASSIGNMENTS.length} cases`);
  assert.deepEqual(
    await mismatches(gate, RISKY_ASSIGNMENTS.map((s) => [s, "bash.assign"] as const)),
    [],
  );
  assert.deepEqual(await mismatches(gate, ORDINARY.map((s) => [s, "allow"] as const)), []);
});

Deno.test("corpus: an allowlist, even an empty one, does not let them through", async () => {
  await using empty = await shellGate({ bash: { allow: [] } });
  const refusedEmpty = await mismatches(
    empty,
    RISKY_ASSIGNMENTS.map((s) => [s, "bash."] as const),
  );
  assert.deepEqual(refusedEmpty, []);
  await using listed = await shellGate({
    bash: { allow: ["git *", "npm *", "ls", "make", "bash *", "cargo *", "go *", "pip *"] },
  });
  assert.deepEqual(
    await mismatches(listed, RISKY_ASSIGNMENTS.map((s) => [s, "bash."] as const)),
    [],
  );
});

Deno.test("an allow pattern that names the assignment lets exactly it through", async () => {
  await using gate = await shellGate({
    bash: { allow: ["*", "PATH=./node_modules/.bin:* npm test", "GIT_DIR=*"] },
  });
  assert.deepEqual(await gate.decide("PATH=./node_modules/.bin:$PATH npm test"), { allow: true });
  assert.deepEqual(await gate.decide("export GIT_DIR=../x/.git"), { allow: true });
  const other = await gate.decide("PATH=./node_modules/.bin:$PATH npm run deploy");
  assert.equal(other.allow, false, "the pattern names the command too");
  const widened = await gate.decide("PATH=/tmp/x:$PATH npm test");
  assert.equal(widened.allow, false, "the value must match the pattern");
  if (!widened.allow) {
    assert.equal(widened.rule, "bash.assign");
    assert.match(widened.reason, /sets PATH, which changes what commands run/);
    assert.match(widened.reason, /"PATH=\*"/);
  }
  // "*" alone allows every command, never an assignment that changes what runs.
  assert.equal((await gate.decide("LD_PRELOAD=x ls")).allow, false);
});
