/**
 * The command line of `npx houkai-web mcp` (bin/houkai-web.mjs hands its arguments here):
 * `--dir DIR`, `--name NAME`, `--models DIR`, `--read-only`, `--trust LEVEL`, `--namespace NS`,
 * `--sync URL` (its secrets from the environment: see `McpOptions.sync`). Errors go to stderr,
 * exit code 2.
 */
import { TRUST_LEVELS } from '../core/types.ts';
import { serveMcp, type McpOptions } from './server.ts';

export const MCP_USAGE = 'npx houkai-web mcp [--dir DIR] [--name NAME] [--models DIR] [--read-only] [--trust trusted|reported|untrusted] [--namespace NS] [--sync URL]';

export function parseMcpArgs(args: readonly string[]): McpOptions {
  const out: McpOptions = {};
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    const value = (): string => {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\nusage: ${MCP_USAGE}`);
      return v;
    };
    if (flag === '--dir') out.dir = value();
    else if (flag === '--name') out.name = value();
    else if (flag === '--models') out.models = value();
    else if (flag === '--read-only') out.readOnly = true;
    else if (flag === '--trust') {
      const level = value();
      if (!(TRUST_LEVELS as readonly string[]).includes(level)) throw new Error(`--trust must be one of ${TRUST_LEVELS.join(', ')} — got ${level}\nusage: ${MCP_USAGE}`);
      out.trust = level as McpOptions['trust'];
    } else if (flag === '--namespace') out.namespace = value();
    else if (flag === '--sync') {
      const url = value();
      if (!/^https?:\/\/[^/]+\/[^/]+/.test(url) || /\/\/[^/]*@/.test(url)) throw new Error(`--sync needs http(s)://host/database, credentials in HOUKAI_SYNC_USERNAME/HOUKAI_SYNC_PASSWORD, not in the address\nusage: ${MCP_USAGE}`);
      out.sync = url;
    }
    else throw new Error(`unknown option ${flag}\nusage: ${MCP_USAGE}`);
  }
  return out;
}

export async function main(args: readonly string[]): Promise<void> {
  let options: McpOptions;
  try {
    options = parseMcpArgs(args);
  } catch (error) {
    process.stderr.write(`houkai-web: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    await serveMcp(options);
  } catch (error) {
    process.stderr.write(`houkai-web mcp: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && /[/\\]mcp[/\\]cli\.(ts|js)$/.test(process.argv[1])) void main(process.argv.slice(2));
