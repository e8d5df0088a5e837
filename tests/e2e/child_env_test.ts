/**
 * What the processes mopac starts for others see of its environment: a stdio MCP
 * server and a PreToolUse hook get the clean base (PATH, HOME, locale, temp dir and
 * the like) plus what their config passes (`env`, and for a server the variables its
 * `env_vars` names), never a provider key or a variable the operator did not pass.
 * server-everything's `get-env` prints its environment to the model: no key in it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { FIXTURE } from "../_support/mcp_helpers.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";
import { everythingStdio } from "../_support/mcp_everything.ts";
import { INHERITED } from "../../src/util/child_env.ts";
import { assertNoSecret, filesBelow, world } from "./_untrusted.ts";

const MORE_SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-operator-55aa",
  AWS_SECRET_ACCESS_KEY: "aws-operator-secret-66bb",
  RANDOM_VAR: "not-passed-77cc",
};

/** Names a shell sets on its own, and the base every child gets. */
const BASE = new Set([
  ...INHERITED,
  "TERM",
  "NO_COLOR",
  "PAGER",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_TERMINAL_PROMPT",
  "PWD",
  "OLDPWD",
  "SHLVL",
  "_",
]);

function parseEnv(text: string): Map<string, string> {
  return new Map(
    text.split("\n").filter((l) => l.includes("=")).map((l) => {
      const i = l.indexOf("=");
      return [l.slice(0, i), l.slice(i + 1)];
    }),
  );
}

Deno.test("MCP servers and hooks see the clean base plus what config passes, never a key", async () => {
  const w = await world({
    turns: [
      scriptToolCall("mcp_ev_get-env", {}),
      scriptToolCall("bash", { command: "true" }),
      scriptText("done"),
    ],
  }, {});
  try {
    const mcpEnv = join(w.root, "mcp-env.txt");
    const hookEnv = join(w.root, "hook-env.txt");
    const operator = join(w.root, "operator.json");
    await Deno.writeTextFile(
      operator,
      JSON.stringify({
        models: { large: { model: "openai/gpt-4.1" } },
        mcp: {
          probe: {
            command: "bash",
            args: [
              "-c",
              `env > ${mcpEnv}; exec ${Deno.execPath()} ${DENO_RUN.join(" ")} -A ${FIXTURE} stdio`,
            ],
            env: { CONFIGURED: "yes" },
            env_vars: ["PASS_ME"],
            enabled_tools: ["echo"],
            start_timeout: START_TIMEOUT_S,
          },
          ev: { ...everythingStdio(), enabled_tools: ["get-env"] },
        },
        hooks: { PreToolUse: [{ matcher: "^bash$", command: `env > ${hookEnv}` }] },
      }),
    );
    const r = await w.mopac(
      ["run", "--config", operator, "-o", "stream-json", "show me the environment"],
      { ...MORE_SECRETS, PASS_ME: "passed-on" },
    );
    assert.equal(r.code, 0, r.stderr);
    const ev = events(r.stdout);
    assert.deepEqual(
      (ev[0].mcp_servers as Array<{ name: string; status: string }>).map((s) => s.status),
      ["connected", "connected"],
    );

    const probe = parseEnv(await Deno.readTextFile(mcpEnv));
    assert.equal(probe.get("CONFIGURED"), "yes");
    assert.equal(probe.get("PASS_ME"), "passed-on");
    const extra = [...probe.keys()].filter((k) =>
      !BASE.has(k) && k !== "CONFIGURED" && k !== "PASS_ME"
    );
    assert.deepEqual(extra, [], "variables the operator did not pass");

    const printed = ev.find((e) => e.type === "tool_result" && e.name === "mcp_ev_get-env");
    assert.ok(printed && !printed.is_error, JSON.stringify(printed));
    const serverEnv = JSON.parse(String(printed.output)) as Record<string, string>;
    assert.ok(serverEnv.PATH, "the server got the base");
    assert.deepEqual(
      // Deno sets npm_config_user_agent for npm packages it runs.
      Object.keys(serverEnv).filter((k) => !BASE.has(k) && k !== "npm_config_user_agent"),
      [],
      "server-everything's get-env shows nothing beyond the base",
    );

    const hook = parseEnv(await Deno.readTextFile(hookEnv));
    assert.equal(hook.get("MOPAC_TOOL_NAME"), "bash");
    assert.equal(hook.get("MOPAC_EVENT"), "PreToolUse");
    assert.equal(hook.get("CRUSH_TOOL_INPUT_COMMAND"), "true", "crush's variables too");
    // crush's variables (CRUSH_*, CRUSH, AGENT, AI_AGENT) beside MOPAC_*, and nothing else.
    const documented = (k: string) =>
      /^(MOPAC|CRUSH)_/.test(k) || ["CRUSH", "AGENT", "AI_AGENT"].includes(k);
    assert.deepEqual(
      [...hook.keys()].filter((k) => !BASE.has(k) && !documented(k)),
      [],
      "the hook got more than its documented variables",
    );

    for (
      const [where, text] of [
        ["the probe's env", await Deno.readTextFile(mcpEnv)],
        ["get-env", String(printed.output)],
        ["the hook's env", await Deno.readTextFile(hookEnv)],
        ["stdout", r.stdout],
        ["stderr", r.stderr],
      ]
    ) {
      assertNoSecret(where, text);
      for (const value of Object.values(MORE_SECRETS)) {
        assert.ok(!text.includes(value), `${where} contains ${value}`);
      }
    }
    for (const [file, bytes] of await filesBelow(join(w.repo, ".mopac"))) {
      assertNoSecret(file, bytes);
    }
  } finally {
    await w.close();
  }
});
