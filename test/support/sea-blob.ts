/**
 * What a Linux single executable was made with, read from its blob (postject's ELF note
 * `NODE_SEA_BLOB`), independently of scripts/pack-plugin: the blob's header as Node.js 22 writes it
 * (src/node_sea.h: the magic 0x143da20, then its SeaFlags), which says whether it carries a V8
 * startup snapshot or the main script's code cache.
 */
const SEA_MAGIC = 0x143da20;
const NOTE_NAME = Buffer.from("NODE_SEA_BLOB\0");
/** SeaFlags: kUseSnapshot and kUseCodeCache. */
const USE_SNAPSHOT = 1 << 1;
const USE_CODE_CACHE = 1 << 2;

/** The blob's forms in the ELF executable `binary`; undefined when it holds no blob note. */
export function seaBlobOfElf(binary: Buffer): { snapshot: boolean; codeCache: boolean } | undefined {
  for (let at = binary.indexOf(NOTE_NAME); at >= 0; at = binary.indexOf(NOTE_NAME, at + 1)) {
    // An ELF note: namesz, descsz, type (4 bytes each), the name padded to 4 bytes, then the blob.
    if (at < 12 || binary.readUInt32LE(at - 12) !== NOTE_NAME.length) continue;
    const blob = at + Math.ceil(NOTE_NAME.length / 4) * 4;
    if (binary.readUInt32LE(blob) !== SEA_MAGIC) continue;
    const flags = binary.readUInt32LE(blob + 4);
    return { snapshot: (flags & USE_SNAPSHOT) !== 0, codeCache: (flags & USE_CODE_CACHE) !== 0 };
  }
  return undefined;
}
