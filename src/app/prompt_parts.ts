/** Gathers the parts of the system prompt for a run and assembles it. */
import { resolve } from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import type { Profile } from "../permission/profiles.ts";
import { buildSystemPrompt } from "../agent/system_prompt.ts";
import { isInside } from "../permission/match.ts";
import { ConfigError } from "../util/errors.ts";
import { environmentInfo, findContextFiles } from "./project_context.ts";
import { findSkills } from "./skills.ts";
import type { SystemPromptFlags } from "./system_prompt_flags.ts";

export async function gatherSystemPrompt(opts: {
  loaded: LoadedConfig;
  cwd: string;
  model: ResolvedModel;
  profile: Profile;
  mcpInstructions: Array<{ server: string; text: string }>;
  /** Names of the tools the run offers: the prompt says only what they allow. */
  tools: readonly string[];
  /** `--output-schema`'s section. */
  answerFormat?: string;
  /** A sub-agent's prompt (the `agent` tool's child sessions). */
  subAgent?: boolean;
  /** `--system-prompt-file` and `--append-system-prompt`. */
  flags?: SystemPromptFlags;
}): Promise<string> {
  const { loaded, cwd, profile } = opts;
  const options = loaded.config.options ?? {};
  const root = loaded.workspaceRoot;
  // An untrusted project's files are read only where they really are inside it.
  const confineTo = loaded.project.trusted
    ? undefined
    : await Deno.realPath(root).catch(() => root);
  // Built once per run and sent unchanged every turn, so providers can cache it.
  const [environment, contextFiles, skills, profileText] = await Promise.all([
    environmentInfo(cwd, new Date(), {
      workspace: root,
      // The run writes its session there: that is no change of the project's.
      exclude: loaded.dataDir !== root && isInside(loaded.dataDir, root) ? [loaded.dataDir] : [],
    }),
    findContextFiles({
      root,
      cwd,
      contextPaths: options.context_paths,
      globalPaths: options.global_context_paths,
      confineTo,
    }),
    findSkills(root, {
      paths: options.skills_paths ?? [],
      disabled: options.disabled_skills,
      confineTo,
    }),
    profilePrompt(profile, loaded),
  ]);
  return buildSystemPrompt({
    role: opts.subAgent ? "task" : "agent",
    tools: opts.tools,
    environment: profile.paths.dirs?.length
      ? { ...environment, addedDirs: profile.paths.dirs }
      : environment,
    contextFiles,
    profilePrompt: profileText,
    mcpInstructions: opts.mcpInstructions,
    skills,
    answerFormat: opts.answerFormat,
    ...(opts.flags?.base ? { base: opts.flags.base.text } : {}),
    ...(opts.flags?.appended !== undefined ? { appended: opts.flags.appended } : {}),
  });
}

async function profilePrompt(profile: Profile, loaded: LoadedConfig): Promise<string | undefined> {
  if (!profile.prompt_file) return profile.prompt;
  const path = resolve(loaded.workspaceRoot, profile.prompt_file);
  try {
    const text = await Deno.readTextFile(path);
    return profile.prompt ? `${profile.prompt}\n\n${text}` : text;
  } catch (err) {
    throw new ConfigError(
      `agents.${profile.name}.prompt_file: cannot read ${path}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
