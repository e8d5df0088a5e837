/**
 * The client command the MCP conformance suite (`npm:@modelcontextprotocol/conformance`)
 * runs as `<command> <server-url>`, with the scenario in MCP_CONFORMANCE_SCENARIO and
 * its credentials in MCP_CONFORMANCE_CONTEXT. It drives mopac's real CLI the way an
 * operator would: it writes the server into the operator's own mopac.json with the
 * OAuth keys the context calls for, runs `mopac mcp login` (its browser is tests/_support/oauth_opener.ts)
 * where the scenario needs a user login, then `mopac mcp tools` and a `mopac run` whose
 * (fake) model calls every tool. A run refused for more scope logs in again once and
 * runs again, as an operator following mopac's message would. Exit 0 only when all
 * of it worked.
 */
import { startFakeOpenAI } from "../_support/fake_openai.ts";
import type { ParsedRequest, ScriptedTurn } from "../_support/fake_openai.ts";
import { events, type MopacRun, runMopac } from "../_support/run_mopac.ts";
import { BASH_RUN, JAIL_ENV } from "../_support/jail.ts";
import { DENO_RUN } from "../_support/deps.ts";

/** The client-ID metadata document URL the suite expects (its CIMD_CLIENT_METADATA_URL). */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const SERVER = "conformance";
const OPENER_SCRIPT = new URL("../_support/oauth_opener.ts", import.meta.url).pathname;
/** `--open-with`: the test browser, from the cache like every Deno a test starts. */
const OPENER = [Deno.execPath(), ...DENO_RUN, "-A", OPENER_SCRIPT].join(" ");
/** Scenarios whose tokens come without a user: nothing to log in to. */
const MACHINE = [
  "auth/client-credentials-basic",
  "auth/client-credentials-jwt",
  "auth/cross-app-access-complete-flow",
];

type Context = Record<string, string>;

/** A value of the right type for each required property, so `add_numbers` gets numbers. */
function sampleArgs(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, { type?: string; default?: unknown }>;
  const required = (schema?.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const key of required) {
    const prop = props[key] ?? {};
    args[key] = prop.default ??
      ({ number: 2, integer: 2, boolean: true, string: "test", array: [], object: {} } as const)[
        prop.type as "number"
      ] ?? "test";
  }
  return args;
}

/** The model: first every MCP tool at once, then an answer. */
function callEveryTool(req: ParsedRequest): ScriptedTurn {
  if (req.messages.some((m) => m.role === "tool")) return { text: "called every tool" };
  const tools = (req.tools ?? []).filter((t) => t.function.name.startsWith("mcp_"));
  if (tools.length === 0) return { text: "no tools" };
  return {
    tool_calls: tools.map((t) => ({
      name: t.function.name,
      arguments: sampleArgs(t.function.parameters),
    })),
  };
}

async function serverBlock(
  scenario: string,
  url: string,
  ctx: Context,
  work: string,
): Promise<Record<string, unknown>> {
  const base = { type: "http", url, required: true, timeout: 30 };
  switch (scenario) {
    case "auth/client-credentials-basic":
      return {
        ...base,
        oauth_grant: "client_credentials",
        oauth_client_id: ctx.client_id,
        oauth_client_secret: "$CONFORMANCE_CLIENT_SECRET",
      };
    case "auth/client-credentials-jwt": {
      const key = `${work}/client-key.pem`;
      await Deno.writeTextFile(key, ctx.private_key_pem, { mode: 0o600 });
      return {
        ...base,
        oauth_grant: "client_credentials",
        oauth_client_id: ctx.client_id,
        oauth_private_key_file: key,
        oauth_signing_algorithm: ctx.signing_algorithm ?? "ES256",
      };
    }
    case "auth/cross-app-access-complete-flow":
      return {
        ...base,
        oauth_client_id: ctx.client_id,
        oauth_client_secret: "$CONFORMANCE_CLIENT_SECRET",
        oauth_idp: {
          issuer: ctx.idp_issuer,
          token_endpoint: ctx.idp_token_endpoint,
          client_id: ctx.idp_client_id,
          id_token: "$CONFORMANCE_ID_TOKEN",
        },
      };
    case "auth/pre-registration":
      return {
        ...base,
        oauth_client_id: ctx.client_id,
        oauth_client_secret: "$CONFORMANCE_CLIENT_SECRET",
      };
    default:
      return scenario.startsWith("auth/") ? { ...base, oauth_client_metadata_url: CIMD_URL } : base;
  }
}

function report(step: string, run: MopacRun): void {
  console.error(`--- ${step}: exit ${run.code}\n${run.stderr.trim()}\n${run.stdout.trim()}`);
}

const [url] = Deno.args;
if (!url) {
  console.error("usage: conformance_client.ts SERVER_URL");
  Deno.exit(2);
}
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "(none)";
const ctx: Context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-conformance-" }));
const fake = await startFakeOpenAI({ turns: callEveryTool });
await Deno.mkdir(`${work}/home`);
// The server goes into the operator's own config (XDG_CONFIG_HOME below): a project's
// config is not trusted with MCP servers. The run's folder holds nothing.
await Deno.mkdir(`${work}/project`);
await Deno.mkdir(`${work}/config/mopac`, { recursive: true });
await Deno.writeTextFile(
  `${work}/config/mopac/mopac.json`,
  JSON.stringify({
    providers: {
      fake: {
        type: "openai-compat",
        base_url: fake.url,
        api_key: "$FAKE_API_KEY",
        models: [{ id: "fake-model", context_window: 128000, default_max_tokens: 4096 }],
      },
    },
    models: { large: { provider: "fake", model: "fake-model" } },
    mcp: { [SERVER]: await serverBlock(scenario, url, ctx, work) },
  }),
);
const host = new URL(url).hostname;
const mopac = (args: string[]) =>
  runMopac(args, {
    cwd: `${work}/project`,
    perms: {
      net: [host, "127.0.0.1", "localhost"],
      read: [work],
      write: [work],
      // The run offers bash, which runs in the OS jail (or without, where none works).
      run: [Deno.execPath(), ...BASH_RUN],
      env: true,
    },
    env: {
      HOME: `${work}/home`,
      XDG_DATA_HOME: `${work}/data`,
      XDG_CONFIG_HOME: `${work}/config`,
      FAKE_API_KEY: "sk-fake-conformance",
      CONFORMANCE_CLIENT_SECRET: ctx.client_secret ?? "",
      CONFORMANCE_ID_TOKEN: ctx.idp_id_token ?? "",
      ...JAIL_ENV,
    },
  });
const login = async () => {
  const run = await mopac([
    "mcp",
    "login",
    SERVER,
    "--open-with",
    OPENER,
  ]);
  report("mopac mcp login", run);
  return run.code === 0;
};

/** True when every tool call of the run succeeded; "login" when one asked for a login. */
async function runAll(): Promise<boolean | "login"> {
  const run = await mopac(["run", "-o", "stream-json", "--max-turns", "3", "call every tool"]);
  report("mopac run", run);
  if (run.code !== 0) return false;
  const results = events(run.stdout).filter((e) => e.type === "tool_result");
  if (results.some((e) => e.is_error && String(e.output).includes("mopac mcp login"))) {
    return "login";
  }
  return results.every((e) => !e.is_error);
}

let ok = false;
try {
  const needsLogin = scenario.startsWith("auth/") && !MACHINE.includes(scenario);
  if (!needsLogin || await login()) {
    const tools = await mopac(["mcp", "tools", SERVER]);
    report("mopac mcp tools", tools);
    if (tools.code === 0) {
      let outcome = await runAll();
      if (outcome === "login" && await login()) outcome = await runAll();
      ok = outcome === true;
    }
  }
} finally {
  await fake.close();
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
console.error(`scenario ${scenario}: ${ok ? "passed" : "failed"}`);
Deno.exit(ok ? 0 : 1);
