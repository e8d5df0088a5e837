/**
 * The gate against a scripted sequence of calls, with a real temp workspace, a real
 * symlink that escapes it, and real bash hook scripts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createGate } from "../../src/permission/gate.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import type { Decision, GateRequest, ShellAccess } from "../../src/permission/types.ts";

function shell(script: string): ShellAccess {
  // What the bash tool's parser reports for these simple one-command scripts.
  const argv = script.split(/\s+/);
  return {
    script,
    commands: [{ argv, dynamic: false, text: script }],
    assignments: [],
    redirects: [],
    evaluations: [],
    cd: { targets: [], unknown: false },
  };
}

function denied(d: Decision, rule: string | RegExp, reason?: RegExp): void {
  assert.equal(d.allow, false, `expected a denial by ${rule}`);
  if (d.allow) return;
  if (typeof rule === "string") assert.equal(d.rule, rule, d.reason);
  else assert.match(d.rule, rule, d.reason);
  if (reason) assert.match(d.reason, reason);
}

const CONFIG = {
  agents: {
    fixer: {
      allowed_tools: ["view", "ls", "edit", "write", "bash", "fetch"],
      allowed_mcp: { github: ["get_issue", "list_*"] },
      bash: { allow: ["npm test", "git diff*"], deny: ["git push*"] },
      paths: { write: ["src/**", "tests/**"], deny: [".env", "**/*.pem"] },
      fetch: { hosts: ["*.example.com", "127.0.0.1:4000"] },
    },
  },
};

Deno.test("gate: scripted sequence of forbidden and allowed calls", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_gate_ws_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac_gate_out_" }));
  try {
    await Deno.mkdir(join(ws, "src"));
    await Deno.writeTextFile(join(outside, "secret.txt"), "s3cr3t");
    // A symlink inside src/ (writable by the globs) that points outside the workspace.
    await Deno.symlink(join(outside, "secret.txt"), join(ws, "src", "escape.txt"));
    const hookLog = join(outside, "hook_calls.jsonl");
    const hookScript = join(outside, "hook.sh");
    await Deno.writeTextFile(
      hookScript,
      `input=$(cat)\nprintf '%s\\n' "$input" >> '${hookLog}'\n` +
        `case "$input" in *FORBIDDEN*) echo "no FORBIDDEN content, says policy" >&2; exit 2;; esac\n` +
        `exit 0\n`,
    );
    const warnings: string[] = [];
    const gate = createGate({
      profile: resolveProfile("fixer", CONFIG),
      workspace: ws,
      hooks: [
        { matcher: "^(write|edit)$", command: `bash '${hookScript}'` },
        { matcher: "^ls$", command: "sleep 5; exit 0", timeout: 0.3 },
        { matcher: "^view$", command: "echo broken >&2; exit 7" },
      ],
      log: (s) => warnings.push(s),
      sessionId: "sess-1",
    });
    const call = (req: Omit<GateRequest, "input"> & { input?: unknown }) =>
      gate.check({ input: {}, ...req });

    // Tool not offered at all.
    assert.equal(gate.allows("grep"), false);
    denied(await call({ tool: "grep", access: {} }), "not_allowed", /"grep".*"fixer"/);
    // Banned command: the ban list holds even though bash is allowed.
    denied(
      await call({ tool: "bash", access: { shell: shell("curl http://evil.test") } }),
      "ban:network",
      /`curl` is banned/,
    );
    // Denied bash pattern.
    denied(
      await call({ tool: "bash", access: { shell: shell("git push origin main") } }),
      "bash.deny:git push*",
    );
    // Allowed bash pattern.
    assert.deepEqual(await call({ tool: "bash", access: { shell: shell("npm test") } }), {
      allow: true,
    });
    // Write outside paths.write (inside the workspace but not under src/ or tests/).
    denied(
      await call({ tool: "write", access: { writes: [join(ws, "README.md")] } }),
      "paths.write",
      new RegExp(`write outside allowed paths: ${join(ws, "README.md")}`),
    );
    // Write outside the workspace.
    denied(
      await call({ tool: "write", access: { writes: ["/etc/passwd"] } }),
      "paths.write",
      /write outside allowed paths: \/etc\/passwd/,
    );
    // Write inside allowed paths.
    assert.deepEqual(
      await call({ tool: "write", access: { writes: [join(ws, "src", "a.ts")] } }),
      { allow: true },
    );
    // Symlink escape: the tool resolves the link and reports the real path.
    const real = await Deno.realPath(join(ws, "src", "escape.txt"));
    assert.equal(real, join(outside, "secret.txt"));
    denied(await call({ tool: "edit", access: { writes: [real] } }), "paths.write");
    denied(await call({ tool: "view", access: { reads: [real] } }), "paths.read");
    // Deny globs, for reads and writes, at any depth.
    denied(await call({ tool: "view", access: { reads: [join(ws, ".env")] } }), "paths.deny");
    denied(
      await call({ tool: "view", access: { reads: [join(ws, "src", ".env")] } }),
      "paths.deny",
    );
    denied(
      await call({ tool: "write", access: { writes: [join(ws, "src", "k", "server.pem")] } }),
      "paths.deny",
    );
    denied(await call({ tool: "view", access: { reads: ["/etc/ssl/x.pem"] } }), "paths.deny");
    // Hosts.
    denied(
      await call({ tool: "fetch", access: { hosts: ["evil.test:443"] } }),
      "fetch.hosts",
      /evil\.test:443/,
    );
    denied(await call({ tool: "fetch", access: { hosts: ["127.0.0.1:4001"] } }), "fetch.hosts");
    denied(await call({ tool: "fetch", access: { hosts: ["example.com:443"] } }), "fetch.hosts");
    assert.deepEqual(await call({ tool: "fetch", access: { hosts: ["api.example.com:443"] } }), {
      allow: true,
    });
    assert.deepEqual(await call({ tool: "fetch", access: { hosts: ["127.0.0.1:4000"] } }), {
      allow: true,
    });
    // MCP tools.
    const mcp = (tool: string) =>
      call({ tool: `mcp_github_${tool}`, mcp: { server: "github", tool }, access: {} });
    denied(await mcp("delete_repo"), "allowed_mcp", /"delete_repo".*"github"/);
    assert.deepEqual(await mcp("list_issues"), { allow: true });
    denied(
      await call({ tool: "mcp_jira_get", mcp: { server: "jira", tool: "get" }, access: {} }),
      "allowed_mcp",
    );
    // Hook denial: a real bash script exiting 2 with its reason on stderr.
    denied(
      await call({
        tool: "write",
        input: { file_path: "src/b.ts", content: "FORBIDDEN" },
        access: { writes: [join(ws, "src", "b.ts")] },
      }),
      "hooks.PreToolUse",
      /^no FORBIDDEN content, says policy$/,
    );
    // Hook timeout.
    denied(
      await call({ tool: "ls", access: { reads: [ws] } }),
      "hooks.PreToolUse",
      /^hook timed out/,
    );
    // A broken hook (exit 7): warning, call goes on.
    assert.deepEqual(await call({ tool: "view", access: { reads: [join(ws, "src")] } }), {
      allow: true,
    });
    assert.match(warnings.join("\n"), /exited with 7.*broken/);

    // The hook saw the call as JSON: only the calls that reached step 4 ran it.
    const seen = (await Deno.readTextFile(hookLog)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(seen.map((p) => p.tool_name), ["write", "write"]);
    assert.deepEqual(seen[1].tool_input, { file_path: "src/b.ts", content: "FORBIDDEN" });
    assert.equal(seen[1].cwd, ws);
    assert.equal(seen[1].session_id, "sess-1");
    assert.equal(seen[1].hook_event_name, "PreToolUse");
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("gate order: ban list before allowlist, allowlist before rules", async () => {
  const gate = createGate({ profile: resolveProfile("readonly", {}), workspace: "/nonexistent" });
  const banned = await gate.check({
    tool: "bash",
    input: {},
    access: { shell: shell("sudo rm -rf /") },
  });
  denied(banned, "ban:privilege");
  // Not offered, although the path would also be denied: the allowlist answers first.
  denied(
    await gate.check({ tool: "write", input: {}, access: { writes: ["/etc/passwd"] } }),
    "not_allowed",
  );
});

Deno.test("coder: writes inside the workspace, reads outside need paths.read", async () => {
  const cfg = { agents: { r: { allowed_tools: ["view"], paths: { read: ["/opt/docs/**"] } } } };
  const coder = createGate({ profile: resolveProfile("coder", {}), workspace: "/w" });
  assert.deepEqual(await coder.check({ tool: "write", input: {}, access: { writes: ["/w/x"] } }), {
    allow: true,
  });
  denied(
    await coder.check({ tool: "write", input: {}, access: { writes: ["/w/../etc/x"] } }),
    "workspace",
  );
  denied(
    await coder.check({ tool: "view", input: {}, access: { reads: ["/etc/x"] } }),
    "paths.read",
  );
  // Relative paths are taken from the workspace.
  assert.deepEqual(await coder.check({ tool: "view", input: {}, access: { reads: ["a/b"] } }), {
    allow: true,
  });
  const reader = createGate({ profile: resolveProfile("r", cfg), workspace: "/w" });
  assert.deepEqual(
    await reader.check({ tool: "view", input: {}, access: { reads: ["/opt/docs/a/b.md"] } }),
    { allow: true },
  );
  denied(
    await reader.check({ tool: "view", input: {}, access: { reads: ["/opt/x"] } }),
    "paths.read",
  );
});

Deno.test("--add-dir folders: read and written like the workspace, paths.deny still holds", async () => {
  const cfg = {
    agents: {
      narrow: {
        allowed_tools: ["view", "write"],
        paths: { write: ["src/**"], deny: ["secrets/**", "*.pem"] },
      },
    },
  };
  const base = resolveProfile("narrow", cfg);
  const profile = { ...base, paths: { ...base.paths, dirs: ["/extra"] } };
  const gate = createGate({ profile, workspace: "/w" });
  const write = (path: string) =>
    gate.check({ tool: "write", input: {}, access: { writes: [path] } });
  const view = (path: string) => gate.check({ tool: "view", input: {}, access: { reads: [path] } });
  assert.deepEqual(await write("/extra/out/a.txt"), { allow: true });
  assert.deepEqual(await view("/extra/b.txt"), { allow: true });
  // paths.write still narrows the workspace; other places stay out.
  denied(await write("/w/docs/x.md"), "paths.write");
  denied(await write("/extrax/a"), "paths.write");
  denied(await view("/etc/passwd"), "paths.read");
  // Deny globs: slash-less ones anywhere, relative ones from the added folder too.
  denied(await write("/extra/key.pem"), "paths.deny");
  denied(await view("/extra/secrets/token"), "paths.deny");
  // Without the folder the same write is refused.
  const plain = createGate({ profile: base, workspace: "/w" });
  denied(
    await plain.check({ tool: "write", input: {}, access: { writes: ["/extra/a"] } }),
    "paths.write",
  );
});
