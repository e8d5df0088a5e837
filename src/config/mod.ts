/** Public surface of src/config: loading, the schema and the path helpers. */
export { loadConfig, type LoadedConfig, type LoadOptions } from "./load.ts";
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
  PROJECT_FILE_NAMES,
  resolveDataDir,
  SYSTEM_CONFIG_FILE,
  userDirs,
} from "./paths.ts";
export { CONFIG_ENV_VARS } from "./layers.ts";
export { type JsonPath, parsePath } from "./jsonc.ts";
