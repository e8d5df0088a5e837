/**
 * `mopac completions bash|zsh|fish` prints scripts the shells accept and that complete
 * every command, flags and flag values; `mopac --version` names mopac's version, the
 * commit it runs from and Deno's version, and never asks for a permission.
 */
import assert from "node:assert/strict";
import { MAIN, REPO, runMopac } from "../_support/run_mopac.ts";
import { DENO_RUN } from "../_support/deps.ts";

const has = (shell: string) => {
  try {
    return new Deno.Command(shell, { args: ["-c", "true"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
};

async function script(shell: string): Promise<string> {
  const r = await runMopac(["completions", shell], { cwd: Deno.cwd(), perms: {} });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  return r.stdout;
}

/** The commands `mopac --help` lists: what the completions must offer. */
async function helpCommands(): Promise<string[]> {
  const r = await runMopac(["--help"], { cwd: Deno.cwd(), perms: {} });
  return [...r.stdout.matchAll(/^ {2}mopac (\w+)/gm)].map((m) => m[1]).sort();
}

async function inShell(shell: string, program: string): Promise<string> {
  const out = await new Deno.Command(shell, { args: ["-c", program], stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test("completions bash: bash -n accepts it; it completes every command, flags and values", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mopac-compl-" });
  try {
    const file = `${dir}/mopac.bash`;
    await Deno.writeTextFile(file, await script("bash"));
    const syntax = await new Deno.Command("bash", { args: ["-n", file], stderr: "piped" }).output();
    assert.ok(syntax.success, new TextDecoder().decode(syntax.stderr));
    const complete = (words: string[]) =>
      inShell(
        "bash",
        `source '${file}'; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); ` +
          `COMP_CWORD=${words.length - 1}; _mopac; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ).then((o) => o.trim().split("\n"));
    const top = await complete(["mopac", ""]);
    const commands = top.filter((w) => !w.startsWith("-"));
    assert.deepEqual(commands.sort(), await helpCommands());
    assert.ok(top.includes("--cwd") && top.includes("--version"), top.join(" "));
    assert.deepEqual(await complete(["mopac", "run", "--mod"]), ["--model"]);
    assert.deepEqual(await complete(["mopac", "--cwd", "/tmp", "run", "-o", ""]), [
      "text",
      "json",
      "stream-json",
    ]);
    assert.deepEqual(await complete(["mopac", "sessions", "re"]), ["reindex"]);
    assert.deepEqual(await complete(["mopac", "completions", "z"]), ["zsh"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "completions zsh and fish: the shells accept them; fish completes commands and values",
  async fn() {
    for (const shell of ["zsh", "fish"]) {
      if (!has(shell)) {
        console.log(`NOTE: ${shell} is not installed: its completion script is not checked`);
        continue;
      }
      const dir = await Deno.makeTempDir({ prefix: "mopac-compl-" });
      try {
        const file = `${dir}/mopac.${shell}`;
        const text = await script(shell);
        await Deno.writeTextFile(file, text);
        const syntax = await new Deno.Command(shell, { args: ["-n", file], stderr: "piped" })
          .output();
        assert.ok(syntax.success, `${shell}: ${new TextDecoder().decode(syntax.stderr)}`);
        if (shell === "zsh") {
          assert.match(text, /^#compdef mopac\n/);
          continue;
        }
        const complete = (line: string) =>
          inShell("fish", `source '${file}'; complete -C '${line}'`)
            .then((o) => o.trim().split("\n").map((l) => l.split("\t")[0]));
        assert.deepEqual((await complete("mopac ")).sort(), await helpCommands());
        assert.deepEqual((await complete("mopac run -o ")).sort(), ["json", "stream-json", "text"]);
        assert.ok((await complete("mopac sessions ")).includes("search"));
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  },
});

Deno.test("completions: an unknown shell is exit 2 with the ones there are", async () => {
  const r = await runMopac(["completions", "bsh"], { cwd: Deno.cwd(), perms: {} });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /no completions for 'bsh'\nhint: did you mean 'bash'/);
});

Deno.test("--version: mopac's version, the commit it runs from, Deno's version", async () => {
  const git = (...args: string[]) =>
    new TextDecoder().decode(
      new Deno.Command("git", { args: ["-C", REPO, ...args], stdout: "piped" }).outputSync().stdout,
    ).trim();
  const head = git("rev-parse", "HEAD");
  // Where git keeps this checkout's HEAD and refs (a worktree's live outside it).
  const gitDirs = [git("rev-parse", "--absolute-git-dir"), git("rev-parse", "--git-common-dir")]
    .map((d) => d.startsWith("/") ? d : `${REPO}${d}`);
  const r = await runMopac(["--version"], { cwd: Deno.cwd(), perms: { read: gitDirs } });
  assert.equal(r.code, 0, r.stderr);
  const [first, second] = r.stdout.trimEnd().split("\n");
  const { version } = JSON.parse(await Deno.readTextFile(`${REPO}deno.json`));
  assert.equal(first, `mopac ${version} (commit ${head.slice(0, 12)})`);
  assert.equal(
    second,
    `deno ${Deno.version.deno} (v8 ${Deno.version.v8}, typescript ${Deno.version.typescript})`,
  );

  // Without read access to the checkout it asks nothing and says "unknown".
  const away = await Deno.makeTempDir({ prefix: "mopac-version-" });
  const bare = await new Deno.Command(Deno.execPath(), {
    args: [...DENO_RUN, "--no-prompt", MAIN, "--version"],
    cwd: away,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(away));
  const text = new TextDecoder().decode(bare.stdout);
  assert.equal(bare.code, 0, new TextDecoder().decode(bare.stderr));
  assert.match(
    text,
    new RegExp(`^mopac ${version.replaceAll(".", "\\.")} \\(commit unknown\\)\\ndeno `),
  );
});
