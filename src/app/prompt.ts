/** Gathers the parts of the system prompt for a run and assembles it. */
import { resolve } from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import type { Profile } from "../permission/profiles.ts";
import { buildSystemPrompt } from "../agent/system_prompt.ts";
import { ConfigError } from "../util/errors.ts";
import { environmentInfo, findContextFiles, findSkills } from "./context.ts";

export async function buildPrompt(opts: {
  loaded: LoadedConfig;
  cwd: string;
  model: ResolvedModel;
  profile: Profile;
  mcpInstructions: Array<{ server: string; text: string }>;
}): Promise<string> {
  const { loaded, cwd, profile } = opts;
  const options = loaded.config.options ?? {};
  return buildSystemPrompt({
    environment: await environmentInfo(cwd, new Date()),
    contextFiles: await findContextFiles(loaded.workspaceRoot, cwd, options.context_paths ?? []),
    providerPrefix: opts.model.system_prompt_prefix,
    profilePrompt: await profilePrompt(profile, loaded),
    mcpInstructions: opts.mcpInstructions,
    skills: await findSkills(loaded.workspaceRoot, options.skills_paths ?? []),
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
