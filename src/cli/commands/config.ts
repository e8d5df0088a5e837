/**
 * `mopac config show|path|validate` (show --sources names the file each value came
 * from) and `mopac schema`, the JSON Schema of the config file.
 */
import type { Io } from "../io.ts";
import { parseFlags, splitCommon } from "../flags.ts";
import { COMMAND_SPECS, CONFIG_OPTIONS } from "../command_specs.ts";
import { didYouMean } from "../suggest.ts";
import { EXIT } from "../exit_codes.ts";
import { UsageError } from "../../util/errors.ts";
import { runSecrets } from "../../secrets/sources.ts";
import { configJsonSchema, ignoredKeyOf } from "../../config/mod.ts";

export async function configCommand(argv: string[], io: Io): Promise<number> {
  const { rest, load } = splitCommon(argv, io);
  const loaded = await load();
  const { values, positionals } = parseFlags(rest, CONFIG_OPTIONS, "config");
  switch (positionals[0] ?? "show") {
    case "show":
      if (values.sources) {
        // A third column for what an untrusted project gave: how it was used, or why not.
        // Keys mopac ignores (crush's TUI, LSP, …) are listed apart, once each.
        for (const { path, source, note } of loaded.sources()) {
          if (ignoredKeyOf(path) && (!note || note.endsWith(": used"))) continue;
          io.out(`${path.join(".") || "*"}\t${source}${note ? `\t${note}` : ""}\n`);
        }
        const unused = loaded.unusedKeys();
        if (unused.length > 0) io.out("ignored (accepted for crush, unused by mopac):\n");
        for (const { path, source } of unused) io.out(`  ${path.join(".")}\t${source}\n`);
      } else {
        // Keys, header values and referenced env values never reach stdout.
        const shown = runSecrets(loaded, []).redactValue(loaded.config);
        io.out(JSON.stringify(shown, null, 2) + "\n");
      }
      return EXIT.ok;
    case "path":
      io.out(
        JSON.stringify(
          {
            files: loaded.files,
            data_dir: loaded.dataDir,
            workspace: loaded.workspaceRoot,
            project: {
              trusted: loaded.project.trusted,
              ...(loaded.project.by ? { trusted_by: loaded.project.by } : {}),
              files: loaded.project.files,
            },
          },
          null,
          2,
        ) + "\n",
      );
      return EXIT.ok;
    case "validate": {
      const { project } = loaded;
      const trust = project.trusted
        ? ""
        : project.files.length > 0
        ? `; the project's ${project.files.length} file(s) untrusted, ` +
          `${project.ignored.length} key(s) ignored`
        : "";
      io.out(`config is valid (${loaded.files.length} file(s)${trust})\n`);
      return EXIT.ok;
    }
    default: {
      const guess = didYouMean(positionals[0], ["show", "path", "validate"]);
      throw new UsageError(`unknown config command '${positionals[0]}'`, {
        hint: `${guess ? `${guess} ` : ""}use mopac config show|path|validate`,
      });
    }
  }
}

export function schemaCommand(argv: string[], io: Io): Promise<number> {
  const { positionals } = parseFlags(argv, COMMAND_SPECS.schema.options, "schema");
  if (positionals.length > 0) {
    throw new UsageError(`schema takes no arguments, got '${positionals[0]}'`, {
      hint: "mopac schema prints the JSON Schema of the config file",
    });
  }
  io.out(JSON.stringify(configJsonSchema(), null, 2) + "\n");
  return Promise.resolve(EXIT.ok);
}
