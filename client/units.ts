/** Sizes and counts as people read them in messages (the CLI's tables, the emulator's errors): `1 GiB`, `1.34 GiB`, `300 bytes`, `100,000`. */

const UNITS = ["KiB", "MiB", "GiB", "TiB"] as const;

/** Binary units, whole when exact (`8 MiB`), else three significant digits (`15.3 MiB`). */
export function formatBytes(bytes: number): string {
  if (Math.abs(bytes) < 1024) return `${bytes} ${Math.abs(bytes) === 1 ? "byte" : "bytes"}`;
  let value = bytes / 1024;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toPrecision(3)} ${UNITS[unit]}`;
}

/** `1,234` files. */
export function formatCount(count: number, noun: string): string {
  return `${count.toLocaleString("en-US")} ${noun}${count === 1 ? "" : "s"}`;
}
