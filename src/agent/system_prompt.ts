/**
 * Assembles the system prompt from parts gathered by the app. Pure and ordered the
 * same way every turn, so providers can cache it; every part has a size cap.
 */

export interface ContextFile {
  /** Path as shown to the model (relative to the workspace when inside it). */
  path: string;
  content: string;
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
  environment: EnvironmentInfo;
  contextFiles: ContextFile[];
  providerPrefix?: string;
  profilePrompt?: string;
  mcpInstructions: Array<{ server: string; text: string }>;
  skills: Skill[];
}

/** Caps in characters; about 4 characters a token. */
export const PROMPT_CAPS = {
  contextFile: 20_000,
  contextTotal: 60_000,
  mcpInstructions: 8_000,
  gitStatus: 2_000,
  profilePrompt: 20_000,
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

export function buildSystemPrompt(parts: PromptParts): string {
  const sections: string[] = [];
  if (parts.providerPrefix) sections.push(parts.providerPrefix.trim());
  sections.push(BASE_PROMPT);
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
    const list = parts.skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join("\n");
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
    const status = env.git.status.trim()
      ? cap(env.git.status.trim(), PROMPT_CAPS.gitStatus)
      : "clean";
    lines.push(`Git status:\n${status}`);
    if (env.git.commits.trim()) lines.push(`Recent commits:\n${env.git.commits.trim()}`);
  } else {
    lines.push("Not a git repository.");
  }
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
    const body = cap(f.content.trim(), Math.min(PROMPT_CAPS.contextFile, budget));
    budget -= body.length;
    blocks.push(`## ${f.path}\n\n${body}`);
  }
  return `# Project instructions\n\nThe project's context files, to follow:\n\n${
    blocks.join("\n\n")
  }`;
}

export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... cut: ${text.length - max} more characters]`;
}
