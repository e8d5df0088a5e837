/**
 * Help as a new user reaches for it: every command prints its own help for `--help`,
 * `-h` and `mopac help COMMAND`, on stdout with exit 0, without permissions and without
 * reading config (a broken one does not stop it); `mopac` alone prints the overview on
 * stderr with exit 2; the global flags --cwd, --config, --data-dir work before the
 * command as after it.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { runMopac } from "../_support/run_mopac.ts";
import { workspace } from "../_support/workspace.ts";

const COMMANDS = ["run", "sessions", "models", "mcp", "config", "schema", "sandbox", "completions"];

Deno.test("help: every command has its own, for --help, -h and `mopac help`, with no permissions", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-help-" }));
  try {
    // A broken config where help is asked: help never reads it.
    await Deno.writeTextFile(`${dir}/mopac.json`, "{ not json");
    for (const command of COMMANDS) {
      const texts = new Set<string>();
      for (const args of [[command, "--help"], [command, "-h"], ["help", command]]) {
        const r = await runMopac(args, { cwd: dir, perms: {} });
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
        assert.equal(r.stderr, "", args.join(" "));
        assert.match(r.stdout, new RegExp(`^Usage: mopac ${command}\\b`), args.join(" "));
        texts.add(r.stdout);
      }
      assert.equal(texts.size, 1, `${command}: one help, however asked`);
    }
    // Subcommands and later flags ask for the same help; after `--` it is a prompt.
    const deep = await runMopac(["sessions", "list", "--json", "--help"], { cwd: dir, perms: {} });
    assert.match(deep.stdout, /^Usage: mopac sessions /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("help: the flags people asked about are documented where they are used", async () => {
  const seen = new Map<string, string>();
  const help = async (command: string) => {
    if (!seen.has(command)) {
      const r = await runMopac([command, "--help"], { cwd: Deno.cwd(), perms: {} });
      seen.set(command, r.stdout);
    }
    return seen.get(command)!;
  };
  assert.match(await help("config"), /--sources\s+with show: where each value came from/);
  assert.match(await help("config"), /^ {2}path\s/m);
  assert.match(await help("config"), /^ {2}validate\s/m);
  assert.match(await help("sandbox"), /^ {2}-m, --model P\/M/m);
  assert.match(await help("sandbox"), /--check/);
  assert.match(await help("models"), /FILTER/);
  assert.match(await help("run"), /--color WHEN/);
  for (const command of ["sessions", "models", "mcp", "config", "schema", "sandbox"]) {
    for (const flag of ["--cwd", "--config", "--data-dir", "--trust-project"]) {
      assert.match(await help(command), new RegExp(`${flag}\\b`), `${command} ${flag}`);
    }
  }
});

Deno.test("help: `mopac` alone prints the overview on stderr and exits 2", async () => {
  const r = await runMopac([], { cwd: Deno.cwd(), perms: {} });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "", "nothing on stdout: a script's $(mopac) stays empty");
  assert.match(r.stderr, /^mopac \S+ — a headless coding agent/);
  assert.match(r.stderr, /mopac completions bash\|zsh\|fish/);
  const asked = await runMopac(["--help"], { cwd: Deno.cwd(), perms: {} });
  assert.equal(asked.code, 0);
  assert.equal(asked.stdout, r.stderr, "the same overview, on stdout when asked for");
});

Deno.test("help: --cwd, --config and --data-dir work before the command", async () => {
  await using ws = await workspace({ turns: () => scriptText("from afar") });
  const elsewhere = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-away-" }));
  try {
    const extra = `${elsewhere}/extra.json`;
    await Deno.writeTextFile(extra, JSON.stringify({ options: { debug: false } }));
    const perms = { ...ws.perms, read: [ws.dir, elsewhere], write: [ws.dir, elsewhere] };
    const opts = { cwd: elsewhere, perms };
    const data = `${elsewhere}/data`;

    const run = await ws.run(
      ["--cwd", ws.dir, "--data-dir", data, "run", "-q", "-o", "json", "hi"],
      opts,
    );
    assert.equal(run.code, 0, run.stderr);
    const { session_id } = JSON.parse(run.stdout);
    assert.equal(JSON.parse(run.stdout).result, "from afar");

    const listed = await ws.run(
      [`--cwd=${ws.dir}`, "--data-dir", data, "sessions", "list", "--json"],
      opts,
    );
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((s: { id: string }) => s.id), [session_id]);

    const path = await ws.run(["--cwd", ws.dir, "--config", extra, "config", "path"], opts);
    assert.equal(path.code, 0, path.stderr);
    const files = JSON.parse(path.stdout).files as string[];
    assert.deepEqual(files.slice(-2), [`${ws.dir}/mopac.json`, extra]);

    const missing = await ws.run(["--cwd"], opts);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--cwd needs a value/);
  } finally {
    await Deno.remove(elsewhere, { recursive: true });
  }
});
