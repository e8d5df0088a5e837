import assert from "node:assert/strict";
import { assignToolNames, baseToolName, MAX_TOOL_NAME } from "../../src/mcp/naming.ts";

const names = (pairs: Array<[string, string]>) =>
  assignToolNames(pairs.map(([server, tool]) => ({ server, tool }))).map((n) => n.name);

Deno.test("names are mcp_<server>_<tool> with single underscores", () => {
  assert.deepEqual(names([["github", "get_issue"], ["fs", "read-file"]]), [
    "mcp_github_get_issue",
    "mcp_fs_read-file",
  ]);
});

Deno.test("characters outside [A-Za-z0-9_-] become underscores", () => {
  assert.equal(baseToolName("my.server", "tools/list ä"), "mcp_my_server_tools_list__");
  for (const n of names([["a b", "c:d"], ["ü", "x.y.z"]])) assert.match(n, /^[A-Za-z0-9_-]+$/);
});

Deno.test("long names are cut to 64 characters with a stable hash suffix", () => {
  const server = "a-very-long-server-name-for-the-enterprise";
  const tool = "and_an_even_longer_tool_name_that_goes_on_and_on";
  const [name] = names([[server, tool]]);
  assert.equal(name.length, MAX_TOOL_NAME);
  assert.match(name, /^mcp_a-very-long-server-name.*_[0-9a-f]{8}$/);
  assert.equal(names([[server, tool]])[0], name, "same input, same name");
  const [other] = names([[server, tool + "2"]]);
  assert.notEqual(other, name);
  assert.equal(other.length, MAX_TOOL_NAME);
});

Deno.test("names that collide after sanitising stay unique; the first keeps its plain name", () => {
  const result = names([["s", "a.b"], ["s", "a_b"], ["s", "a b"], ["s.", "x"], ["s_", "x"]]);
  assert.equal(new Set(result).size, result.length);
  assert.equal(result[0], "mcp_s_a_b");
  assert.match(result[1], /^mcp_s_a_b_[0-9a-f]{8}$/);
  assert.match(result[2], /^mcp_s_a_b_[0-9a-f]{8}$/);
  assert.equal(result[3], "mcp_s__x");
  assert.match(result[4], /^mcp_s__x_[0-9a-f]{8}$/);
});

Deno.test("many long names sharing a prefix are all unique and short enough", () => {
  const prefix = "x".repeat(80);
  const result = names(
    Array.from({ length: 200 }, (_, i) => ["srv", `${prefix}${i}`] as [string, string]),
  );
  assert.equal(new Set(result).size, 200);
  for (const n of result) assert.ok(n.length <= MAX_TOOL_NAME);
});
