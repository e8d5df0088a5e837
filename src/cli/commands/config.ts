/**
 * `mopac config show|path|validate` (show --sources names the file each value came
 * from) and `mopac schema`, the JSON Schema of the config file.
 */
import type { Io } from "../io.ts";
import { parseFlags, splitCommon } from "../flags.ts";
import { EXIT } from "../exit_codes.ts";
import { UsageError } from "../../util/errors.ts";
import { runSecrets } from "../../secrets/sources.ts";
import { configJsonSchema } from "../../config/mod.ts";

export async function configCommand(argv: string[], io: Io): Promise<number> {
  const { rest, load } = splitCommon(argv);
  const loaded = await load();
  const { values, positionals } = parseFlags(
    rest,
    { sources: { type: "boolean" }, json: { type: "boolean" } },
    "config",
  );
  switch (positionals[0] ?? "show") {
    case "show":
      if (values.sources) {
        for (const { path, source } of loaded.sources()) io.out(`${path.join(".")}\t${source}\n`);
      } else {
        // Keys, header values and referenced env values never reach stdout.
        const shown = runSecrets(loaded, []).redactValue(loaded.config);
        io.out(JSON.stringify(shown, null, 2) + "\n");
      }
      return EXIT.ok;
    case "path":
      io.out(
        JSON.stringify(
          { files: loaded.files, data_dir: loaded.dataDir, workspace: loaded.workspaceRoot },
          null,
          2,
        ) + "\n",
      );
      return EXIT.ok;
    case "validate":
      io.out(`config is valid (${loaded.files.length} file(s))\n`);
      return EXIT.ok;
    default:
      throw new UsageError(`unknown config command '${positionals[0]}'`, {
        hint: "use mopac config show|path|validate",
      });
  }
}

export function schemaCommand(argv: string[], io: Io): Promise<number> {
  splitCommon(argv);
  io.out(JSON.stringify(configJsonSchema(), null, 2) + "\n");
  return Promise.resolve(EXIT.ok);
}
