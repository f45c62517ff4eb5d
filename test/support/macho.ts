/**
 * A small reader of 64-bit Mach-O executables, to check the darwin single executables without a Mac
 * and independently of the tool that signed them (rcodesign): the CPU type, the segments and their
 * sections, and the code signature — LC_CODE_SIGNATURE's SuperBlob, its CodeDirectory, and each page
 * hash recomputed from the file. Formats from Apple's <mach-o/loader.h> and the code signing blobs of
 * xnu's osfmk/kern/cs_blobs.h (big-endian, unlike the Mach-O header's little-endian fields).
 */
import { createHash } from "node:crypto";

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSSLOT_CODEDIRECTORY = 0;
/** CodeDirectory flags: an ad hoc signature (no certificate). */
export const CS_ADHOC = 0x2;

/** CPU types of <mach/machine.h>: CPU_TYPE_X86_64 and CPU_TYPE_ARM64. */
export const CPU_TYPE = { x86_64: 0x01000007, arm64: 0x0100000c } as const;

/** The hash types of a CodeDirectory (CS_HASHTYPE_*) as node:crypto names them. */
const HASH_TYPES: Record<number, { name: string; size: number }> = { 1: { name: "sha1", size: 20 }, 2: { name: "sha256", size: 32 } };

export interface Section {
  name: string;
  offset: number;
  size: number;
}

export interface Segment {
  name: string;
  fileOffset: number;
  fileSize: number;
  sections: Section[];
}

export interface CodeDirectory {
  version: number;
  flags: number;
  identifier: string;
  hashType: number;
  hashSize: number;
  /** log2 of the page size, as stored (12: 4 KiB pages). */
  pageSizeLog2: number;
  codeLimit: number;
  nCodeSlots: number;
  nSpecialSlots: number;
  hashOffset: number;
}

export interface Signature {
  /** LC_CODE_SIGNATURE's dataoff and datasize. */
  offset: number;
  size: number;
  /** The SuperBlob's index: blob type → its offset in the signature. */
  blobs: Map<number, number>;
  codeDirectory: CodeDirectory;
}

export interface MachO {
  cpuType: number;
  segments: Segment[];
  signature?: Signature;
}

const cString = (bytes: Buffer, start: number, end: number) => {
  const nul = bytes.indexOf(0, start);
  return bytes.toString("latin1", start, nul >= 0 && nul < end ? nul : end);
};

/** Reads the header, the segments and the code signature of a thin 64-bit little-endian Mach-O. */
export function readMachO(file: Buffer): MachO {
  if (file.readUInt32LE(0) !== MH_MAGIC_64) throw new Error(`not a 64-bit Mach-O (magic 0x${file.readUInt32LE(0).toString(16)})`);
  const cpuType = file.readUInt32LE(4);
  const ncmds = file.readUInt32LE(16);
  const segments: Segment[] = [];
  let signature: Signature | undefined;
  for (let i = 0, at = 32; i < ncmds; i++) {
    const cmd = file.readUInt32LE(at);
    const size = file.readUInt32LE(at + 4);
    if (cmd === LC_SEGMENT_64) {
      const sections: Section[] = [];
      for (let s = 0; s < file.readUInt32LE(at + 64); s++) {
        const header = at + 72 + s * 80;
        sections.push({ name: cString(file, header, header + 16), size: Number(file.readBigUInt64LE(header + 40)), offset: file.readUInt32LE(header + 48) });
      }
      segments.push({ name: cString(file, at + 8, at + 24), fileOffset: Number(file.readBigUInt64LE(at + 40)), fileSize: Number(file.readBigUInt64LE(at + 48)), sections });
    } else if (cmd === LC_CODE_SIGNATURE) {
      signature = readSignature(file, file.readUInt32LE(at + 8), file.readUInt32LE(at + 12));
    }
    at += size;
  }
  return { cpuType, segments, signature };
}

function readSignature(file: Buffer, offset: number, size: number): Signature {
  const blob = file.subarray(offset, offset + size);
  if (blob.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) throw new Error(`the signature is no SuperBlob (magic 0x${blob.readUInt32BE(0).toString(16)})`);
  const blobs = new Map<number, number>();
  for (let i = 0; i < blob.readUInt32BE(8); i++) blobs.set(blob.readUInt32BE(12 + i * 8), blob.readUInt32BE(16 + i * 8));
  const at = blobs.get(CSSLOT_CODEDIRECTORY);
  if (at === undefined) throw new Error("the SuperBlob has no CodeDirectory");
  const cd = blob.subarray(at);
  if (cd.readUInt32BE(0) !== CSMAGIC_CODEDIRECTORY) throw new Error(`slot 0 is no CodeDirectory (magic 0x${cd.readUInt32BE(0).toString(16)})`);
  const codeDirectory: CodeDirectory = {
    version: cd.readUInt32BE(8),
    flags: cd.readUInt32BE(12),
    hashOffset: cd.readUInt32BE(16),
    identifier: cString(cd, cd.readUInt32BE(20), cd.readUInt32BE(4)),
    nSpecialSlots: cd.readUInt32BE(24),
    nCodeSlots: cd.readUInt32BE(28),
    codeLimit: cd.readUInt32BE(32),
    hashSize: cd.readUInt8(36),
    hashType: cd.readUInt8(37),
    pageSizeLog2: cd.readUInt8(39),
  };
  return { offset, size, blobs, codeDirectory };
}

/**
 * The problems of the file's signature, or an empty list: the CodeDirectory's hashes of the pages
 * (each `pageSize` bytes of the file up to codeLimit, the last one shorter) and of the SuperBlob's
 * other blobs (the special slots: the requirements, the entitlements) recomputed and compared; the
 * signed code ends where the signature begins.
 */
export function signatureProblems(file: Buffer, signature: Signature): string[] {
  const { codeDirectory: cd } = signature;
  const problems: string[] = [];
  const hash = HASH_TYPES[cd.hashType];
  if (!hash) return [`unknown hash type ${cd.hashType}`];
  if (cd.hashSize !== hash.size) problems.push(`hash size ${cd.hashSize}, ${hash.name} is ${hash.size}`);
  if (cd.codeLimit !== signature.offset) problems.push(`codeLimit ${cd.codeLimit} is not the signature's offset ${signature.offset}`);
  const pageSize = cd.pageSizeLog2 === 0 ? cd.codeLimit : 2 ** cd.pageSizeLog2;
  const pages = Math.ceil(cd.codeLimit / pageSize);
  if (cd.nCodeSlots !== pages) problems.push(`${cd.nCodeSlots} code slots for ${pages} pages`);
  const directory = file.subarray(signature.offset + signature.blobs.get(CSSLOT_CODEDIRECTORY)!);
  const stored = (slot: number) => directory.subarray(cd.hashOffset + slot * cd.hashSize, cd.hashOffset + (slot + 1) * cd.hashSize);
  let wrong = 0;
  for (let page = 0; page < Math.min(pages, cd.nCodeSlots); page++) {
    const bytes = file.subarray(page * pageSize, Math.min((page + 1) * pageSize, cd.codeLimit));
    if (!createHash(hash.name).update(bytes).digest().equals(stored(page))) wrong++;
  }
  if (wrong > 0) problems.push(`${wrong} of ${pages} page hashes differ from the file`);
  // Special slot -n holds the hash of the SuperBlob's blob of type n (2: requirements, 5: entitlements, 7: DER entitlements).
  for (const [type, offset] of signature.blobs) {
    if (type === CSSLOT_CODEDIRECTORY || type > cd.nSpecialSlots) continue;
    const blob = file.subarray(signature.offset + offset);
    const bytes = blob.subarray(0, blob.readUInt32BE(4));
    if (!createHash(hash.name).update(bytes).digest().equals(stored(-type))) problems.push(`special slot -${type} does not hash its blob`);
  }
  return problems;
}
