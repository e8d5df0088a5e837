/**
 * The setting of the untrusted-repository tests: an operator (a CI job) with its own
 * config in $XDG_CONFIG_HOME, OPENAI_API_KEY and GITHUB_TOKEN in its environment and
 * the fake server as its OpenAI endpoint; a checkout whose config files an attacker
 * wrote; and a local "attacker" listener that records whatever reaches it.
 *
 * These runs get Deno's -A on purpose: narrow Deno flags would stop a connection to
 * the attacker's port or a `$(…)` by themselves and hide a bug in mopac's own rules
 * (a compiled binary runs with every permission anyway).
 */
import { dirname, join } from "node:path";
import { type FakeOpenAIOptions, startFakeOpenAI } from "../_support/fake_openai.ts";
import type { FakeOpenAI } from "../_support/fake_openai.ts";
import { runMopac } from "../_support/run_mopac.ts";
import { JAIL_ENV } from "../_support/jail.ts";

export const SECRETS = {
  OPENAI_API_KEY: "sk-operator-openai-7f3a9c1e5b",
  GITHUB_TOKEN: "ghp_operatorGitHubToken4d2e8a",
};

export interface Listener {
  url: string;
  host: string;
  received: Array<{ method: string; path: string; headers: Record<string, string>; body: string }>;
  close(): Promise<void>;
}

/** A listener that records every request and answers 401, so a client gives up at once. */
export function startAttacker(): Listener {
  const received: Listener["received"] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    received.push({
      method: req.method,
      path: new URL(req.url).pathname,
      headers: Object.fromEntries(req.headers),
      body: await req.text(),
    });
    return new Response(JSON.stringify({ error: { message: "no", type: "auth" } }), {
      status: 401,
      headers: { "content-type": "application/json" },
    });
  });
  const host = `127.0.0.1:${server.addr.port}`;
  return { url: `http://${host}/v1`, host, received, close: () => server.shutdown() };
}

export interface World {
  root: string;
  repo: string;
  /** A file no command of the project may create. */
  marker: string;
  /** A file outside the checkout whose text must never reach the model. */
  secretFile: string;
  fake: FakeOpenAI;
  attacker: Listener;
  env: Record<string, string>;
  /** Writes a file of the checkout (path relative to the repo). */
  write(rel: string, text: string | Record<string, unknown>): Promise<string>;
  mopac(args: string[], extraEnv?: Record<string, string>): ReturnType<typeof runMopac>;
  close(): Promise<void>;
}

export const SECRET_TEXT = "TOP-SECRET-OPERATOR-NOTES-91c2";

/**
 * `operator` is merged into the operator's config, which already points the catalog's
 * `openai` provider at the fake server.
 */
export async function world(
  fakeOpts: FakeOpenAIOptions,
  operator: Record<string, unknown> = {},
): Promise<World> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-untrusted-" }));
  const repo = join(root, "checkout");
  await Deno.mkdir(repo);
  const git = await new Deno.Command("git", { args: ["init", "-q", repo] }).output();
  if (!git.success) throw new Error("git init failed");
  const fake = await startFakeOpenAI({
    apiKey: SECRETS.OPENAI_API_KEY,
    models: ["gpt-4.1"],
    ...fakeOpts,
  });
  const attacker = startAttacker();
  const secretFile = join(root, "operator-notes.txt");
  await Deno.writeTextFile(secretFile, SECRET_TEXT);
  const xdg = join(root, "xdg");
  const { providers, ...rest } = operator;
  await Deno.mkdir(join(xdg, "mopac"), { recursive: true });
  await Deno.writeTextFile(
    join(xdg, "mopac", "mopac.json"),
    JSON.stringify({
      providers: { openai: { base_url: fake.url }, ...(providers as object ?? {}) },
      ...rest,
    }),
  );
  const env = {
    ...SECRETS,
    XDG_CONFIG_HOME: xdg,
    XDG_DATA_HOME: join(root, "xdg-data"),
    // Where bubblewrap cannot build a jail, the operator turns it off (as the other e2e runs do).
    ...JAIL_ENV,
  };
  const w: World = {
    root,
    repo,
    marker: join(root, "MARKER"),
    secretFile,
    fake,
    attacker,
    env,
    async write(rel, text) {
      const path = join(repo, rel);
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeTextFile(
        path,
        typeof text === "string" ? text : JSON.stringify(text, null, 2),
      );
      return path;
    },
    mopac: (args, extraEnv = {}) =>
      runMopac(args, { cwd: repo, perms: { all: true }, env: { ...env, ...extraEnv } }),
    async close() {
      await fake.close();
      await attacker.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
  return w;
}

export async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** Every file below `dir`, read as bytes (a binary index.db included). */
export async function filesBelow(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  if (!(await exists(dir))) return out;
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) await walk(p);
      else if (e.isFile) out.set(p, await Deno.readFile(p));
    }
  };
  await walk(dir);
  return out;
}

/** Fails naming where an operator secret (or the secret file's text) shows up. */
export function assertNoSecret(where: string, content: string | Uint8Array): void {
  const text = typeof content === "string" ? content : new TextDecoder("latin1").decode(content);
  for (const value of [...Object.values(SECRETS), SECRET_TEXT]) {
    if (text.includes(value)) throw new Error(`${where} contains ${value}`);
  }
}
