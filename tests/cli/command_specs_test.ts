/**
 * The command table is what the parsers, the help and the completions share: every
 * flag a command's parser accepts is in its help (with its short form), every command
 * is in the overview and in each completion script, and "did you mean" finds the flag
 * or command that was meant.
 */
import assert from "node:assert/strict";
import { COMMAND_SPECS } from "../../src/cli/command_specs.ts";
import { MAIN_HELP } from "../../src/cli/help.ts";
import { completionScript, flagsOf, SHELLS } from "../../src/cli/completion_scripts.ts";
import { didYouMean, flagSuggestion } from "../../src/cli/suggest.ts";
import { RUN_OPTIONS } from "../../src/cli/flags.ts";

Deno.test("every flag of every command is in that command's help, with its short form", () => {
  const missing: string[] = [];
  for (const [name, spec] of Object.entries(COMMAND_SPECS)) {
    for (const [flag, option] of Object.entries(spec.options)) {
      const shown = option.short ? `-${option.short}, --${flag}` : `--${flag}`;
      if (!new RegExp(`(^|\\s)${shown}\\b`, "m").test(spec.help)) missing.push(`${name} ${shown}`);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("every command is in the overview, and the overview names no other", () => {
  const listed = [...MAIN_HELP.matchAll(/^ {2}mopac (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(listed.sort(), Object.keys(COMMAND_SPECS).sort());
  for (const [name, spec] of Object.entries(COMMAND_SPECS)) {
    assert.match(spec.help, new RegExp(`^Usage: mopac ${name}\\b`), name);
  }
});

Deno.test("each completion script names every command and every flag", () => {
  for (const shell of SHELLS) {
    const script = completionScript(shell);
    for (const [name, spec] of Object.entries(COMMAND_SPECS)) {
      assert.match(script, new RegExp(`\\b${name}\\b`), `${shell}: ${name}`);
      for (const flag of flagsOf(spec)) {
        const as = shell === "fish" ? `-l ${flag.name}\\b` : `--${flag.name}\\b`;
        assert.match(script, new RegExp(as), `${shell}: ${name} --${flag.name}`);
      }
    }
  }
});

Deno.test("completions describe a flag by its help line", () => {
  const model = flagsOf(COMMAND_SPECS.run).find((f) => f.name === "model")!;
  assert.equal(model.short, "m");
  assert.equal(model.takesValue, true);
  assert.match(model.description, /^large model/);
  const format = flagsOf(COMMAND_SPECS.run).find((f) => f.name === "output-format")!;
  assert.deepEqual(format.values, ["text", "json", "stream-json"]);
});

Deno.test("did you mean: commands, long flags, short flags in the wrong case", () => {
  assert.equal(
    didYouMean("rn", Object.keys(COMMAND_SPECS), (n) => `mopac ${n}`),
    "did you mean 'mopac run'?",
  );
  assert.equal(didYouMean("sesions", Object.keys(COMMAND_SPECS)), "did you mean 'sessions'?");
  assert.equal(didYouMean("zzzzzz", Object.keys(COMMAND_SPECS)), "");
  assert.equal(flagSuggestion("Unknown option '--modle'", RUN_OPTIONS), "did you mean '--model'?");
  assert.equal(
    flagSuggestion("Unknown option '--max'", RUN_OPTIONS),
    "did you mean '--max-turns' or '--max-tokens' or '--max-cost'?",
  );
  assert.equal(flagSuggestion("Unknown option '-M'", RUN_OPTIONS), "did you mean '-m' (--model)?");
  assert.equal(flagSuggestion("Unknown option '--zzzzzzzz'", RUN_OPTIONS), "");
});
