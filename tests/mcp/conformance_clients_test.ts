/** MCP conformance client scenarios, share "clients" (see tests/mcp/conformance_run.ts). */
import { registerScenarios } from "./conformance_run.ts";

registerScenarios("clients");
