// Package vsix reads untrusted .vsix packages.
//
// A .vsix is a zip archive holding extension.vsixmanifest (XML), usually
// [Content_Types].xml, and the extension itself under extension/. Every
// archive is hostile until checked: Open checks the whole central directory
// against the rules below before any file data is used, and reports every
// entry that breaks a rule, not just the first.
//
// The archive rules (see Options for the limits and their defaults):
//
//   - the archive is no larger than MaxArchiveBytes;
//   - it has at most MaxEntries entries;
//   - no entry declares more than MaxFileBytes uncompressed, and all entries
//     together declare at most MaxTotalBytes (summed without overflow);
//   - no entry's declared uncompressed size exceeds MaxRatio times its
//     compressed size;
//   - every name is clean (path.Clean(name) == name, filepath.IsLocal), has
//     no backslash, NUL or C0/C1 control character, no bidirectional
//     control (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) or
//     zero-width character (U+200B-U+200D, U+2060, U+FEFF), none of the
//     characters Windows reserves (< > : " | ? *), is valid UTF-8, at most
//     1024 bytes with elements of at most 255, and no element of it is a
//     Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, the
//     superscript-digit forms, CONIN$, CONOUT$, CLOCK$; with or without an
//     extension), an 8.3 short name (PROGRA~1), or ends in "." or " ";
//   - no two names are equal, or equal after Unicode normalization (NFD,
//     then NFC) and case folding (through upper and lower case), counting
//     implied parent directories;
//   - no name is both a file and a parent directory of another entry;
//   - every entry is a regular file or a directory, whatever the creator OS
//     field says: symlinks, devices, pipes, sockets and Windows reparse
//     points are rejected, and a directory mode or attribute must come with
//     a trailing slash (and no data);
//   - no entry is encrypted, and only Store and Deflate are accepted;
//   - every zip reader sees the same archive: nothing but
//     the comment follows the end of central directory record, the central
//     directory ends where the end record (or the zip64 one) starts, and
//     the entries exactly tile the bytes before it: each local header,
//     name, extra field, data and data descriptor follows the previous
//     entry with no gap (a prefix, a second archive, hidden bytes) and no
//     overlap (the trick behind overlapping zip bombs);
//   - every local header agrees with its central directory record on the
//     name, flags, method, CRC-32 and sizes (CRC-32 and sizes may be zero
//     when flag bit 3 defers them to a data descriptor, which must then
//     hold the central directory's values, with or without its signature,
//     with 4- or 8-byte sizes); an Info-ZIP Unicode Path extra field, if
//     any, names the same file; a deflate stream uses every compressed
//     byte;
//   - every entry holds exactly the data its header declares, with a
//     matching CRC-32 and an intact deflate stream: Open makes one streaming
//     pass over all data before returning, and later readers never read past
//     the declared size + 1.
//
// Names in reports are escaped like Go string literals when they are not
// valid UTF-8 or hold control characters, so printing a report cannot
// inject terminal escapes.
//
// Extraction writes into a new directory through os.OpenRoot, creates files
// exclusively, never creates a link, and removes the partial tree on
// failure.
//
// The manifest rules (ReadPackage):
//
//   - extension.vsixmanifest exists, is XML in the VSIX 2011 namespace with
//     no DOCTYPE or other directive, and is at most 1 MiB;
//   - extension/package.json exists (the file VS Code reads; a manifest
//     asset naming another path is an error), is a JSON object, at most
//     16 MiB;
//   - publisher and name are valid Open VSX names, version is strict
//     SemVer, engines.vscode parses with VS Code's grammar ("*" and
//     "^1.80.0-insider" included);
//   - main and browser stay inside the extension; extensionDependencies and
//     extensionPack are valid IDs; extensionKind is ui or workspace;
//   - contributes.commands need command and title, languages need id;
//     unknown contribution kinds, unknown activation event kinds and
//     unknown capability keys are warnings (an unknown capability is
//     denied), never fatal; the capabilities network, spawn and fsWide must
//     be booleans;
//   - package.json and the vsixmanifest agree on publisher, name (both
//     case-insensitively), version, and the target platform is known;
//     disagreeing Engine, ExtensionDependencies and ExtensionPack properties
//     are warnings (airvsx follows package.json, as VS Code does);
//   - every asset the vsixmanifest lists exists. Asset paths (README,
//     CHANGELOG, LICENSE, icon) come from the vsixmanifest, since packagers
//     rename them.
//
// Detect finds capabilities statically (requires and imports of
// the modules index.NodeModules gives a finding kind: child_process,
// cluster, net, dns, http, https, http2, dgram, tls, worker_threads; native .node addons; bundled ELF, PE and Mach-O
// executables; "*" activation). Findings inform the admin; they are not
// verdicts, and code can hide from them.
package vsix
