/** Public surface of src/config: loading, the schema and the path helpers. */
export {
  loadConfig,
  type LoadedConfig,
  type LoadOptions,
  type ModelRole,
  type ProjectTrust,
  type SourceLine,
} from "./load.ts";
export {
  type IgnoredKey,
  isEmptyNarrowing,
  type LimitCaps,
  lowerCaps,
  type Narrowing,
  type ProfileNarrowing,
} from "./narrowing.ts";
export { OPERATOR_ONLY, realPathOf, TRUST_ENV, within } from "./trust.ts";
export {
  type AgentConfig,
  type Config,
  type ConfigInput,
  configJsonSchema,
  ConfigSchema,
  type DeepPartial,
  type LimitsConfig,
  type ProviderConfig,
  type ProviderModelConfig,
  type SelectedModel,
} from "./schema.ts";
export {
  DATA_DIR_NAME,
  defaultDataDir,
  findGitRoot,
  logsDir,
  oauthTokenDir,
  PROJECT_FILE_NAMES,
  resolveDataDir,
  SYSTEM_CONFIG_FILE,
  userDirs,
} from "./paths.ts";
export { CONFIG_ENV_PATTERN, CONFIG_ENV_VARS } from "./layers.ts";
export { readForEdit, userConfigFile, writeEdit } from "./edit_file.ts";
export { mcpServerSchema } from "./schema_runtime.ts";
export { type JsonPath, parsePath } from "./jsonc.ts";
export { ignoredKeyOf } from "./ignored.ts";
