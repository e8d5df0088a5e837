/**
 * Assembles the system prompt from parts gathered by the app. Pure and ordered the
 * same way every turn, so providers can cache it; every part has a size cap.
 */
import { endingText, introText, type RunShape, untrustedText } from "./prompt_text.ts";

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
  /** The workspace root: what the file tools may change (unless the profile says otherwise). */
  workspace: string;
  /** Where the run started: relative paths resolve against it until a `cd` in bash. */
  cwd: string;
  os: string;
  date: string;
  git?: { branch: string; status: string; commits: string };
  /** `--add-dir` folders: read and written like the workspace. */
  addedDirs?: readonly string[];
}

export interface PromptParts {
  /** "task" for sub-agents: their answer goes to another agent, not to a person. */
  role?: "agent" | "task";
  /** Names of the tools offered on this run: the prompt tells only what they allow. */
  tools: readonly string[];
  environment: EnvironmentInfo;
  contextFiles: ContextFile[];
  profilePrompt?: string;
  mcpInstructions: Array<{ server: string; text: string }>;
  skills: Skill[];
  /** `--output-schema`'s section (answer_check.ts); the prompt's own answer rules defer to it. */
  answerFormat?: string;
  /** `--system-prompt-file`: replaces the opening and the ending rules (the rest stays). */
  base?: string;
  /** `--append-system-prompt`: the last section. */
  appended?: string;
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

/**
 * The provider's `system_prompt_prefix` is not part of it: the provider sends that as
 * a system message of its own before this one (crush does the same), on every request.
 */
export function buildSystemPrompt(parts: PromptParts): string {
  const tools = new Set(parts.tools);
  const shape: RunShape = {
    role: parts.role ?? "agent",
    tools,
    answerFormat: parts.answerFormat !== undefined,
    skills: parts.skills.length > 0,
  };
  const sections: string[] = [];
  if (parts.base !== undefined) sections.push(parts.base.trim(), untrustedText(shape));
  else sections.push(introText(shape), endingText(shape), untrustedText(shape));
  sections.push(environmentBlock(parts.environment, tools.has("bash")));
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
  if (parts.answerFormat) sections.push(parts.answerFormat);
  if (parts.appended?.trim()) sections.push(parts.appended.trim());
  return sections.join("\n\n");
}

function environmentBlock(env: EnvironmentInfo, bash: boolean): string {
  const paths = env.cwd === env.workspace
    ? [`Workspace root and working directory: ${env.cwd}`]
    : [`Workspace root: ${env.workspace}`, `Working directory: ${env.cwd}`];
  if (env.addedDirs?.length) {
    paths.push(`Also yours to read and write, like the workspace: ${env.addedDirs.join(", ")}`);
  }
  const lines = [
    "# Environment",
    "",
    ...paths,
    "Relative paths in every tool resolve against the working directory" +
    (bash ? "; a cd in bash moves it for every tool." : "."),
    `Platform: ${env.os}`,
    `Date: ${env.date}`,
  ];
  if (env.git) {
    lines.push(`Git branch: ${env.git.branch || "(detached)"}`);
    const status = env.git.status.trim() ? gitStatus(env.git.status) : "clean";
    lines.push(
      `Git status when the run started (not updated; mopac's data folder left out):\n${status}`,
    );
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
