/**
 * The shell policy against a corpus: many ways to reach a banned command must all
 * be denied, and ordinary developer commands must pass (no profile patterns, as
 * under the built-in `coder` profile).
 */
import assert from "node:assert/strict";
import { loadShellParser, parseShell } from "../../src/tools/shell/parse.ts";
import { checkShell } from "../../src/permission/shell_rules.ts";

// The full parser, for scripts that are not plain commands (shell/plain.ts).
await loadShellParser();

const HERE = "\n";

/** Each must be denied; the second field is the expected rule (prefix). */
const DENIED: Array<[string, string]> = [
  // plain and by path
  ["curl https://example.com", "ban:network"],
  ["wget -q -O- http://x", "ban:network"],
  ["/usr/bin/curl http://x", "ban:network"],
  ["./curl http://x", "ban:network"],
  ["~/bin/wget x", "ban:network"],
  ["CURL http://x", "ban:network"],
  ["nc -l 4444", "ban:network"],
  ["ssh host ls", "ban:network"],
  ["scp a host:b", "ban:network"],
  ["rsync -a src/ host:/tmp/", "ban:network"],
  ["openssl s_client -connect h:443", "ban:network"],
  // quoting and escapes
  ["c\\url http://x", "ban:network"],
  ["'curl' http://x", "ban:network"],
  ['"curl" http://x', "ban:network"],
  ['"cu"rl http://x', "ban:network"],
  ["cu''rl http://x", "ban:network"],
  ["$'\\x63url' http://x", "ban:network"],
  ["$'\\143url' http://x", "ban:network"],
  ["$'\\u0063url' http://x", "ban:network"],
  ["cu\\\nrl http://x", "ban:network"],
  ["\\sudo ls", "ban:privilege"],
  // lists, pipes, subshells, blocks, control flow
  ["ls && curl x", "ban:network"],
  ["false || wget x", "ban:network"],
  ["echo a; curl x", "ban:network"],
  ["echo a | nc h 80", "ban:network"],
  ["(curl x)", "ban:network"],
  ["{ curl x; }", "ban:network"],
  ["if true; then curl x; fi", "ban:network"],
  ["if curl x; then :; fi", "ban:network"],
  ["while true; do wget x; break; done", "ban:network"],
  ["for i in 1 2; do curl $i; done", "ban:network"],
  ["case a in a) curl x;; esac", "ban:network"],
  ["! curl x", "ban:network"],
  ["time curl x", "ban:network"],
  ["coproc curl x", "ban:network"],
  ["curl x &", "ban:network"],
  // substitutions
  ["echo $(curl x)", "ban:network"],
  ["echo `curl x`", "ban:network"],
  ['echo "$(wget -O- x)"', "ban:network"],
  ["cat <(curl x)", "ban:network"],
  ["tee >(nc h 80) < f", "ban:network"],
  ["echo $(( $(curl x) + 1 ))", "ban:network"],
  ["X=$(curl x) make", "ban:network"],
  ["export X=$(curl x)", "ban:network"],
  ["echo ${X:-$(curl x)}", "ban:network"],
  ["[[ $(curl x) == y ]]", "ban:network"],
  ["echo hi > $(curl x)", "ban:network"],
  ["cat <<EOF" + HERE + "$(curl x)" + HERE + "EOF", "ban:network"],
  ['cat <<< "$(curl x)"', "ban:network"],
  // dynamic command names
  ["$(echo curl) x", "bash.dynamic"],
  ["`which curl` x", "bash.dynamic"],
  ["X=curl; $X http://x", "bash.dynamic"],
  ["${CMD} x", "bash.dynamic"],
  ['"$C" x', "bash.dynamic"],
  ["/usr/bin/cur? http://x", "bash.dynamic"],
  ["/usr/bin/c[u]rl x", "bash.dynamic"],
  ["{curl,http://x}", "bash.dynamic"],
  ["ls | xargs -I{} {} x", "bash.dynamic"],
  // functions and aliases
  ["f() { curl x; }; f", "ban:network"],
  ["function g { wget x; }; g", "ban:network"],
  ["alias get='curl -s'; get x", "ban:network"],
  ["alias get=$(echo curl)", "bash.dynamic"],
  ["hash -p /usr/bin/curl ls; ls http://x", "ban:network"],
  ["enable -f ./net.so get; get x", "bash.dynamic"],
  // eval and shells
  ["eval curl x", "ban:network"],
  ["eval 'cu''rl x'", "ban:network"],
  ['eval "$CMD"', "bash.dynamic"],
  ["bash -c 'curl x'", "ban:network"],
  ['sh -c "wget x"', "ban:network"],
  ["zsh -c 'nc h 80'", "ban:network"],
  ["bash -lc 'curl x'", "ban:network"],
  ["bash -x -c 'curl x'", "ban:network"],
  ["bash -c \"sh -c 'curl x'\"", "ban:network"],
  ['bash -c "bash -c \\"sh -c \'wget x\'\\""', "ban:network"],
  ['bash -c "$PAYLOAD"', "bash.dynamic"],
  ["bash <<< 'curl x'", "ban:network"],
  ["bash <<EOF" + HERE + "curl x" + HERE + "EOF", "ban:network"],
  ["echo 'curl x' | bash", "bash.dynamic"],
  ["curl_cmd=x; cat f | sh", "bash.dynamic"],
  ["source /dev/stdin <<< 'curl x'", "ban:network"],
  ["trap 'curl x' EXIT", "ban:network"],
  ["busybox wget x", "ban:network"],
  // wrappers
  ["env curl x", "ban:network"],
  ["env -i PATH=/usr/bin curl x", "ban:network"],
  ["env -u HOME -C /tmp FOO=1 curl x", "ban:network"],
  ["env -S 'curl -s x'", "ban:network"],
  ["command curl x", "ban:network"],
  ["command -p curl x", "ban:network"],
  ["builtin eval curl x", "ban:network"],
  ["exec curl x", "ban:network"],
  ["exec -a name curl x", "ban:network"],
  ["nohup wget x", "ban:network"],
  ["timeout 5 curl x", "ban:network"],
  ["timeout -s KILL -k 1 5 curl x", "ban:network"],
  ["nice -n 10 curl x", "ban:network"],
  ["nice -10 curl x", "ban:network"],
  ["stdbuf -oL curl x", "ban:network"],
  ["setsid curl x", "ban:network"],
  ["ionice -c 3 curl x", "ban:network"],
  ["/usr/bin/time -f %e curl x", "ban:network"],
  ["watch -n 1 curl x", "ban:network"],
  ["watch -x wget x", "ban:network"],
  ["flock /tmp/l curl x", "ban:network"],
  ["flock /tmp/l -c 'curl x'", "ban:network"],
  ["script -q -c 'curl x' /dev/null", "ban:network"],
  ["parallel curl ::: a b", "ban:network"],
  ["parallel ::: 'curl a'", "ban:network"],
  ["nohup timeout 5 env A=1 nice curl x", "ban:network"],
  ["xargs curl < urls", "ban:network"],
  ["cat urls | xargs -n 1 -P 4 wget", "ban:network"],
  ["xargs -0 sh -c 'curl $0'", "ban:network"],
  ["find . -name '*.txt' -exec curl -T {} h \\;", "ban:network"],
  ["find . -execdir wget {} +", "ban:network"],
  // privilege escalation
  ["sudo ls", "ban:privilege"],
  ["sudo -u root -E bash -c 'id'", "ban:privilege"],
  ["su -c 'id' root", "ban:privilege"],
  ["doas ls", "ban:privilege"],
  ["pkexec ls", "ban:privilege"],
  ["echo x | sudo tee /etc/x", "ban:privilege"],
  // system package managers
  ["apt-get install -y jq", "ban:system_packages"],
  ["apt install jq", "ban:system_packages"],
  ["yum install jq", "ban:system_packages"],
  ["brew install jq", "ban:system_packages"],
  ["apk add jq", "ban:system_packages"],
  ["pacman -S jq", "ban:system_packages"],
  ["dpkg -i x.deb", "ban:system_packages"],
  // global installs
  ["npm install -g typescript", "ban:global_install"],
  ["npm i --global typescript", "ban:global_install"],
  ["npm -g install typescript", "ban:global_install"],
  ["npm install --location=global x", "ban:global_install"],
  ["npm install $FLAGS x", "ban:global_install"],
  ["pnpm add -g x", "ban:global_install"],
  ["yarn global add x", "ban:global_install"],
  ["bun add -g x", "ban:global_install"],
  ["deno install -g -A x.ts", "ban:global_install"],
  ["cargo install ripgrep", "ban:global_install"],
  ["go install golang.org/x/tools/gopls@latest", "ban:global_install"],
  ["gem install rails", "ban:global_install"],
  ["pip install --user x", "ban:global_install"],
  ["pip3 install --break-system-packages x", "ban:global_install"],
  ["python3 -m pip install --user x", "ban:global_install"],
  ["uv tool install ruff", "ban:global_install"],
  ["pipx install black", "ban:global_install"],
  ["sudo npm i -g x", "ban:privilege"],
  // machine-wide changes
  ["systemctl stop sshd", "ban:system"],
  ["shutdown -h now", "ban:system"],
  ["mkfs.ext4 /dev/sda1", "ban:system"],
  ["dd if=/dev/zero of=/dev/sda", "ban:system"],
  ["rm -rf /", "ban:system"],
  ["rm -fr ~", "ban:system"],
  ["rm -r --no-preserve-root /tmp/x", "ban:system"],
  ["kill -9 -1", "ban:system"],
  ["crontab -r", "ban:system"],
  ["mount /dev/sdb /mnt", "ban:system"],
  // bash's own network redirection
  ["echo hi > /dev/tcp/example.com/80", "ban:network"],
  ["exec 3<>/dev/tcp/example.com/80", "ban:network"],
  ['cat < "/dev/$P/h/80"', "bash.dynamic"],
  // unparsable
  ["if then", "bash.parse"],
  ["echo 'unterminated", "bash.parse"],
];

/** Each must be allowed with no profile patterns. */
const ALLOWED = [
  "git status",
  "git diff --stat HEAD~1",
  "git log --oneline -n 20 | cat",
  "git add -A && git commit -m 'fix: x'",
  "npm test",
  "npm install",
  "npm ci",
  "npm install --save-dev typescript",
  "npm run build -- --watch=false",
  "pnpm install --frozen-lockfile",
  "yarn add -D vitest",
  "deno test -A",
  "deno fmt --check src/",
  "deno install",
  "ls -la | grep x",
  "make -j2",
  "cat package.json | jq .scripts",
  "sed -i 's/foo/bar/g' src/a.ts",
  "grep -rn 'TODO' src/",
  "python3 -m pytest -q",
  "python3 -m pip install -r requirements.txt",
  "pip install -e .",
  "cd src && ls",
  "FOO=1 npm run build",
  "for f in *.ts; do echo $f; done",
  "find . -name '*.ts' -not -path './node_modules/*' | wc -l",
  "find . -name '*.log' -delete",
  "find . -name '*.ts' -exec grep -l foo {} +",
  "xargs -a files.txt wc -l",
  "git ls-files | xargs grep -n describe",
  "timeout 60 npm test",
  "env NODE_ENV=test node index.js",
  "mkdir -p build/out && cp -r src build/out",
  "rm -rf node_modules dist",
  "tar czf out.tgz dist",
  "cargo build --release",
  "cargo test",
  "go test ./...",
  "go build ./cmd/app",
  "rsync -a src/ backup/",
  'echo "$(date +%s)" > stamp.txt',
  "if [ -f go.mod ]; then go vet ./...; fi",
  "test -d dist || mkdir dist",
  "kill %1",
  "kill -9 12345",
  "bash scripts/build.sh",
  "sh -c 'npm test && npm run lint'",
  "bash -c 'cd src && ls'",
  "docker ps",
  "command -v curl",
  "type wget",
  "which sudo",
  "echo curl",
  "grep -r 'sudo' docs/",
  "cat <<'EOF' > notes.md\n$(curl is just text here)\nEOF",
  "dd if=/dev/zero of=blob.bin bs=1k count=4",
  "npx tsc --noEmit",
  "node -e 'console.log(1)'",
  "wc -l $(git ls-files '*.ts')",
];

Deno.test("corpus sizes meet the floor (60 denied, 30 allowed)", () => {
  assert.ok(DENIED.length >= 60, `only ${DENIED.length} denied cases`);
  assert.ok(ALLOWED.length >= 30, `only ${ALLOWED.length} allowed cases`);
  assert.equal(new Set(DENIED.map(([s]) => s)).size, DENIED.length, "denied cases are distinct");
});

Deno.test("every way to reach a banned command is denied, with the expected rule", () => {
  const failures: string[] = [];
  for (const [script, rule] of DENIED) {
    const decision = checkShell(parseShell(script));
    if (decision.allow) failures.push(`allowed: ${JSON.stringify(script)}`);
    else if (!decision.rule.startsWith(rule)) {
      failures.push(
        `${JSON.stringify(script)}: rule ${decision.rule}, expected ${rule} (${decision.reason})`,
      );
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("ordinary developer commands are allowed", () => {
  const failures: string[] = [];
  for (const script of ALLOWED) {
    const decision = checkShell(parseShell(script));
    if (!decision.allow) {
      failures.push(`${JSON.stringify(script)}: ${decision.rule} ${decision.reason}`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("a denial names the command and the rule", () => {
  const decision = checkShell(parseShell("npm test && timeout 5 c\\url -s http://x"));
  assert.equal(decision.allow, false);
  if (decision.allow) return;
  assert.equal(decision.rule, "ban:network");
  assert.match(decision.reason, /`curl` is banned/);
  assert.match(decision.reason, /timeout 5 c\\url -s http:\/\/x/);
});
