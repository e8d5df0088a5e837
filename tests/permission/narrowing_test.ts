/**
 * Narrowing a profile: `options.disabled_tools` (anyone's), and what an untrusted
 * project narrows: tool lists intersect, deny rules add up, limits are capped over
 * flags, profile and config alike, and nothing of it can widen.
 */
import assert from "node:assert/strict";
import { applyNarrowing, type Profile, resolveProfile } from "../../src/permission/profiles.ts";
import { resolveLimits } from "../../src/agent/limits.ts";
import { createGate } from "../../src/permission/gate.ts";
import { PathGlobs } from "../../src/permission/match.ts";
import type { NarrowingInput } from "../../src/permission/config_shape.ts";
import { ConfigError } from "../../src/util/errors.ts";

const sorted = (p: Profile) => [...p.tools].sort();
const none = { allowed_tools: [], bash_deny: [], paths_deny: [], limits: {} };

const operator = {
  agents: {
    fixer: {
      allowed_tools: ["view", "edit", "bash", "grep"],
      allowed_mcp: { gh: ["get_*"] },
      bash: { allow: ["npm *"], deny: ["npm publish*"] },
      paths: { write: ["src/**"], deny: ["**/*.pem"] },
      max_turns: 40,
    },
  },
};

Deno.test("options.disabled_tools removes tools from every profile", () => {
  const cfg = { ...operator, options: { disabled_tools: ["bash", "fetch", "no_such_tool"] } };
  assert.deepEqual(sorted(resolveProfile("fixer", cfg)), ["edit", "grep", "view"]);
  assert.ok(!resolveProfile("coder", cfg).tools.has("fetch"));
  assert.deepEqual(sorted(resolveProfile("task", cfg)), ["glob", "grep", "ls", "todos", "view"]);
});

Deno.test("a project's narrowing intersects tools and adds deny rules; it never widens", async () => {
  const narrowing: NarrowingInput = {
    allowed_tools: [["view", "bash", "edit", "write", "fetch", "mcp_gh_*"]],
    limits: {},
    agents: {
      fixer: {
        allowed_tools: [["view", "bash", "agent"]],
        bash_deny: ["rm *"],
        paths_deny: [".env"],
        limits: {},
      },
    },
  };
  const was = resolveProfile("fixer", operator);
  const now = resolveProfile("fixer", operator, { narrowing });
  assert.deepEqual(sorted(now), ["bash", "view"]);
  assert.deepEqual(now.bash, { allow: ["npm *"], deny: ["npm publish*", "rm *"] });
  assert.deepEqual(now.paths, { read: [], write: ["src/**"], deny: ["**/*.pem", ".env"] });
  assert.deepEqual(now.mcp, was.mcp);
  assert.deepEqual(now.mcpNameFilters, [["mcp_gh_*"]]);
  assert.deepEqual(applyNarrowing(was, narrowing), now);

  const gate = createGate({ profile: now, workspace: "/" });
  const bash = (command: string) =>
    gate.check({
      tool: "bash",
      input: {},
      access: {
        shell: {
          script: command,
          commands: [{ argv: command.split(" "), text: command, dynamic: false }],
          assignments: [],
          redirects: [],
          evaluations: [],
          cd: { targets: [], unknown: false },
        },
      },
    });
  assert.equal((await bash("npm test")).allow, true);
  assert.deepEqual(await bash("rm -rf x"), {
    allow: false,
    rule: "bash.deny:rm *",
    reason: '`rm -rf x` matches the deny pattern "rm *"',
  });
  assert.equal((await bash("npm publish")).allow, false);
});

Deno.test("the built-in profiles are narrowed by name; another profile's narrowing does not apply", () => {
  const narrowing: NarrowingInput = {
    allowed_tools: [],
    limits: {},
    agents: {
      coder: { ...none, allowed_tools: [["view", "grep", "bash"]], bash_deny: ["git push*"] },
      readonly: { ...none, allowed_tools: [["bash", "write", "view"]] },
    },
  };
  const coder = resolveProfile(undefined, {}, { narrowing });
  assert.deepEqual(sorted(coder), ["bash", "grep", "view"]);
  assert.deepEqual(coder.bash, { deny: ["git push*"] });
  assert.equal(coder.mcp, "all", "agents.coder.allowed_tools names built-in tools only");
  assert.deepEqual(sorted(resolveProfile("readonly", {}, { narrowing })), ["view"]);
  assert.deepEqual(
    sorted(resolveProfile("task", {}, { narrowing })),
    sorted(resolveProfile("task", {})),
  );
});

Deno.test("--tools is checked against the operator's profile, then the project narrows further", () => {
  const narrowing: NarrowingInput = {
    allowed_tools: [["view"]],
    limits: {},
    agents: {},
  };
  const p = resolveProfile("fixer", operator, { tools: "view,bash", narrowing });
  assert.deepEqual(sorted(p), ["view"]);
});

Deno.test("a project's caps bound every limit, flags included; the lowest wins", () => {
  const profile = { name: "fixer", limits: { max_turns: 40, max_cost: 1 } };
  const config = { max_tokens: 100_000, timeout: "1h" };
  assert.deepEqual(
    resolveLimits({ max_turns: 50, max_cost: 2 }, profile, config, {
      max_turns: 5,
      max_cost: 10,
      timeout: 60,
    }),
    { max_turns: 5, max_tokens: 100_000, max_cost: 2, timeout_ms: 60_000 },
  );
  // A cap where the operator set no limit is a limit.
  assert.deepEqual(resolveLimits(undefined, undefined, undefined, { max_tokens: 10 }), {
    max_tokens: 10,
  });
  // A cap above every operator limit changes nothing.
  assert.deepEqual(
    resolveLimits(undefined, profile, config, { max_turns: 1e9, max_cost: 1e9, timeout: 1e6 }),
    resolveLimits(undefined, profile, config),
  );
  assert.throws(
    () => resolveLimits(undefined, undefined, undefined, { max_cost: 0 }),
    (err) => err instanceof ConfigError && /the project's limits\.max_cost/.test(err.message),
  );
});

Deno.test("deny globs: slash-less names match at any depth, globs with a slash match paths below", () => {
  const deny = new PathGlobs(["private/**", ".env", "**/*.pem", "/etc/**"], { anyDepth: true });
  const ws = "/ws";
  for (
    const hit of ["/ws/private/key.txt", "/ws/private", "/ws/a/.env", "/ws/x/y.pem", "/etc/passwd"]
  ) {
    assert.equal(deny.matches(hit, ws), true, hit);
  }
  for (const miss of ["/ws/src/private.ts", "/ws/public/key.txt", "/ws/.envrc"]) {
    assert.equal(deny.matches(miss, ws), false, miss);
  }
});

Deno.test('a project may take the jail\'s network away ("none"), never give it', () => {
  const cfg = { agents: { web: { allowed_tools: ["bash"], bash: { network: "all" as const } } } };
  const narrowing: NarrowingInput = {
    allowed_tools: [],
    limits: {},
    agents: { web: { ...none, bash_network_none: true } },
  };
  assert.equal(resolveProfile("web", cfg).bash?.network, "all");
  assert.equal(resolveProfile("web", cfg, { narrowing }).bash?.network, "none");
});
