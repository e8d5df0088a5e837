/** MCP conformance client scenarios, share "scopes" (see tests/mcp/conformance_run.ts). */
import { registerScenarios } from "./conformance_run.ts";

registerScenarios("scopes");
