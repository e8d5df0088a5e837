/** A temp workspace whose mopac.json points at a fake OpenAI server. */
import {
  type FakeOpenAI,
  type FakeOpenAIOptions,
  startFakeOpenAI,
} from "../_support/fake_openai.ts";
import type { Permissions } from "../_support/run_mopac.ts";
import { BASH_RUN, JAIL_ENV, JAIL_ENV_VARS } from "../_support/jail.ts";

export interface Workspace {
  dir: string;
  fake: FakeOpenAI;
  /** Narrow Deno flags for a run in this workspace. */
  perms: Permissions;
  close(): Promise<void>;
}

export async function fakeWorkspace(
  fakeOpts: FakeOpenAIOptions,
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
            models: [{
              id: "fake-model",
              name: "Fake",
              context_window: 128000,
              default_max_tokens: 4096,
              cost_per_1m_in: 1,
              cost_per_1m_out: 2,
            }],
          },
        },
        models: { large: { provider: "fake", model: "fake-model" } },
        ...config,
      },
      null,
      2,
    ),
  );
  return {
    dir,
    fake,
    perms: {
      net: [`127.0.0.1:${fake.port}`],
      read: [dir],
      write: [dir],
      run: BASH_RUN,
      env: ["FAKE_API_KEY", "HOME", "PATH", "NO_COLOR", ...JAIL_ENV_VARS],
    },
    close: async () => {
      await fake.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

export const FAKE_ENV = { FAKE_API_KEY: "sk-fake-secret-123456", ...JAIL_ENV };
