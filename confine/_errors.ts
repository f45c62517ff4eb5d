/** The errors of confine: a path that cannot be used as asked, and how a system error becomes one. */
import type { Stats } from "node:fs";

export type ConfineErrorCode = "GENV_NOT_FOUND" | "GENV_NOT_A_DIRECTORY" | "GENV_IS_A_DIRECTORY" | "GENV_SPECIAL_FILE" | "GENV_SYMLINK" | "GENV_TOO_MANY_LINKS" | "GENV_TOO_LARGE" | "GENV_ESCAPES" | "GENV_UNSTABLE";

/** A path that cannot be used as asked; `relative` is the tree-relative path as requested. */
export class ConfineError extends Error {
  override name = "ConfineError";
  constructor(
    readonly code: ConfineErrorCode,
    readonly relative: string,
    message: string,
  ) {
    super(message);
  }
}

/** A socket, FIFO or device where a regular file or directory was expected. */
export class SpecialFileError extends ConfineError {
  override name = "SpecialFileError";
  constructor(relative: string, readonly kind: string) {
    super("GENV_SPECIAL_FILE", relative, `"${relative}" is a ${kind}; only regular files and directories are read`);
  }
}

/** The kind of a special file, for messages. */
export function specialKind(stat: Stats): string {
  if (stat.isFIFO()) return "FIFO";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  return "special file";
}

export const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException)?.code;

export function asConfineError(error: unknown, relative: string): unknown {
  switch (errno(error)) {
    case "ENOENT":
      return new ConfineError("GENV_NOT_FOUND", relative, `"${relative}" not found`);
    case "ELOOP":
      return new ConfineError("GENV_SYMLINK", relative, `"${relative}" is a symlink`);
    case "ENOTDIR":
      return new ConfineError("GENV_NOT_A_DIRECTORY", relative, `"${relative}" is not a directory`);
    default:
      return error;
  }
}
