/**
 * A temp workspace for end-to-end tests: a folder whose mopac.json points at its own
 * strict fake OpenAI server, the narrow Deno flags a run there needs, and `run`, which
 * starts `main.ts` in it with those flags and the fake's key.
 *
 *   await using ws = await workspace({ turns: [scriptText("done")] });
 *   const r = await ws.run(["run", "-o", "json", "hi"]);
 *   assert.equal(r.code, 0, r.stderr);
 *   assert.deepEqual(ws.fake.rejected, []);
 *
 * The fake server and the folder go away when `ws` goes out of scope.
 */
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from "./fake_openai.ts";
import {
  type MopacRun,
  type Permissions,
  runMopac,
  spawnMopac,
  type SpawnOptions,
} from "./run_mopac.ts";
import { BASH_RUN, JAIL_ENV, JAIL_ENV_VARS } from "./jail.ts";

/**
 * The key the fake provider's config reads from `$FAKE_API_KEY`; MOPAC_TRUST_PROJECT,
 * because the workspace's mopac.json is the test's own config (tests/e2e/untrusted_*
 * run the other way round); and, where no OS jail works, what turns it off for runs
 * that offer bash (tests/_support/jail.ts).
 */
export const FAKE_ENV = {
  FAKE_API_KEY: "sk-fake-secret-123456",
  MOPAC_TRUST_PROJECT: "1",
  ...JAIL_ENV,
};

/** What `run` and `spawn` take; each defaults to the workspace's own. */
export type RunOptions = Partial<SpawnOptions>;

export interface Workspace extends AsyncDisposable {
  dir: string;
  fake: FakeOpenAI;
  /** Narrow Deno flags for a run in this workspace. */
  perms: Permissions;
  /**
   * `mopac <args>` in the workspace (or `opts.cwd`), under `perms` (or `opts.perms`),
   * with FAKE_ENV plus `opts.env`; waits for the end and returns what it printed.
   */
  run(args: string[], opts?: RunOptions): Promise<MopacRun>;
  /** The same, started and handed back for tests that watch or kill it mid-run. */
  spawn(args: string[], opts?: RunOptions): Deno.ChildProcess;
  /** Stops the fake and removes the folder (also what leaving the scope does). */
  close(): Promise<void>;
}

export async function workspace(
  fakeOpts: FakeOpenAIOptions = {},
  config: Record<string, unknown> = {},
): Promise<Workspace> {
  const fake = await startFakeOpenAI(fakeOpts);
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-e2e-" }));
  await Deno.writeTextFile(
    `${dir}/mopac.json`,
    JSON.stringify(
      {
        providers: {
          fake: {
            type: "openai-compat",
            base_url: fake.url,
            api_key: "$FAKE_API_KEY",
            models: [
              {
                id: "fake-model",
                name: "Fake",
                context_window: 128000,
                default_max_tokens: 4096,
                cost_per_1m_in: 1,
                cost_per_1m_out: 2,
              },
              // The other models the fake serves, listed as a user would (a provider
              // that lists its models serves only those), without limits or prices.
              ...(fakeOpts.models ?? []).filter((id) => id !== "fake-model").map((id) => ({ id })),
            ],
          },
        },
        models: { large: { provider: "fake", model: "fake-model" } },
        ...config,
      },
      null,
      2,
    ),
  );
  const perms: Permissions = {
    net: [`127.0.0.1:${fake.port}`],
    read: [dir],
    write: [dir],
    run: [...BASH_RUN],
    env: ["FAKE_API_KEY", "HOME", "PATH", "NO_COLOR", "MOPAC_*", ...JAIL_ENV_VARS],
  };
  let closing: Promise<void> | undefined;
  const ws: Workspace = {
    dir,
    fake,
    perms,
    run: (args, opts = {}) => runMopac(args, options(ws, opts)),
    spawn: (args, opts = {}) => spawnMopac(args, options(ws, opts)),
    close() {
      closing ??= (async () => {
        await fake.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      })();
      return closing;
    },
    [Symbol.asyncDispose]: () => ws.close(),
  };
  return ws;
}

function options(ws: Workspace, opts: RunOptions): SpawnOptions {
  return {
    ...opts,
    cwd: opts.cwd ?? ws.dir,
    perms: opts.perms ?? ws.perms,
    env: { ...FAKE_ENV, ...opts.env },
  };
}
