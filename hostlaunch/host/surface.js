'use strict';
// Prints, as JSON, which names of the VS Code API (./vscode-api.json) the
// host's vscode module (./vscode.js) implements: run by APISurface in a
// directory writeHost filled. createApi gets a stand-in extension and
// registry; anything the module asks of them that is not stubbed here is
// a function that returns undefined.
const path = require('node:path');
const os = require('node:os');
const names = require('./vscode-api.json');
const createApi = require('./vscode.js');

const { AsyncLocalStorage } = require('node:async_hooks');

const tmp = path.join(os.tmpdir(), 'airvsx-surface-nonexistent');
// The host's real registry (extensions.js), with no extension and a host
// that sends nothing.
const host = { als: new AsyncLocalStorage(), emit() {}, notify() {}, request: async () => null, reallyExit() {} };
const reg = require('./extensions.js')(host);

async function main() {
  await reg.init({ extensions: [], storageDir: tmp, workspaceFolders: [] });
  const ext = {
    id: 'airvsx.surface', dir: tmp, desc: { id: 'airvsx.surface', packageJSON: {} }, caps: new Set(),
    storage: { global: path.join(tmp, 'g'), workspace: path.join(tmp, 'w'), log: path.join(tmp, 'l') },
    state: 'inactive',
  };
  const api = createApi(ext, reg);
  const implemented = [];
  for (const [name, kind] of Object.entries(names.names)) {
    if (!(name in api)) continue;
    implemented.push(name);
    if (kind !== 'namespace') continue;
    const ns = api[name];
    for (const m of names.members[name] || []) if (ns !== null && typeof ns === 'object' && m in ns) implemented.push(name + '.' + m);
  }
  implemented.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  process.stdout.write(JSON.stringify({ version: names.version, implemented }));
}

main().catch((err) => { console.error(err && err.stack || err); process.exit(1); });
