/** Public surface of src/catalog: the built-in catalog, model resolution and listings. */
export { BUILTIN_CATALOG, type Catalog, type CatalogProvider, UNLISTED_LIMITS } from "./data.ts";
export { pricingOf, type ResolveContext, resolveModel } from "./resolve_model.ts";
export {
  keyOf,
  type KeyState,
  providerEntries,
  type ProviderEntry,
  usableForBareIds,
} from "./providers.ts";
export { listModels, listProviders, type ModelListing, type ProviderListing } from "./list.ts";
export type { ResolvedModel } from "./types.ts";
