/**
 * `houkai-web/agents`: the memory as tools for agents — definitions in OpenAI, Anthropic and MCP
 * formats with one JSON-in/JSON-out dispatcher, and WebMCP registration for browser agents.
 */
export { memoryTools } from './tools.ts';
export { dispatchTool, validateArguments } from './dispatch.ts';
export { registerMemoryTools, findModelContext } from './webmcp.ts';
export { createToolsHost, type ToolsHostApi, type ToolsHostOptions, type ToolFormat } from './tools-host.ts';
export type { MemoryToolset, OpenAITool, AnthropicTool, McpTool } from './tools.ts';
export type * from '../core/api.ts';
export type * from '../core/types.ts';
