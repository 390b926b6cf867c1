// @ts-check
'use strict';
// The guard over each extension's vscode module: a name of the VS Code
// API (vscode-api.json, written by the launcher from
// hostlaunch/vscodeapi/api.json) that the host does not implement is
// never undefined: reading it throws "vscode.X is not supported by the
// airvsx host" (code ERR_AIRVSX_UNSUPPORTED), so an extension fails where
// it asks, not later on an undefined. Any other name (a Symbol, then,
// __esModule, default, toJSON, what bundlers' interop probes) reads what
// the object has. has, ownKeys and getOwnPropertyDescriptor answer for
// the real object, so __importStar, __toESM, Object.keys and spreading see
// the module as it is. Classes and enums are returned as they are.

function unsupported(name) {
  /** @type {HostError} */
  const err = new Error(`vscode.${name} is not supported by the airvsx host`);
  err.code = 'ERR_AIRVSX_UNSUPPORTED';
  return err;
}

// wrap returns a Proxy over obj that throws for the names in api missing
// from obj; prefix ('' or 'window.') names them in the message.
function wrap(obj, api, prefix, inner) {
  return new Proxy(obj, {
    get(target, key, receiver) {
      if (typeof key === 'string' && api.has(key) && !(key in target)) throw unsupported(prefix + key);
      const v = Reflect.get(target, key, receiver);
      if (inner && typeof key === 'string' && v !== null && typeof v === 'object') {
        const w = inner.get(key);
        // A frozen property must read as itself (a Proxy invariant).
        const d = w && Reflect.getOwnPropertyDescriptor(target, key);
        if (w && !(d && !d.configurable && d.writable === false)) return w(v);
      }
      return v;
    },
  });
}

// guard returns api behind the Proxy; names is the parsed vscode-api.json
// ({names: {X: kind}, members: {ns: [member]}}).
function guard(api, names) {
  const top = new Set(Object.keys(names.names || {}));
  const members = names.members || {};
  // One Proxy per namespace object, made on first read and kept, so
  // vscode.window === vscode.window.
  const cache = new WeakMap();
  const inner = new Map();
  for (const ns of Object.keys(members)) {
    if (names.names[ns] !== 'namespace') continue;
    const set = new Set(members[ns]);
    inner.set(ns, (obj) => {
      let p = cache.get(obj);
      if (!p) { p = wrap(obj, set, ns + '.', null); cache.set(obj, p); }
      return p;
    });
  }
  return wrap(api, top, '', inner);
}

module.exports = { guard, unsupported };
