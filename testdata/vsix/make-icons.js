#!/usr/bin/env node
// Writes the 32x32 icon.png of each sample extension in testdata/extensions/.
// Deterministic (no timestamps, no randomness); only needed when the icons change.
// Usage: node testdata/vsix/make-icons.js
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const SIZE = 32;

function crc32(buf) {
  let c, crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

// pixel(x, y) -> [r, g, b]
function png(pixel) {
  const raw = Buffer.alloc((SIZE * 3 + 1) * SIZE);
  for (let y = 0; y < SIZE; y++) {
    const row = y * (SIZE * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b] = pixel(x, y);
      raw[row + 1 + x * 3] = r;
      raw[row + 2 + x * 3] = g;
      raw[row + 3 + x * 3] = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(SIZE, 0);
  ihdr.writeUInt32BE(SIZE, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const icons = {
  // blue tile with a white "H"
  "hello-command": (x, y) => {
    const inH = y >= 8 && y < 24 && ((x >= 9 && x < 13) || (x >= 19 && x < 23) || (y >= 14 && y < 18 && x >= 9 && x < 23));
    return inH ? [255, 255, 255] : [0, 102, 204];
  },
  // night sky with a yellow crescent moon
  "night-theme": (x, y) => {
    const d1 = (x - 16) ** 2 + (y - 16) ** 2;
    const d2 = (x - 21) ** 2 + (y - 12) ** 2;
    return d1 < 100 && d2 >= 64 ? [250, 220, 90] : [18, 22, 48];
  },
  // orange tile with a white diamond
  "git-helper": (x, y) => (Math.abs(x - 15.5) + Math.abs(y - 15.5) < 10 ? [255, 255, 255] : [240, 80, 50]),
};

const root = path.join(__dirname, "..", "extensions");
for (const [name, pixel] of Object.entries(icons)) {
  const out = path.join(root, name, "icon.png");
  fs.writeFileSync(out, png(pixel));
  console.log(out, fs.statSync(out).size, "bytes");
}
