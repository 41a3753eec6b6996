import { crc32, inflateRawSync } from 'node:zlib';

// A reader for the zips the data export writes, for the tap and Playwright tests
// (no unzip library is installed). It goes by the central directory, as unzip
// tools do: yazl streams each entry with a data descriptor, so the local headers
// carry no sizes. Stored (0) and deflated (8) entries, no zip64, no encryption;
// every entry's size and CRC-32 are checked against the directory.

export interface ZipEntry {
  name: string;
  data: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The offset of the end-of-central-directory record, searched backwards past a possible comment. */
export function findEndOfCentralDirectory(zip: Buffer): number {
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === EOCD) return at;
  }
  throw new Error('not a zip: no end-of-central-directory record');
}

/** Names and sizes from the central directory only: enough for a zip whose start is not at hand. */
export function listEntries(tail: Buffer): { name: string; size: number }[] {
  const end = findEndOfCentralDirectory(tail);
  const count = tail.readUInt16LE(end + 10);
  const size = tail.readUInt32LE(end + 12);
  let at = end - size;
  if (at < 0) throw new Error('the central directory is not in the bytes given');
  const entries: { name: string; size: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (tail.readUInt32LE(at) !== CENTRAL) throw new Error(`bad central directory record ${i}`);
    const nameLength = tail.readUInt16LE(at + 28);
    const extraLength = tail.readUInt16LE(at + 30);
    const commentLength = tail.readUInt16LE(at + 32);
    entries.push({ name: tail.toString('utf8', at + 46, at + 46 + nameLength), size: tail.readUInt32LE(at + 24) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Every entry of a whole zip, in the order of the central directory, its data inflated. */
export function readZip(zip: Buffer): ZipEntry[] {
  const end = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error(`bad central directory record ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localAt = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;

    if (zip.readUInt32LE(localAt) !== LOCAL) throw new Error(`bad local header for ${name}`);
    const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const raw = zip.subarray(dataAt, dataAt + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`${name}: compression method ${method} not supported`);
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, the directory says ${size}`);
    if (crc32(data) !== crc) throw new Error(`${name}: CRC-32 does not match`);
    entries.push({ name, data });
  }
  return entries;
}
