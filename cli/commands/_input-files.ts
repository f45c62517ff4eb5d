/** Reading the files a command is given: a CLIError (exit 2) naming the file when it cannot be used. */
import { readFileSync, statSync } from "node:fs";
import { CLIError } from "../errors";

export function readText(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new CLIError(`cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 2);
  }
}

/** `what` names the file in messages, e.g. "cases file". */
export function readJsonFile(file: string, what: string): unknown {
  const text = readText(file, what);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CLIError(`${what} ${file} is not valid JSON: ${(error as Error).message}`, 2);
  }
}

/** Whether `dir` is a directory (false when it does not exist or cannot be read). */
export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
