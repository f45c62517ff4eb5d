/**
 * "Did you mean": the sandbox tool closest to a name that matches none. Words with an obvious meaning
 * win (`read_file` → view_file, `write_file` → write_to_file); otherwise the smallest edit distance.
 */
import type { SandboxTool } from "./matcher";
import { SANDBOX_TOOLS } from "./matcher";

const ALIASES: Record<string, SandboxTool> = {};
const alias = (tool: SandboxTool, words: string[]) => words.forEach((word) => (ALIASES[word] = tool));
alias("view_file", ["read", "view", "cat", "open", "show", "get", "readfile"]);
alias("write_to_file", ["write", "create", "save", "put", "writefile"]);
alias("replace_file_content", ["replace", "edit", "modify", "patch", "update", "str"]);
alias("list_dir", ["list", "ls", "dir", "readdir", "listdir", "directory"]);
alias("delete_file", ["delete", "remove", "rm", "unlink", "del"]);
alias("code_execution", ["code", "exec", "execute", "execution", "run", "shell", "bash", "command", "terminal", "python"]);

/** The sandbox tool `name` most likely meant. */
export function closestTool(name: string): SandboxTool {
  const lower = name.toLowerCase();
  for (const word of lower.split(/[^a-z]+/)) {
    const tool = ALIASES[word];
    if (tool) return tool;
  }
  let best: SandboxTool = SANDBOX_TOOLS[0];
  let bestDistance = Infinity;
  for (const tool of SANDBOX_TOOLS) {
    const distance = levenshtein(lower, tool);
    if (distance < bestDistance) [best, bestDistance] = [tool, distance];
  }
  return best;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
