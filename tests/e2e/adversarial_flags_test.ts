/**
 * A hostile user's flags and config files, through main.ts under narrow permissions:
 * every bad input is exit 2 with a one-line reason on stderr, nothing on stdout, no
 * stack trace and no model request; odd but valid input runs.
 */
import assert from "node:assert/strict";
import { scriptText } from "../_support/fake_openai.ts";
import { cleanDenoEnv, denoFlags, MAIN, type MopacRun } from "../_support/run_mopac.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { DENO_RUN } from "../_support/deps.ts";

async function withWs(fn: (ws: Workspace) => Promise<void>, turns = [scriptText("ok")]) {
  await using ws = await workspace({ turns });
  await fn(ws);
}

function mopac(ws: Workspace, args: string[], stdin?: string): Promise<MopacRun> {
  return ws.run(args, { stdin });
}

function assertRefused(r: MopacRun, pattern: RegExp, what: string) {
  assert.equal(r.code, 2, `${what}: ${r.stderr}`);
  assert.match(r.stderr, pattern, what);
  assert.equal(r.stdout, "", `${what}: stdout stays empty`);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at .*\.ts:\d+|Warning/, what);
}

Deno.test("adversarial: bad flag values and commands are exit 2 and never reach the model", async () => {
  await withWs(async (ws) => {
    const cases: Array<[string[], RegExp]> = [
      [["run", "--max-turns", "0", "x"], /--max-turns needs a positive whole number, got '0'/],
      [["run", "--max-turns", "-1", "x"], /--max-turns/],
      [["run", "--max-turns", "abc", "x"], /--max-turns needs a positive whole number/],
      [["run", "--timeout", "0", "x"], /--timeout: expected a duration/],
      [["run", "--timeout", "10x", "x"], /--timeout: expected a duration .* got "10x"/],
      [["run", "-o", "yaml", "x"], /unknown output format 'yaml'/],
      [["run", "--on-deny", "maybe", "x"], /unknown --on-deny mode 'maybe'/],
      [["run", "--tools", "nosuchtool", "x"], /--tools: unknown tool "nosuchtool"/],
      [["run", "-s", "", "x"], /--session needs a value/],
      // An unset variable (-m "$MODEL", --config "$CFG") must not quietly mean the default.
      [["run", "-m", "", "x"], /--model needs a value, got an empty string/],
      [["run", "--config", "", "x"], /--config needs a value/],
      [["run", "--config", ws.dir, "x"], /config file .* is a directory/],
      [
        ["run", "--config", `${ws.dir}/missing.json`, "x"],
        /missing\.json given by --config does not exist/,
      ],
      // Outside --allow-read: the sandbox names the flag.
      [["run", "--config", "/etc/hostname", "x"], /--allow-read=\/etc\/hostname/],
      [["run", "--cwd", `${ws.dir}/missing`, "x"], /working directory .*\/missing does not exist/],
      [
        ["run", "--cwd", `${ws.dir}/mopac.json`, "x"],
        /working directory .*mopac\.json is not a directory/,
      ],
      [
        ["run", "--data-dir", `${ws.dir}/mopac.json`, "x"],
        /data dir .*mopac\.json is not a directory/,
      ],
      [["frobnicate"], /unknown command 'frobnicate'/],
      [["sessions", "show"], /`show` takes one session ID/],
    ];
    for (const [args, pattern] of cases) {
      assertRefused(await mopac(ws, args), pattern, args.join(" "));
    }
    assert.equal(ws.fake.requests.length, 0);
  });
});

Deno.test("adversarial: --help of models, config and sandbox prints their help, not an error or a result", async () => {
  await withWs(async (ws) => {
    for (const args of [["models", "--help"], ["config", "--help"], ["sandbox", "--help"]]) {
      const r = await mopac(ws, args);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: mopac ${args[0]} `), args.join(" "));
      assert.equal(r.stderr, "");
    }
  });
});

Deno.test("adversarial: a repeated flag takes the last value; a prompt after -- may start with a dash", async () => {
  await withWs(async (ws) => {
    const r = await mopac(ws, ["run", "-m", "nosuch/x", "-m", "fake/fake-model", "--", "-v --foo"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "ok\n");
    const user = ws.fake.turnRequests()[0].messages.find((m) => m.role === "user");
    assert.equal(user?.content, "-v --foo");
  });
});

Deno.test("adversarial: a timeout beyond what a timer can hold does not end the run at once", async () => {
  // setTimeout(…, > 2^31-1 ms) fires immediately: "1000h" used to exit 4 at the start.
  await withWs(async (ws) => {
    const r = await mopac(ws, ["run", "-q", "--timeout", "1000h", "hi"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "ok\n");
    // -q: nothing at all was said on stderr.
    assert.equal(r.stderr, "");
  });
});

Deno.test("adversarial: --record to a missing folder fails before the model acts; paths are relative to --cwd", async () => {
  await withWs(async (ws) => {
    const r = await mopac(ws, ["run", "--record", "nodir/cassette.jsonl", "hi"]);
    assertRefused(r, /cannot write the cassette .*nodir\/cassette\.jsonl/, "--record nodir/…");
    assert.equal(ws.fake.requests.length, 0, "no request before the failure");

    await Deno.mkdir(`${ws.dir}/sub`);
    const args = ["run", "--cwd", `${ws.dir}/sub`, "--config", `${ws.dir}/mopac.json`];
    // Write access to sub/ only, as `mopac sandbox` would compute for this cwd.
    const perms = { ...ws.perms, write: [`${ws.dir}/sub`] };
    const rec = await ws.run([...args, "--record", "c.jsonl", "hi"], { perms });
    assert.equal(rec.code, 0, rec.stderr);
    assert.ok((await Deno.stat(`${ws.dir}/sub/c.jsonl`)).size > 0, "recorded under --cwd");
  });
});

Deno.test("adversarial: odd config files: empty, BOM, CRLF, non-objects, duplicate keys, huge numbers, $(false)", async () => {
  await withWs(async (ws) => {
    const file = `${ws.dir}/over.json`;
    const run = async (text: string) => {
      await Deno.writeTextFile(file, text);
      return await mopac(ws, ["run", "--config", file, "hi"]);
    };
    const refused: Array<[string, RegExp]> = [
      ["[]", /over\.json:1:1: a config file must hold a JSON object/],
      ["null", /over\.json:1:1: a config file must hold a JSON object/],
      ['{\r\n  "options": {\r\n    "debug": tru\r\n  }\r\n}\r\n', /over\.json:3:14: invalid JSON/],
      ['{"deep": {"er": {"still": {"unknown": 1}}}}', /over\.json:1:2: unknown key "deep"/],
      ['{"limits": {"max_turns": 1e400}}', /limits\.max_turns/],
      ['{"limits": {"max_turns": 99999999999999999999}}', /limits\.max_turns: Too big/],
      ['{"options": {"request_timeout": 99999999}}', /options\.request_timeout: Too big/],
      ['{"options": {"data_directory": "$(false)"}}', /\$\(false\) failed with exit code 1/],
      [
        '{"providers": {"fake": {"models": [{"id": "fake-model", "context_window": 0}]}}}',
        /context_window: Too small/,
      ],
      [
        '{"providers": {"nob": {"api_key": "k", "models": [{"id": "m"}]}}, "models": {"large": {"provider": "nob", "model": "m"}}}',
        /providers\.nob\.base_url is not set/,
      ],
      // The parsed value is the last duplicate: the error points at that one (column 47).
      ['{"options":{"debug":false},"options":{"debug":1}}', /over\.json:1:47: options\.debug/],
    ];
    for (const [text, pattern] of refused) assertRefused(await run(text), pattern, text);
    assert.equal(ws.fake.requests.length, 0);

    for (const text of ["", "// only a comment\n", '\ufeff{"options": {"debug": false}}']) {
      const r = await run(text);
      assert.equal(r.code, 0, `${JSON.stringify(text)}: ${r.stderr}`);
    }
  }, [scriptText("ok"), scriptText("ok"), scriptText("ok")]);
});

Deno.test("adversarial: prompts with NUL bytes, invalid UTF-8 and 2 MB arrive whole", async () => {
  await withWs(async (ws) => {
    const nul = await mopac(ws, ["run"], "a\u0000b");
    assert.equal(nul.code, 0, nul.stderr);
    const bad = await withRawStdin(ws, new Uint8Array([0x61, 0xff, 0xfe, 0xc3, 0x28, 0x62]));
    assert.equal(bad, 0);
    const big = "x".repeat(2 * 1024 * 1024);
    const r = await mopac(ws, ["run", "summarize"], big);
    assert.equal(r.code, 0, r.stderr);
    const prompts = ws.fake.turnRequests().map((req) => req.messages.at(-1)?.content);
    assert.deepEqual(prompts, ["a\u0000b", "a\ufffd\ufffd\ufffd(b", `${big}\n\nsummarize`]);
    assert.deepEqual(ws.fake.rejected, []);
  }, [scriptText("ok"), scriptText("ok"), scriptText("ok")]);
});

/** `mopac run` with bytes on stdin that are not a valid string; returns the exit code. */
async function withRawStdin(ws: Workspace, bytes: Uint8Array): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...DENO_RUN, ...denoFlags(ws.perms), MAIN, "run"],
    cwd: ws.dir,
    clearEnv: true,
    env: { ...cleanDenoEnv(), ...FAKE_ENV },
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(bytes);
  await writer.close();
  return (await child.status).code;
}
