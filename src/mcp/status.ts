/** How an MCP server came out of start-up, as the `init` event reports it. */
export interface McpServerStatus {
  name: string;
  status: "connected" | "failed" | "disabled";
  tools: number;
  error?: string;
}
