/**
 * `bash.deny` patterns against many spellings of the same command, through the real
 * gate: global options, reordered and clustered options, long forms and their
 * abbreviations, aliases, wrappers and nested shells do not undo a deny. Commands
 * that only resemble a denied one stay allowed.
 */
import assert from "node:assert/strict";
import { mismatches, shellGate } from "./_shell_gate.ts";

const DENY = [
  "git push",
  "git reset --hard",
  "git clean -f",
  "rm -rf",
  "npm publish",
  "npm install",
  "git commit --amend",
];

/** Each must be refused by a deny pattern. */
export const DENIED_SPELLINGS: readonly string[] = [
  // git push
  "git push",
  "git push origin main",
  "git -C . push",
  "git -C src push origin",
  "git -c x=y push",
  "git -c core.pager=cat push",
  "git --git-dir=.git push",
  "git --git-dir .git --work-tree . push",
  "git --no-pager push",
  "git -P push",
  "git -p push",
  "git --bare push",
  "git --namespace=x push",
  "git --literal-pathspecs push",
  "git --no-optional-locks push",
  "git --exec-path=/usr/lib/git-core push",
  "/usr/bin/git push",
  "env git push",
  "command git push",
  "timeout 10 git push",
  "nice -n 5 git -C . push --force",
  "bash -c 'git -C . push'",
  'sh -c "git -c a=b push"',
  "echo ok && git push",
  "(git -C . push)",
  "git -c alias.p=push p",
  "git -c alias.sync='!git push' sync",
  "git --config-env=alias.x=E x",
  "git -c include.path=x st",
  // git reset --hard / clean -f / commit --amend
  "git reset --hard HEAD~1",
  "git reset HEAD~1 --hard",
  "git -C . reset --hard",
  "git clean -f",
  "git clean -fdx",
  "git clean -xdf",
  "git clean -d -f",
  "git clean --force -d",
  "git clean -x --force",
  "git commit --amend -m x",
  "git commit -m x --amend",
  "git -c user.name=x commit --amend",
  // rm -rf
  "rm -rf dist",
  "rm -fr dist",
  "rm -r -f dist",
  "rm -f -r dist",
  "rm -Rf dist",
  "rm -fR dist",
  "rm -rfv dist",
  "rm -vrf dist",
  "rm --recursive --force dist",
  "rm --force --recursive dist",
  "rm -r --force dist",
  "rm --rec -f dist",
  "rm --recursive -f -- dist",
  "rm -r -v -f dist",
  "/bin/rm -rf dist",
  "command rm -rf dist",
  "find . -name x -exec rm -fr {} +",
  "busybox rm -rf dist",
  // npm publish / install
  "npm publish",
  "npm --registry http://x publish",
  "npm --registry=http://x publish",
  "npm -w pkg publish",
  "npm --silent publish --access public",
  "npm i",
  "npm i lodash",
  "npm in lodash",
  "npm isntall lodash",
  "npm add lodash",
  "npm instal lodash",
  "npm --prefix . install",
  "npm -s i",
  "npx --yes npm@latest install",
];

/** Each must still be allowed: they only look like a denied command. */
const NOT_DENIED: readonly string[] = [
  "git status",
  "git log --oneline -n 5",
  "git diff --stat",
  "git commit -m 'push it'",
  "git log --grep push",
  "git reset --soft HEAD~1",
  "git reset HEAD file.txt",
  "git clean -n",
  "git commit -m x",
  "rm -f file.txt",
  "rm -r empty-dir",
  "rm file.txt",
  "npm test",
  "npm run build",
  "npm ci",
  "npm view lodash version",
  "echo git push",
  "grep -rn 'rm -rf' docs/",
];

Deno.test("corpus: deny patterns hold whatever the spelling", async () => {
  await using gate = await shellGate({ bash: { allow: ["*"], deny: DENY } });
  assert.ok(DENIED_SPELLINGS.length >= 70, `${DENIED_SPELLINGS.length} cases`);
  assert.deepEqual(
    await mismatches(gate, DENIED_SPELLINGS.map((s) => [s, "bash.deny:"] as const)),
    [],
  );
  assert.deepEqual(await mismatches(gate, NOT_DENIED.map((s) => [s, "allow"] as const)), []);
});

Deno.test("corpus: deny patterns hold under coder refined with bash.deny", async () => {
  await using gate = await shellGate({ bash: { deny: DENY } });
  assert.deepEqual(
    await mismatches(gate, DENIED_SPELLINGS.map((s) => [s, "bash.deny:"] as const)),
    [],
  );
});

Deno.test("a denial names the pattern and the command as written", async () => {
  await using gate = await shellGate({ bash: { deny: ["git push"] } });
  const d = await gate.decide("git -C . -c x=y push --force origin");
  assert.equal(d.allow, false);
  if (d.allow) return;
  assert.equal(d.rule, "bash.deny:git push");
  assert.match(d.reason, /`git -C \. -c x=y push --force origin` matches the deny pattern/);
});
