/** MCP conformance client scenarios, share "discovery" (see tests/mcp/conformance_run.ts). */
import { registerScenarios } from "./conformance_run.ts";

registerScenarios("discovery");
