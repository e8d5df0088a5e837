import assert from "node:assert/strict";
import { applyFlagRules } from "../../src/permission/flag_rules.ts";
import { resolveProfile } from "../../src/permission/profiles.ts";
import { UsageError } from "../../src/util/errors.ts";

const CFG = {
  agents: {
    fixer: {
      allowed_tools: ["view", "bash"],
      bash: { allow: ["npm test"], deny: ["git push*"] },
      fetch: { hosts: ["api.example.com"] },
      flag_allow: ["bash:npm run *", "fetch", "fetch:*.corp.example"],
    },
    strict: { allowed_tools: ["view", "bash"], bash: { allow: ["npm test"] } },
  },
};

Deno.test("--deny: removes tools, adds bash and path deny rules, hides MCP tools", () => {
  const coder = resolveProfile("coder", {});
  const { profile } = applyFlagRules(coder, {
    allow: [],
    deny: ["fetch", "bash:git push*", "path:secrets/**", "mcp_github_*"],
  });
  assert.equal(profile.tools.has("fetch"), false);
  assert.equal(profile.tools.has("bash"), true);
  assert.deepEqual(profile.bash?.deny, ["git push*"]);
  assert.deepEqual(profile.paths.deny, ["secrets/**"]);
  assert.deepEqual(profile.mcpNameFilters, [["!mcp_github_*"]]);
});

Deno.test("--allow: extends only within the profile's flag_allow", () => {
  const fixer = resolveProfile("fixer", CFG);
  const { profile, notes } = applyFlagRules(fixer, {
    allow: ["fetch:git.corp.example", "bash:npm run lint*", "fetch", "view"],
    deny: [],
  });
  assert.deepEqual(profile.bash?.allow, ["npm test", "npm run lint*"]);
  assert.equal(profile.tools.has("fetch"), true);
  assert.deepEqual(profile.fetchHosts, ["api.example.com", "git.corp.example"]);
  assert.deepEqual(notes, ['--allow view: profile "fixer" offers it; nothing to add']);

  const refused: Array<[string, string, RegExp]> = [
    ["fixer", "bash:rm -rf*", /--allow bash:rm -rf\*: profile "fixer" does not let flags allow/],
    // Wider than the entry: "npm *" is not within "npm run *".
    ["fixer", "bash:npm *", /does not let flags allow this/],
    ["fixer", "fetch:*", /does not let flags allow this/],
    ["fixer", "grep", /does not let flags allow this/],
    ["strict", "bash:npm run lint", /flag_allow of your config/],
    ["fixer", "nosuch", /--allow nosuch: unknown tool "nosuch"/],
    ["fixer", "mcp_github_x", /unknown tool/],
    ["fixer", "path:src/**", /paths are added with --add-dir/],
    ["fixer", "bash:", /no pattern after ':'/],
  ];
  for (const [name, rule, message] of refused) {
    assert.throws(
      () => applyFlagRules(resolveProfile(name, CFG), { allow: [rule], deny: [] }),
      (err: Error) => err instanceof UsageError && message.test(`${err.message} ${err.hint}`),
      rule,
    );
  }
  assert.throws(
    () => applyFlagRules(fixer, { allow: [], deny: ["fetch:evil.example"] }),
    /--deny fetch:evil\.example: fetch has no deny list/,
  );
});

Deno.test("--allow of what a profile allows already changes nothing and says so", () => {
  const coder = resolveProfile("coder", {});
  const { profile, notes } = applyFlagRules(coder, { allow: ["bash:npm test*"], deny: [] });
  assert.equal(profile.bash?.allow, undefined, "no allow list appears: that would narrow");
  assert.match(notes[0], /no bash\.allow list: every command the ban list lets through/);
});

Deno.test("--allow fetch on a built-in profile needs its hosts too", () => {
  const cfg = { agents: { coder: { flag_allow: ["fetch", "fetch:*.corp.example"] } } };
  const coder = resolveProfile("coder", cfg);
  assert.equal(coder.tools.has("fetch"), false, "coder offers no fetch without fetch.hosts");
  assert.throws(
    () => applyFlagRules(coder, { allow: ["fetch"], deny: [] }),
    /--allow fetch: profile "coder" fetches only from listed hosts/,
  );
  const { profile } = applyFlagRules(coder, {
    allow: ["fetch:git.corp.example", "fetch"],
    deny: [],
  });
  assert.equal(profile.tools.has("fetch"), true);
  assert.deepEqual(profile.fetchHosts, ["git.corp.example"]);
});
