import assert from "node:assert/strict";
import {
  BASE_PROMPT,
  buildSystemPrompt,
  cap,
  PROMPT_CAPS,
  type PromptParts,
  TASK_PROMPT,
} from "../../src/agent/system_prompt.ts";

function parts(extra: Partial<PromptParts> = {}): PromptParts {
  return {
    environment: { cwd: "/w/app", os: "linux x86_64", date: "2025-01-02" },
    contextFiles: [],
    mcpInstructions: [],
    skills: [],
    ...extra,
  };
}

Deno.test("the base prompt and the environment come first; without git info no git block", () => {
  const text = buildSystemPrompt(parts());
  assert.ok(text.startsWith(BASE_PROMPT));
  assert.match(text, /Working directory: \/w\/app\nPlatform: linux x86_64\nDate: 2025-01-02/);
  assert.doesNotMatch(text, /Git branch|Git status|Recent commits/);
  // Written for headless work: no questions, act, verify, report.
  assert.match(BASE_PROMPT, /Do not ask questions/);
  assert.match(BASE_PROMPT, /Verify your work/);
  assert.match(BASE_PROMPT, /Finish with a short report/);
});

Deno.test("the git block has branch, status lines and commits; a detached HEAD and a clean tree are named", () => {
  const text = buildSystemPrompt(parts({
    environment: {
      cwd: "/w",
      os: "linux",
      date: "d",
      git: { branch: "main", status: " M src/a.ts\n?? new.txt\n", commits: "abc123 first\n" },
    },
  }));
  assert.match(
    text,
    /Git branch: main\nGit status:\n M src\/a\.ts\n\?\? new\.txt\nRecent commits:\nabc123 first/,
  );
  const detached = buildSystemPrompt(parts({
    environment: { cwd: "/w", os: "l", date: "d", git: { branch: "", status: "", commits: "" } },
  }));
  assert.match(detached, /Git branch: \(detached\)\nGit status:\nclean/);
  assert.doesNotMatch(detached, /Recent commits/);
});

Deno.test("a long git status is cut by lines and by size", () => {
  const many = Array.from({ length: 100 }, (_, i) => `?? file${i}.txt`).join("\n");
  const text = buildSystemPrompt(parts({
    environment: { cwd: "/w", os: "l", date: "d", git: { branch: "b", status: many, commits: "" } },
  }));
  assert.match(text, /\?\? file29\.txt\n\[\.\.\. 70 more lines\]/);
  assert.doesNotMatch(text, /file30\.txt/);
  const wide = Array.from({ length: 20 }, (_, i) => `?? ${"x".repeat(300)}${i}`).join("\n");
  const text2 = buildSystemPrompt(parts({
    environment: { cwd: "/w", os: "l", date: "d", git: { branch: "b", status: wide, commits: "" } },
  }));
  assert.match(text2, /\[\.\.\. cut: \d+ more characters\]/);
  assert.ok(text2.length < BASE_PROMPT.length + PROMPT_CAPS.gitStatus + 500);
});

Deno.test("context files appear in order, each under its path", () => {
  const text = buildSystemPrompt(parts({
    contextFiles: [
      { path: "AGENTS.md", content: "root rules\n" },
      { path: "pkg/AGENTS.md", content: "package rules" },
    ],
  }));
  const root = text.indexOf("## AGENTS.md\n\nroot rules");
  const pkg = text.indexOf("## pkg/AGENTS.md\n\npackage rules");
  assert.ok(root > 0 && pkg > root, text);
  assert.match(text, /# Project instructions/);
});

Deno.test("a huge context file is capped, and so is the total of all of them", () => {
  const huge = "a".repeat(PROMPT_CAPS.contextFile * 3);
  const one = buildSystemPrompt(parts({ contextFiles: [{ path: "AGENTS.md", content: huge }] }));
  assert.match(
    one,
    new RegExp(`\\[\\.\\.\\. cut: ${PROMPT_CAPS.contextFile * 2} more characters\\]`),
  );
  assert.ok(one.length < BASE_PROMPT.length + PROMPT_CAPS.contextFile + 1_000);

  const files = Array.from({ length: 5 }, (_, i) => ({
    path: `f${i}.md`,
    content: String(i).repeat(PROMPT_CAPS.contextFile),
  }));
  const all = buildSystemPrompt(parts({ contextFiles: files }));
  const shown = Math.floor(PROMPT_CAPS.contextTotal / PROMPT_CAPS.contextFile);
  for (let i = 0; i < shown; i++) {
    assert.ok(all.includes(String(i).repeat(PROMPT_CAPS.contextFile)));
  }
  for (let i = shown; i < files.length; i++) {
    assert.match(all, new RegExp(`## f${i}\\.md\\n\\n\\[omitted: the context files exceed`));
  }
  assert.ok(all.length < BASE_PROMPT.length + PROMPT_CAPS.contextTotal + 2_000);
});

Deno.test("a file read only in part says it is longer", () => {
  const text = buildSystemPrompt(parts({
    contextFiles: [{ path: "big.md", content: "start of it", truncated: true }],
  }));
  assert.match(text, /start of it\n\[\.\.\. cut: the file is longer\]/);
});

Deno.test("profile prompt, MCP instructions and skills have their sections, in a fixed order", () => {
  const p = parts({
    profilePrompt: "Only touch tests/.",
    contextFiles: [{ path: "AGENTS.md", content: "ctx" }],
    mcpInstructions: [{ server: "github", text: "Use list_issues first." }],
    skills: [{ name: "pdf", description: "Fill PDF\n  forms", path: "/s/pdf/SKILL.md" }],
  });
  const text = buildSystemPrompt(p);
  const order = [
    "# Environment",
    "# Instructions for this agent\n\nOnly touch tests/.",
    "# Project instructions",
    "# MCP server instructions\n\n## github\n\nUse list_issues first.",
    "# Skills",
    "- pdf: Fill PDF forms (/s/pdf/SKILL.md)",
  ].map((s) => text.indexOf(s));
  assert.ok(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1])), String(order));
  assert.match(text, /open its SKILL\.md with view/);
  // Pure: the same parts give the same bytes (the prompt is cache friendly).
  assert.equal(buildSystemPrompt(p), text);
});

Deno.test("long MCP instructions and a long profile prompt are capped", () => {
  const text = buildSystemPrompt(parts({
    profilePrompt: "p".repeat(PROMPT_CAPS.profilePrompt + 10),
    mcpInstructions: [{ server: "s", text: "m".repeat(PROMPT_CAPS.mcpInstructions + 5) }],
  }));
  assert.match(text, /\[\.\.\. cut: 10 more characters\]/);
  assert.match(text, /\[\.\.\. cut: 5 more characters\]/);
});

Deno.test("cap leaves short text alone", () => {
  assert.equal(cap("abc", 3), "abc");
  assert.equal(cap("abcd", 3), "abc\n[... cut: 1 more characters]");
});

Deno.test("sub-agents get the task brief instead of the coding agent's", () => {
  const text = buildSystemPrompt(parts({ role: "task" }));
  assert.ok(text.startsWith(TASK_PROMPT));
  assert.ok(!text.includes(BASE_PROMPT));
  assert.match(TASK_PROMPT, /another agent .* will read your final answer/s);
});
