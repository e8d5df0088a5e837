/**
 * The adversarial corpus: many hostile project configs (tests/app/_untrusted_corpus.ts),
 * each written in many spellings (every project file name, a nested folder, the data
 * dir's file, JSONC, dotted and duplicate keys, a symlink out of the project), loaded
 * as an untrusted project under one operator config. For every case:
 *  - no `$(…)` ran (the marker file is never created) and nothing was expanded;
 *  - providers, MCP servers, hooks, env, tools, agents and permissions are the
 *    operator's, exactly; the data dir did not move;
 *  - every profile is at most the operator's: tools a subset, allow rules and write
 *    and read scopes unchanged, deny rules a superset, limits never higher;
 *  - context and skills paths the project added resolve inside the project;
 *  - a model the project chose is a listed model of a provider the operator or the
 *    catalog defines, reached with the operator's URL and key;
 *  - what it asked for beyond that is reported as ignored.
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { loadConfig, type LoadedConfig, within } from "../../src/config/mod.ts";
import { modelChoiceProblem } from "../../src/app/load_config.ts";
import { applyNarrowing, resolveProfile } from "../../src/permission/profiles.ts";
import { wideningAttempts } from "../../src/app/widening.ts";
import { resolveLimits } from "../../src/agent/limits.ts";
import { resolveModel } from "../../src/catalog/mod.ts";
import { lowerCaps } from "../../src/config/mod.ts";
import { realPathOf } from "../../src/config/trust.ts";
import { expandHome } from "../../src/app/project_context.ts";
import { type Case, corpus, MARK, spellings } from "./_untrusted_corpus.ts";

const PROFILES = ["coder", "readonly", "task", "fixer"];
const ENV: Record<string, string> = {
  OP_KEY: "op-secret-key-1234",
  OPENAI_API_KEY: "sk-op-openai",
};

interface World {
  root: string;
  repo: string;
  cwd: string;
  marker: string;
  outside: string;
  load(cwd?: string): Promise<LoadedConfig>;
}

async function makeWorld(): Promise<World> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-corpus-" }));
  const repo = join(root, "repo");
  const outside = join(root, "outside");
  await Deno.mkdir(join(repo, "docs"), { recursive: true });
  await Deno.mkdir(join(repo, "sub", "dir"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "secret.md"), "the operator's secret notes");
  await Deno.writeTextFile(join(repo, "docs", "guide.md"), "project guide");
  await Deno.symlink(outside, join(repo, "link-out"));
  await Deno.symlink(join(repo, "docs"), join(repo, "link-in"));
  const git = await new Deno.Command("git", { args: ["init", "-q", repo] }).output();
  assert.ok(git.success);
  const xdg = join(root, "xdg");
  await Deno.mkdir(join(xdg, "mopac"), { recursive: true });
  await Deno.writeTextFile(
    join(xdg, "mopac", "mopac.json"),
    JSON.stringify({
      providers: {
        corp: {
          base_url: "http://corp.internal/v1",
          api_key: "$OP_KEY",
          models: [{ id: "corp-large", cost_per_1m_in: 1, cost_per_1m_out: 2 }, {
            id: "corp-small",
          }],
        },
      },
      models: { large: { provider: "corp", model: "corp-large" } },
      mcp: { audit: { command: "audit-mcp", args: ["--strict"], sandbox: true } },
      hooks: { PreToolUse: [{ matcher: "^bash$", command: "./audit.sh" }] },
      env: { CI: "1" },
      options: { context_paths: ["/opt/ci/guide.md"] },
      permissions: {
        allowed_tools: ["view", "grep", "glob", "ls", "bash", "edit", "todos", "mcp_*"],
      },
      agents: {
        fixer: {
          allowed_tools: ["view", "grep", "bash", "edit"],
          allowed_mcp: { audit: ["check"] },
          bash: {
            allow: ["npm test", "npm run lint*"],
            deny: ["git push*"],
            network: { hosts: ["registry.npmjs.org"] },
          },
          paths: { write: ["src/**"], deny: ["**/*.pem"] },
          fetch: { hosts: ["docs.example.com"] },
          max_turns: 10,
        },
      },
      limits: { max_cost: 1, timeout: "10m" },
    }),
  );
  const world: World = {
    root,
    repo,
    cwd: repo,
    marker: join(root, MARK),
    outside,
    load: (cwd = repo) =>
      loadConfig({
        cwd,
        env: (n) => (n === "XDG_CONFIG_HOME" ? xdg : ENV[n]),
        home: join(root, "home"),
        systemFile: join(root, "none.json"),
        trustProject: false,
        modelChoiceProblem: (config, role) => modelChoiceProblem(config, role, (n) => ENV[n]),
      }),
  };
  return world;
}

function profileOf(loaded: LoadedConfig, name: string) {
  const narrowing = loaded.project.narrowing;
  const operator = resolveProfile(name, loaded.config);
  const profile = applyNarrowing(operator, narrowing);
  const own = Object.hasOwn(narrowing.agents, name) ? narrowing.agents[name].limits : {};
  const caps = lowerCaps(narrowing.limits, own);
  return {
    profile,
    limits: resolveLimits(undefined, profile, loaded.config.limits, caps),
    flagged: resolveLimits({ max_turns: 7, max_cost: 3 }, profile, loaded.config.limits, caps),
    widening: wideningAttempts(
      loaded,
      operator,
      resolveLimits(undefined, operator, loaded.config.limits),
    ),
  };
}

const superset = (big: readonly string[] | undefined, small: readonly string[] | undefined) =>
  (small ?? []).every((s) => (big ?? []).includes(s));

async function checkCase(c: Case, base: LoadedConfig, loaded: LoadedConfig, world: World) {
  const { config } = loaded;
  assert.equal(loaded.project.trusted, false);
  for (
    const key of ["providers", "mcp", "hooks", "env", "tools", "agents", "permissions"] as const
  ) {
    assert.deepEqual(config[key], base.config[key], `${key} is the operator's`);
  }
  assert.equal(config.trusted_projects, undefined);
  assert.equal(config.options?.sandbox, undefined, "the jail stays on");
  assert.deepEqual(config.limits, base.config.limits);
  assert.equal(loaded.dataDir, base.dataDir);
  assert.deepEqual(loaded.referencedEnv, base.referencedEnv, "nothing of the project expanded");
  assert.deepEqual(loaded.expandedPaths, base.expandedPaths);

  const { options = {} } = config;
  const baseOptions = base.config.options ?? {};
  for (const [key, value] of Object.entries(options)) {
    if (key === "context_paths" || key === "skills_paths") {
      const before = (baseOptions[key] ?? []) as string[];
      assert.deepEqual(
        (value as string[]).slice(0, before.length),
        before,
        `${key} keeps the operator's`,
      );
      for (const added of (value as string[]).slice(before.length)) {
        // As the readers take it: `~/` is the home folder.
        const abs = resolve(loaded.workspaceRoot, expandHome(added, join(world.root, "home")));
        assert.ok(within(abs, world.repo), `${key} ${added} inside the project`);
        assert.ok(within(await realPathOf(abs), world.repo), `${key} ${added} really inside`);
      }
    } else if (key === "disabled_tools") {
      continue; // only ever removes tools
    } else {
      assert.deepEqual(value, (baseOptions as Record<string, unknown>)[key], `options.${key}`);
    }
  }

  for (const role of ["large", "small"] as const) {
    const chosen = config.models?.[role];
    if (JSON.stringify(chosen) === JSON.stringify(base.config.models?.[role])) continue;
    const model = resolveModel(role, { config, env: (n) => ENV[n] });
    assert.equal(model.unlisted, false, `models.${role} is listed`);
    if (model.provider_id === "corp") {
      assert.equal(model.base_url, "http://corp.internal/v1");
      assert.equal(model.api_key, ENV.OP_KEY);
    } else {
      assert.equal(model.base_url.startsWith("http://corp"), false);
      assert.ok(["openai"].includes(model.provider_id), model.provider_id);
    }
    assert.equal(model.extra_headers, undefined);
    assert.equal(model.extra_body, undefined);
  }

  let reported = loaded.project.ignored.length;
  for (const name of PROFILES) {
    const was = profileOf(base, name);
    const now = profileOf(loaded, name);
    assert.ok(superset([...was.profile.tools], [...now.profile.tools]), `${name}: tools ⊆`);
    assert.deepEqual(now.profile.mcp, was.profile.mcp, `${name}: MCP allowance`);
    assert.ok(now.profile.mcpNameFilters.length >= was.profile.mcpNameFilters.length);
    assert.deepEqual(now.profile.bash?.allow, was.profile.bash?.allow, `${name}: bash.allow`);
    const network = now.profile.bash?.network;
    assert.ok(
      network === "none" || JSON.stringify(network) === JSON.stringify(was.profile.bash?.network),
      `${name}: bash.network ${JSON.stringify(network)}`,
    );
    assert.ok(superset(now.profile.bash?.deny, was.profile.bash?.deny), `${name}: bash.deny ⊇`);
    assert.deepEqual(now.profile.paths.write, was.profile.paths.write, `${name}: paths.write`);
    assert.deepEqual(now.profile.paths.read, was.profile.paths.read, `${name}: paths.read`);
    assert.ok(superset(now.profile.paths.deny, was.profile.paths.deny), `${name}: paths.deny ⊇`);
    assert.deepEqual(now.profile.fetchHosts, was.profile.fetchHosts, `${name}: fetch.hosts`);
    assert.equal(now.profile.prompt, was.profile.prompt);
    assert.equal(now.profile.prompt_file, was.profile.prompt_file);
    assert.equal(now.profile.model, was.profile.model);
    for (const [a, b] of [[now.limits, was.limits], [now.flagged, was.flagged]]) {
      for (const key of Object.keys(b) as Array<keyof typeof b>) {
        assert.ok(a[key] !== undefined && a[key]! <= b[key]!, `${name}: ${key} not raised`);
      }
    }
    reported += now.widening.length;
  }
  if (c.ignored) assert.ok(reported > 0, "what it asked for in vain is reported");
}

function existsSync(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("the adversarial corpus: an untrusted project never widens, runs or reaches anything", async (t) => {
  const world = await makeWorld();
  let cases = 0;
  let failed = 0;
  try {
    const base = await world.load();
    assert.deepEqual(base.project.files, []);
    for (const spelling of spellings(world)) {
      await t.step(spelling.name, async () => {
        for (const c of corpus(world.marker)) {
          const written = await spelling.write(c.config);
          let loaded: LoadedConfig;
          try {
            loaded = await world.load(spelling.cwd);
          } catch (err) {
            // A value of the wrong type in a key the project may set is a config error
            // (exit 2) naming the file: failing closed is allowed, never widening.
            assert.ok(c.mayFail, `${spelling.name} / ${c.name}: ${(err as Error).message}`);
            assert.equal((err as Error).name, "ConfigError", (err as Error).message);
            assert.equal(existsSync(world.marker), false, `${spelling.name} / ${c.name}: ran $(…)`);
            failed++;
            continue;
          } finally {
            for (const file of written) await Deno.remove(file).catch(() => {});
          }
          try {
            await checkCase(c, base, loaded, world);
            if (spelling.wholeFileIgnored) {
              assert.ok(loaded.project.ignored.some((i) => i.key === "*"), "file refused");
            }
          } catch (err) {
            throw new Error(`${spelling.name} / ${c.name}: ${(err as Error).message}`);
          }
          assert.equal(existsSync(world.marker), false, `${spelling.name} / ${c.name}: ran $(…)`);
          cases++;
        }
      });
    }
  } finally {
    await Deno.remove(world.root, { recursive: true });
  }
  console.log(
    `corpus: ${corpus().length} configs × ${spellings(world).length} spellings: ` +
      `${cases} loaded and checked, ${failed} refused as config errors`,
  );
});
