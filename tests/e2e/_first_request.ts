/**
 * The exact first request of a run, as the model receives it: the system text and
 * the tools, captured by the fake server from a real `mopac run` in a workspace that
 * is the same on every machine (a git repository with one fixed commit, one context
 * file, one untracked file; HOME pointing nowhere so no user config or global
 * context file joins in). `normalise` replaces what still differs between machines
 * and runs: the workspace path, the date and the platform.
 */
import { scriptText } from "../_support/fake_openai.ts";
import type { ParsedRequest, ScriptedTurn } from "../_support/fake_openai.ts";
import { runMopac } from "../_support/run_mopac.ts";
import { FAKE_ENV, workspace } from "../_support/workspace.ts";

export interface FirstRequest {
  system: string;
  tools: Array<{ name: string; description: string; parameters: Record<string, unknown> }>;
}

/** Git for the fixture only: no user or system config, fixed identity and dates. */
const GIT_ENV = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Fixture",
  GIT_AUTHOR_EMAIL: "fixture@example.invalid",
  GIT_COMMITTER_NAME: "Fixture",
  GIT_COMMITTER_EMAIL: "fixture@example.invalid",
  GIT_AUTHOR_DATE: "2025-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2025-01-01T00:00:00Z",
};

async function git(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd: dir, env: GIT_ENV, stdout: "null" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

export interface Captured {
  /** The first request as the model receives it. */
  request: FirstRequest;
  /** Every request the fake answered, in order. */
  requests: ParsedRequest[];
  /** The workspace the run used (removed by now), for `normalise`. */
  dir: string;
  code: number;
  stderr: string;
}

/** Runs `mopac run <flags> hi` in the fixed workspace and returns what the model received. */
export async function captureFirstRequest(
  flags: string[],
  opts: { files?: Record<string, string>; turns?: ScriptedTurn[] } = {},
): Promise<Captured> {
  const ws = await workspace({ turns: opts.turns ?? [scriptText('{"verdict":"pass"}')] });
  try {
    await Deno.writeTextFile(`${ws.dir}/AGENTS.md`, "Run `deno task test` before you finish.\n");
    await Deno.writeTextFile(`${ws.dir}/.gitignore`, "");
    for (const [name, text] of Object.entries(opts.files ?? {})) {
      await Deno.writeTextFile(`${ws.dir}/${name}`, text);
    }
    await git(ws.dir, "init", "-q", "-b", "main");
    await git(ws.dir, "add", "-A");
    await git(ws.dir, "commit", "-q", "-m", "Initial commit");
    await Deno.writeTextFile(`${ws.dir}/notes.txt`, "untracked\n");
    const r = await runMopac(["run", ...flags, "hi"], {
      cwd: ws.dir,
      perms: { ...ws.perms, run: [...(ws.perms.run ?? []), "git"] },
      env: { ...FAKE_ENV, HOME: "/nonexistent" },
    });
    const requests = ws.fake.turnRequests();
    if (!requests[0]) throw new Error(`no request reached the fake (exit ${r.code}): ${r.stderr}`);
    return {
      request: requestOf(requests[0]),
      requests,
      dir: ws.dir,
      code: r.code,
      stderr: r.stderr,
    };
  } finally {
    await ws.close();
  }
}

/** The system text and tools of one request. */
export function requestOf(raw: ParsedRequest): FirstRequest {
  const system = raw.messages.filter((m) => m.role === "system").map((m) => String(m.content))
    .join("\n\n");
  const tools = (raw.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? "",
    parameters: t.function.parameters ?? {},
  }));
  return { system, tools };
}

/** What differs between machines and runs, replaced by placeholders. */
export function normalise(request: FirstRequest, dir: string): FirstRequest {
  const fix = (s: string) =>
    s.replaceAll(dir, "/workspace")
      .replace(/^Date: \d{4}-\d{2}-\d{2}$/m, "Date: <date>")
      .replace(/^Platform: .+$/m, "Platform: <platform>")
      .replace(/^([0-9a-f]{7,40}) /gm, "<commit> ");
  return {
    system: fix(request.system),
    tools: request.tools.map((t) => ({
      name: t.name,
      description: fix(t.description),
      parameters: JSON.parse(fix(JSON.stringify(t.parameters))),
    })),
  };
}

/** The request as a text file that reads well in a diff. */
export function render(request: FirstRequest): string {
  const parts = [`=== system\n${request.system}`];
  for (const t of request.tools) {
    parts.push(
      `=== tool ${t.name}\n${t.description}\n--- parameters\n${
        JSON.stringify(t.parameters, null, 2)
      }`,
    );
  }
  return parts.join("\n\n") + "\n";
}
