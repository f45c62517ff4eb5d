/**
 * Script files a hooks config runs, so that the provider's hook bundle can check each one is shipped
 * (it knows the sources; this module does not).
 */
import type { HooksConfigInput } from "./schema";
import { HOOK_EVENTS } from "./schema";

const SCRIPT_EXTENSION = /\.(py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|php|lua|r)$/i;
const SCRIPT_PLACE = /^(\/?\.agents\/|\.\.?\/)/;

/**
 * Paths of the scripts the command handlers run, as written (absolute `/.agents/hooks-scripts/gate.py`
 * or relative `./gate.sh`), each once, in order of appearance. A word of a command line counts when it
 * ends in a script extension (.py, .sh, .js, …) or lives under `.agents/` or `./`; options (`-c`) and
 * interpreters (`python3`, `/usr/bin/env`) do not.
 */
export function referencedScripts(config: HooksConfigInput): string[] {
  const found = new Set<string>();
  for (const group of Object.values(config)) {
    for (const event of HOOK_EVENTS) {
      for (const rule of group[event] ?? []) {
        for (const handler of rule.hooks) {
          if (handler.type !== "command") continue;
          for (const word of shellWords(handler.command)) {
            if (!word.startsWith("-") && (SCRIPT_EXTENSION.test(word) || SCRIPT_PLACE.test(word))) found.add(word);
          }
        }
      }
    }
  }
  return [...found];
}

/** Words of a command line: whitespace and ; & | separate, quotes group, no expansion. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  const flush = () => {
    if (word) words.push(word);
    word = "";
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
    } else if (/[\s;&|()<>]/.test(c)) {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return words;
}
