import assert from "node:assert/strict";
import {
  narrowProfile,
  type Profile,
  resolveProfile,
  withinParent,
} from "../../src/permission/profiles.ts";
import { BUILTIN_TOOL_NAMES } from "../../src/domain/tool_records.ts";
import { ConfigError, UsageError } from "../../src/util/errors.ts";
import { createGate } from "../../src/permission/gate.ts";

const sorted = (p: Profile) => [...p.tools].sort();

Deno.test("built-in profiles are exact allowlists", () => {
  const coder = resolveProfile(undefined, {});
  assert.equal(coder.name, "coder");
  // fetch only for the hosts the operator lists: none by default, so not offered.
  assert.deepEqual(sorted(coder), BUILTIN_TOOL_NAMES.filter((t) => t !== "fetch").sort());
  assert.equal(coder.mcp, "all");
  assert.equal(coder.paths.write, undefined); // writes: the workspace
  assert.equal(coder.fetchHosts, undefined);

  const readonly = resolveProfile("readonly", {});
  assert.deepEqual(sorted(readonly), ["glob", "grep", "ls", "todos", "view"]);
  assert.deepEqual(readonly.mcp, {});

  const task = resolveProfile("task", {});
  assert.deepEqual(sorted(task), ["glob", "grep", "ls", "todos", "view"]);
  assert.deepEqual(task.mcp, {});
});

Deno.test("built-in profiles offer fetch only for the hosts the operator lists", () => {
  const hosts = { fetch: { hosts: ["docs.example.com"] } };
  const coder = resolveProfile(undefined, { agents: { coder: hosts } });
  assert.ok(coder.tools.has("fetch"));
  assert.deepEqual(coder.fetchHosts, ["docs.example.com"]);
  assert.ok(resolveProfile("task", { agents: { task: hosts } }).tools.has("fetch"));
  assert.ok(
    !resolveProfile(undefined, { agents: { coder: { fetch: { hosts: [] } } } }).tools.has("fetch"),
  );
  // A user profile that lists fetch gets it (any host unless fetch.hosts says); an empty list, not.
  assert.ok(
    resolveProfile("u", { agents: { u: { allowed_tools: ["fetch"] } } }).tools.has("fetch"),
  );
  const none = { agents: { u: { allowed_tools: ["fetch"], fetch: { hosts: [] } } } };
  assert.ok(!resolveProfile("u", none).tools.has("fetch"));
  assert.throws(
    () => resolveProfile(undefined, {}, { tools: "view,fetch" }),
    (err: unknown) => err instanceof UsageError && /agents\.coder\.fetch\.hosts/.test(err.message),
  );
});

Deno.test("options.disabled_tools takes tools away from every profile", () => {
  const cfg = {
    options: { disabled_tools: ["bash", "sourcegraph"] },
    agents: { u: { allowed_tools: ["bash", "view"] }, task: { fetch: { hosts: ["h"] } } },
  };
  for (const name of ["coder", "u", "readonly", "task"]) {
    assert.ok(!resolveProfile(name, cfg).tools.has("bash"), name);
  }
  assert.deepEqual(sorted(resolveProfile("u", cfg)), ["view"]);
  assert.ok(resolveProfile("coder", cfg).tools.has("view"), "only the listed tools go");
  assert.throws(
    () => resolveProfile("coder", cfg, { tools: "bash" }),
    (err: unknown) => err instanceof UsageError && /options\.disabled_tools/.test(err.message),
  );
});

Deno.test("a sub-agent's profile lies within its parent's: tools, hosts, paths and bash intersect", async () => {
  const parentCfg = {
    agents: {
      coder: {
        fetch: { hosts: ["docs.example.com"] },
        paths: { deny: ["secrets/**"] },
        bash: { deny: ["git push"] },
      },
      task: {
        allowed_tools: ["view", "ls", "fetch", "bash"],
        fetch: { hosts: ["docs.example.com", "evil.example.com"] },
      },
    },
  };
  const parent = resolveProfile(undefined, parentCfg, { tools: "view,bash,fetch,agent" });
  const child = withinParent(resolveProfile("task", parentCfg), parent);
  assert.deepEqual(sorted(child), ["bash", "fetch", "view"]); // ls: --tools took it from the parent
  const ws = await Deno.realPath(await Deno.makeTempDir());
  try {
    const gate = createGate({ profile: child, workspace: ws });
    assert.equal(gate.allows("ls"), false);
    const host = (h: string) => gate.check({ tool: "fetch", input: {}, access: { hosts: [h] } });
    assert.deepEqual(await host("docs.example.com:443"), { allow: true });
    assert.equal((await host("evil.example.com:443")).allow, false, "the parent's hosts hold");
    const read = await gate.check({
      tool: "view",
      input: {},
      access: { reads: [`${ws}/secrets/key.txt`] },
    });
    assert.equal(read.allow, false, "the parent's paths.deny holds");
    assert.equal(gate.paths.readable(`${ws}/secrets/key.txt`), false);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("options.default_agent picks the profile when -a is absent", () => {
  assert.equal(
    resolveProfile(undefined, { options: { default_agent: "readonly" } }).name,
    "readonly",
  );
  assert.equal(resolveProfile("task", { options: { default_agent: "readonly" } }).name, "task");
});

Deno.test("a user profile allows exactly what it lists", () => {
  const cfg = {
    agents: {
      fixer: {
        allowed_tools: ["view", "edit"],
        allowed_mcp: { github: ["get_issue", "list_*"], off: false },
        paths: { write: ["src/**"], deny: [".env"] },
        max_turns: 40,
      },
      empty: {},
    },
  };
  const fixer = resolveProfile("fixer", cfg);
  assert.deepEqual(sorted(fixer), ["edit", "view"]);
  assert.deepEqual(fixer.mcp, { github: ["get_issue", "list_*"] });
  assert.deepEqual(fixer.paths.write, ["src/**"]);
  assert.equal(fixer.limits.max_turns, 40);
  assert.equal(fixer.builtin, false);

  const gate = createGate({ profile: fixer, workspace: "/w" });
  assert.equal(gate.allows("edit"), true);
  assert.equal(gate.allows("bash"), false);
  assert.equal(gate.allows("mcp_github_get_issue", { server: "github", tool: "get_issue" }), true);
  assert.equal(gate.allows("mcp_github_list_prs", { server: "github", tool: "list_prs" }), true);
  assert.equal(gate.allows("mcp_github_merge", { server: "github", tool: "merge" }), false);
  assert.equal(gate.allows("mcp_off_x", { server: "off", tool: "x" }), false);
  assert.equal(gate.allows("mcp_other_x", { server: "other", tool: "x" }), false);

  const empty = resolveProfile("empty", cfg);
  assert.deepEqual(sorted(empty), []);
  assert.equal(createGate({ profile: empty, workspace: "/w" }).allows("view"), false);
});

Deno.test("a config entry named like a built-in refines it, keeping unlisted fields", () => {
  const coder = resolveProfile("coder", { agents: { coder: { model: "large", max_cost: 2 } } });
  assert.deepEqual(sorted(coder), BUILTIN_TOOL_NAMES.filter((t) => t !== "fetch").sort());
  assert.equal(coder.mcp, "all");
  assert.equal(coder.model, "large");
  const narrowed = resolveProfile("coder", {
    agents: { coder: { allowed_tools: ["view"], allowed_mcp: { gh: true } } },
  });
  assert.deepEqual(sorted(narrowed), ["view"]);
  assert.deepEqual(narrowed.mcp, { gh: true });
});

Deno.test("unknown profile → UsageError listing known names", () => {
  assert.throws(
    () => resolveProfile("nope", { agents: { fixer: {} } }),
    (err: unknown) =>
      err instanceof UsageError && /"nope"/.test(err.message) &&
      /coder, fixer, readonly, task/.test(err.message),
  );
  assert.throws(
    () => resolveProfile(undefined, { options: { default_agent: "ghost" } }),
    UsageError,
  );
});

Deno.test("unknown tool in agents.*.allowed_tools → ConfigError", () => {
  assert.throws(
    () => resolveProfile("x", { agents: { x: { allowed_tools: ["view", "sudo"] } } }),
    (err: unknown) =>
      err instanceof ConfigError && /agents\.x\.allowed_tools.*"sudo"/.test(err.message),
  );
});

Deno.test("--tools narrows and can never widen", () => {
  const p = resolveProfile("readonly", {}, { tools: "view,grep" });
  assert.deepEqual(sorted(p), ["grep", "view"]);
  // bash is not in readonly: naming it is an error, never a widening.
  assert.throws(
    () => resolveProfile("readonly", {}, { tools: "view,grep,bash" }),
    (err: unknown) =>
      err instanceof UsageError && /"bash" not allowed by profile/.test(err.message),
  );
  const q = resolveProfile("coder", {}, { tools: ["view", "bash"] });
  assert.deepEqual(sorted(q), ["bash", "view"]);
  const none = resolveProfile("coder", {}, { tools: "" });
  assert.deepEqual(sorted(none), []);
});

Deno.test("--tools with an unknown name → UsageError", () => {
  assert.throws(
    () => resolveProfile("coder", {}, { tools: "view,frobnicate" }),
    (err: unknown) => err instanceof UsageError && /"frobnicate"/.test(err.message),
  );
});

Deno.test("--tools narrows MCP tools by model-visible name or glob", () => {
  const p = resolveProfile("coder", {}, { tools: "view,mcp_github_*" });
  const gate = createGate({ profile: p, workspace: "/w" });
  assert.equal(gate.allows("mcp_github_get", { server: "github", tool: "get" }), true);
  assert.equal(gate.allows("mcp_jira_get", { server: "jira", tool: "get" }), false);
  // No mcp_ entry at all: no MCP tools.
  const q = resolveProfile("coder", {}, { tools: "view" });
  assert.equal(
    createGate({ profile: q, workspace: "/w" }).allows("mcp_github_get", {
      server: "github",
      tool: "get",
    }),
    false,
  );
  // Narrowing MCP by name never widens allowed_mcp.
  const r = narrowProfile(resolveProfile("readonly", {}), ["mcp_github_get"], "flag");
  assert.equal(
    createGate({ profile: r, workspace: "/w" }).allows("mcp_github_get", {
      server: "github",
      tool: "get",
    }),
    false,
  );
});

Deno.test("permissions.allowed_tools narrows every profile (crush's tool:action form accepted)", () => {
  const cfg = {
    permissions: { allowed_tools: ["view", "bash:execute", "sourcegraph", "mcp_gh_*"] },
    agents: { fixer: { allowed_tools: ["view", "edit", "bash"] } },
  };
  assert.deepEqual(sorted(resolveProfile("coder", cfg)), ["bash", "view"]);
  assert.deepEqual(sorted(resolveProfile("fixer", cfg)), ["bash", "view"]);
  assert.deepEqual(sorted(resolveProfile("task", cfg)), ["view"]);
  const gate = createGate({ profile: resolveProfile("coder", cfg), workspace: "/w" });
  assert.equal(gate.allows("mcp_gh_x", { server: "gh", tool: "x" }), true);
  assert.equal(gate.allows("mcp_other_x", { server: "other", tool: "x" }), false);
  // And --tools narrows further, never back.
  assert.deepEqual(sorted(resolveProfile("coder", cfg, { tools: "bash" })), ["bash"]);
  assert.throws(() => resolveProfile("coder", cfg, { tools: "bash,edit" }), UsageError);
});
