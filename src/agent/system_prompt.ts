/**
 * Assembles the system prompt from parts gathered by the app. Pure and ordered the
 * same way every turn, so providers can cache it; every part has a size cap.
 */

export interface ContextFile {
  /** Path as shown to the model (relative to the workspace when inside it). */
  path: string;
  content: string;
  /** Set when only the start of a very large file was read. */
  truncated?: boolean;
}

export interface Skill {
  name: string;
  description: string;
  /** Path of its SKILL.md for the model to open with `view`. */
  path: string;
}

export interface EnvironmentInfo {
  cwd: string;
  os: string;
  date: string;
  git?: { branch: string; status: string; commits: string };
}

export interface PromptParts {
  /** "task" for sub-agents: their answer goes to another agent, not to a person. */
  role?: "agent" | "task";
  environment: EnvironmentInfo;
  contextFiles: ContextFile[];
  profilePrompt?: string;
  mcpInstructions: Array<{ server: string; text: string }>;
  skills: Skill[];
}

/** Caps in characters (about 4 characters a token), and lines of `git status`. */
export const PROMPT_CAPS = {
  contextFile: 20_000,
  contextTotal: 60_000,
  mcpInstructions: 8_000,
  gitStatus: 2_000,
  gitStatusLines: 30,
  gitCommits: 1_000,
  profilePrompt: 20_000,
  skillDescription: 500,
};

export const BASE_PROMPT =
  `You are mopac, an autonomous coding agent running headless: nobody is watching \
and nobody will answer questions. Work the task to completion on your own.

- Do not ask questions or wait for confirmation. When something is unclear, choose the most \
reasonable interpretation, act on it, and state the assumption in your final answer.
- Look before you change: read the relevant files (view, grep, glob, ls) and follow the \
conventions you find there.
- Make changes with the edit tools; keep them focused on the task.
- Verify your work: run the project's tests, type checks or linters with bash when they exist, \
and fix what you broke.
- Some tool calls may be refused by the permission policy. A refusal is final for this run: \
do not retry the same call; find another allowed way or report what you could not do.
- Finish with a short report: what you changed (files), how you verified it, and anything left \
undone. Keep it plain text, no preamble.`;

/** For sub-agents (the `agent` tool): another agent reads the answer, not a person. */
export const TASK_PROMPT = `You are a mopac sub-agent: another agent handed you a \
self-contained task and will read your final answer. Nobody will answer questions.

- Find the answer with the tools you are given; a refused call is final, do not retry it.
- Answer directly and concisely with the facts asked for: absolute file paths, line numbers and \
short code excerpts where they matter. No preamble, no offer of further help.
- When something cannot be found, say so and say where you looked.`;

/**
 * The provider's `system_prompt_prefix` is not part of it: the provider sends that as
 * a system message of its own before this one (crush does the same), on every request.
 */
export function buildSystemPrompt(parts: PromptParts): string {
  const sections: string[] = [];
  sections.push(parts.role === "task" ? TASK_PROMPT : BASE_PROMPT);
  sections.push(environmentBlock(parts.environment));
  if (parts.profilePrompt?.trim()) {
    sections.push(
      `# Instructions for this agent\n\n${
        cap(parts.profilePrompt.trim(), PROMPT_CAPS.profilePrompt)
      }`,
    );
  }
  const context = contextBlock(parts.contextFiles);
  if (context) sections.push(context);
  if (parts.mcpInstructions.length > 0) {
    const body = parts.mcpInstructions
      .map((i) => `## ${i.server}\n\n${cap(i.text.trim(), PROMPT_CAPS.mcpInstructions)}`)
      .join("\n\n");
    sections.push(`# MCP server instructions\n\n${body}`);
  }
  if (parts.skills.length > 0) {
    const list = parts.skills
      .map((s) =>
        `- ${s.name}: ${oneLine(s.description, PROMPT_CAPS.skillDescription)} (${s.path})`
      )
      .join("\n");
    sections.push(
      `# Skills\n\nThese skills are available. When one fits the task, open its SKILL.md with view and follow it.\n\n${list}`,
    );
  }
  return sections.join("\n\n");
}

function environmentBlock(env: EnvironmentInfo): string {
  const lines = [
    "# Environment",
    "",
    `Working directory: ${env.cwd}`,
    `Platform: ${env.os}`,
    `Date: ${env.date}`,
  ];
  if (env.git) {
    lines.push(`Git branch: ${env.git.branch || "(detached)"}`);
    const status = env.git.status.trim() ? gitStatus(env.git.status) : "clean";
    lines.push(`Git status:\n${status}`);
    const commits = env.git.commits.trim();
    if (commits) lines.push(`Recent commits:\n${cap(commits, PROMPT_CAPS.gitCommits)}`);
  }
  // No git block when there is no repository, or git is not allowed or too slow: saying
  // "not a repository" could be wrong.
  return lines.join("\n");
}

function contextBlock(files: ContextFile[]): string {
  if (files.length === 0) return "";
  let budget = PROMPT_CAPS.contextTotal;
  const blocks: string[] = [];
  for (const f of files) {
    if (budget <= 0) {
      blocks.push(
        `## ${f.path}\n\n[omitted: the context files exceed ${PROMPT_CAPS.contextTotal} characters]`,
      );
      continue;
    }
    const max = Math.min(PROMPT_CAPS.contextFile, budget);
    let body = cap(f.content.trim(), max);
    if (f.truncated && body.length <= max) body += "\n[... cut: the file is longer]";
    budget -= Math.min(body.length, max);
    blocks.push(`## ${f.path}\n\n${body}`);
  }
  return `# Project instructions\n\nThe project's context files, to follow:\n\n${
    blocks.join("\n\n")
  }`;
}

function gitStatus(status: string): string {
  const lines = status.trimEnd().split("\n");
  const shown = lines.slice(0, PROMPT_CAPS.gitStatusLines).join("\n");
  const more = lines.length - PROMPT_CAPS.gitStatusLines;
  return cap(shown, PROMPT_CAPS.gitStatus) + (more > 0 ? `\n[... ${more} more lines]` : "");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... cut: ${text.length - max} more characters]`;
}
