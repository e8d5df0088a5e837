/**
 * Redirections through the real gate: a target the script does not spell out is
 * refused (it could be /dev/tcp or anywhere), and a static one passes the same read,
 * write and deny rules as the file tools, from every folder a `cd` may take the
 * script to, symlinks resolved.
 */
import assert from "node:assert/strict";
import { mismatches, shellGate } from "./_shell_gate.ts";

/** Targets known only at run time: rule bash.redirect (or the ban list for /dev/tcp). */
const DYNAMIC: ReadonlyArray<readonly [string, string]> = [
  ['t=/dev/tcp/127.0.0.1/9; echo "$s" > $t', "bash.redirect"],
  ['echo x > "$t"', "bash.redirect"],
  ["echo x > ${T}", "bash.redirect"],
  ["echo x >> $T/log", "bash.redirect"],
  ["echo x &> $(echo /dev/tcp/127.0.0.1/9)", "bash.redirect"],
  ["cat < $F", "bash.redirect"],
  ["cat 0< $F", "bash.redirect"],
  ["exec 3<> $T", "bash.redirect"],
  ["echo x >| `echo f`", "bash.redirect"],
  ["echo x >& $F", "bash.redirect"],
  ["echo x 2> $LOG", "bash.redirect"],
  ["echo x > ~/x", "bash.redirect"],
  ["echo x > ~root/x", "bash.redirect"],
  ["cat < .e*", "bash.redirect"],
  ["cat < .en?", "bash.redirect"],
  ["cat < [.]env", "bash.redirect"],
  ["echo x > {a,b}", "bash.redirect"],
  ["echo x > /dev/tcp/127.0.0.1/9", "ban:network"],
  ["exec 3<>/dev/udp/127.0.0.1/9", "ban:network"],
  ["cat < /dev/tcp/127.0.0.1/9", "ban:network"],
  ["bash -c 'echo x > $T'", "bash.redirect"],
  ["f() { cat < $1; }; f .env", "bash.redirect"],
  ['cd "$D" && echo x > out', "bash.redirect"],
  ["cd - && echo x > out", "bash.redirect"],
  ["popd; cat < notes", "bash.redirect"],
];

/** Static targets under the built-in coder: the workspace only (and harmless devices). */
const CODER: ReadonlyArray<readonly [string, string]> = [
  ["echo x > $OUT/file", "workspace"],
  ["echo x >> $OUT/file", "workspace"],
  ["echo x &> $OUT/file", "workspace"],
  ["echo x >& $OUT/file", "workspace"],
  ["echo x >| $OUT/file", "workspace"],
  ["echo x 2>$OUT/file", "workspace"],
  ["exec 3<> $OUT/file", "workspace"],
  ["echo x > escape/file", "workspace"],
  ["echo x > ./escape/../escape/file", "workspace"],
  ["cat < $OUT/private.txt", "paths.read"],
  ["cat < escape/private.txt", "paths.read"],
  ["while read -r l; do echo $l; done < /etc/passwd", "paths.read"],
  ["cat < /proc/self/environ", "paths.read"],
  ["cat < /proc/1/environ", "paths.read"],
  ["cd $OUT && echo x > file", "workspace"],
  ["cd .. && echo x > file", "workspace"],
  ["cd / && cat < etc/passwd", "paths.read"],
  ["(cd $OUT; echo x > f)", "workspace"],
  ["cd src && cd ../.. && echo x > f", "workspace"],
  ["pushd $OUT && echo x > f", "workspace"],
  ["bash -c 'echo x > $OUT/f'", "workspace"],
  ["eval 'cat < $OUT/private.txt'", "paths.read"],
  ["echo x > /dev/sda", "workspace"],
  ["echo x > /etc/cron.d/x", "workspace"],
  // allowed
  ["echo x > out.txt", "allow"],
  ["echo x >> src/log.txt 2>&1", "allow"],
  ["cat < .env", "allow"],
  ["cd src && echo x > here.txt", "allow"],
  ["echo x > /dev/null 2>/dev/stderr", "allow"],
  ["cat < /dev/null", "allow"],
  ["echo x > /tmp/mopac-scratch.txt", "workspace"],
  ["cat < /tmp/x", "paths.read"],
  ["exec 3>&1 4<&0 2>&- 5>&3-", "allow"],
  ["cat <<EOF > notes.md\nhi\nEOF", "allow"],
  ["echo x >$WS/src/abs.txt", "allow"],
  ["while read -r f; do echo $f; done < <(ls)", "allow"],
  ["sort > >(cat)", "allow"],
  ["while read -r f; do echo $f; done < <(curl x)", "ban:network"],
];

/** Static targets under a profile with read/write/deny rules. */
const RULED: ReadonlyArray<readonly [string, string]> = [
  ['while read -r l; do echo "$l"; done < .env', "paths.deny"],
  ["cat < ./.env", "paths.deny"],
  ["cat < src/../.env", "paths.deny"],
  ["cd src && cat < ../.env", "paths.deny"],
  ["cat < secrets/key.txt", "paths.deny"],
  ["echo x > secrets/new.txt", "paths.deny"],
  ["echo x > /tmp/cert.pem", "paths.deny"],
  ["cat < certs/x.pem", "paths.deny"],
  ["echo x > README.md", "paths.write"],
  ["echo x > escape/f", "paths.write"],
  ["echo x >> .gitignore", "paths.write"],
  ["echo x > src/ok.txt", "allow"],
  ["cat < src/ok.txt", "allow"],
  ["echo x > /tmp/scratch.txt", "paths.write"],
];

Deno.test("corpus: redirection targets known only at run time are refused", async () => {
  await using coder = await shellGate();
  assert.deepEqual(await mismatches(coder, DYNAMIC), []);
  await using listed = await shellGate({ bash: { allow: ["*"] } });
  assert.deepEqual(await mismatches(listed, DYNAMIC), []);
});

Deno.test("corpus: static redirection targets pass the file tools' rules under coder", async () => {
  await using coder = await shellGate();
  assert.deepEqual(await mismatches(coder, CODER), []);
});

Deno.test("corpus: static redirection targets pass paths.read/write/deny", async () => {
  await using gate = await shellGate({
    paths: { write: ["src/**"], deny: [".env", "secrets/**", "**/*.pem"] },
  });
  assert.deepEqual(await mismatches(gate, RULED), []);
});

Deno.test("a redirection is checked from the call's working_dir and the session's folder", async () => {
  await using gate = await shellGate();
  const fromOutside = await gate.decide("echo x > f", { cwd: gate.outside });
  assert.equal(fromOutside.allow, false);
  const viaWorkingDir = await gate.decide("echo x > f", { working_dir: gate.outside });
  assert.equal(viaWorkingDir.allow, false);
  assert.deepEqual(await gate.decide("echo x > f", { working_dir: "src" }), { allow: true });
});

export const REDIRECT_CORPUS_SIZE = DYNAMIC.length + CODER.length + RULED.length;
