/** A stdio server's environment: the clean base, what `env_vars` names, then `env`. */
import assert from "node:assert/strict";
import { serverEnv } from "../../src/mcp/server_env.ts";
import { FIXED } from "../../src/util/child_env.ts";

const PARENT: Record<string, string> = {
  PATH: "/bin",
  HOME: "/home/ci",
  LANG: "C.UTF-8",
  OPENAI_API_KEY: "sk-x",
  GITHUB_TOKEN: "ghp-x",
  GH_TOKEN: "gho-x",
  PASS_ME: "yes",
  OTHER: "no",
};
const read = (n: string) => PARENT[n];

Deno.test("a stdio server gets the clean base, its env_vars and its env, nothing else", () => {
  assert.deepEqual(serverEnv({ command: "x" }, read), {
    PATH: "/bin",
    HOME: "/home/ci",
    LANG: "C.UTF-8",
    ...FIXED,
  });
  const env = serverEnv({
    command: "x",
    env_vars: ["PASS_ME", "GITHUB_TOKEN", "UNSET"],
    env: { TERM: "xterm", K: "v" },
  }, read);
  assert.equal(env.PASS_ME, "yes");
  assert.equal(env.GITHUB_TOKEN, "ghp-x", "an operator may pass a token on by name");
  assert.equal(env.TERM, "xterm", "env wins over the base");
  assert.equal(env.K, "v");
  assert.equal("UNSET" in env, false);
  assert.equal("OPENAI_API_KEY" in env || "GH_TOKEN" in env || "OTHER" in env, false);
});
