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
//     no backslash, NUL or control character, is valid UTF-8, and no
//     element of it is a Windows reserved name (CON, PRN, AUX, NUL, COM1-9,
//     LPT1-9, with or without an extension);
//   - no two names are equal, or equal after Unicode case folding;
//   - no name is both a file and a parent directory of another entry;
//   - every entry is a regular file or a directory, whatever the creator OS
//     field says: symlinks, devices, pipes and sockets are rejected;
//   - no entry is encrypted;
//   - no entry holds more data than its header declares (checked while
//     reading: readers never read past the declared size + 1).
//
// Extraction writes into a new directory through os.OpenRoot, creates files
// exclusively, never creates a link, and removes the partial tree on
// failure.
//
// The manifests: extension/package.json (the VS Code manifest) and
// extension.vsixmanifest must agree on publisher, name, version and target
// platform. Asset paths (README, CHANGELOG, LICENSE, icon) come from the
// vsixmanifest, since packagers rename them.
package vsix
