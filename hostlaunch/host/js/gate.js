// @ts-check
'use strict';
// The JavaScript seat belt: what an extension may require and touch. The
// kernel sandbox (a later layer) is what enforces; this gives early, clear
// errors naming the capability an extension would need.
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath, pathToFileURL } = require('node:url');

const { SAFE, NEEDS, BROKERED, message, brokeredMessage } = require('./policy.js');
const spawnModule = require('./spawn.js');
const fetchBroker = require('./fetch.js');

// denied is the error an extension gets; the launcher hears of it too,
// with what was refused (operation) and, when the call named one, its
// first argument (target: the program, the URL, the file).
function denied(host, ext, what, cap, target) {
  const t = typeof target === 'string' ? target.slice(0, 512) : undefined;
  /** @type {HostError} */
  const err = new Error(message(ext && ext.id, t === undefined ? what : `${what}(${JSON.stringify(t)})`, cap));
  err.code = 'ERR_AIRVSX_DENIED';
  err.capability = cap;
  host.emit(ext, 'denied', { text: err.message, capability: cap, data: { operation: what, target: t } });
  return err;
}

// brokered is the refusal of a module a granted capability reaches only
// through its broker.
function brokered(host, ext, what, cap, instead) {
  /** @type {HostError} */
  const err = new Error(brokeredMessage(ext && ext.id, what, cap, instead));
  err.code = 'ERR_AIRVSX_DENIED';
  err.capability = cap;
  host.emit(ext, 'denied', { text: err.message, capability: cap });
  return err;
}

// install hooks require and the globals; call once, after initialize.
// Unbelted, it only provides require('vscode').
exports.install = function (host, reg, belted) {
  const exts = [...reg.exts.values()];
  const owner = (file) => file && exts.find((e) => file === e.dir || file.startsWith(e.dir + path.sep));
  const current = () => { const s = host.als.getStore(); return s && s.ext; };
  const load = Module._load;

  // The extension is the one whose file requires, else the one whose code
  // is running (module.parent.require, require.main.require and
  // Module._load called directly all end here).
  const hostDir = __dirname + path.sep;
  Module._load = function (request, parent, isMain) {
    const ext = (parent && owner(parent.filename)) || current();
    if (request === 'vscode') {
      if (!ext) throw new Error('vscode is only available to extensions');
      return ext.api;
    }
    if (!belted) return load.apply(this, arguments);
    if (!ext) return loadUnknown(this, arguments, request, parent, isMain);
    const name = request.startsWith('node:') ? request.slice(5) : request;
    if (Module.isBuiltin(request)) {
      if (SAFE.has(name)) return load.apply(this, arguments);
      if ((name === 'fs' || name === 'fs/promises') && !ext.caps.has('fsWide')) {
        ext.fs = ext.fs || wrapFs(host, ext, reg.opts);
        return name === 'fs' ? ext.fs : ext.fs.promises;
      }
      if (name === 'child_process' && ext.caps.has('spawn')) {
        ext.childProcess = ext.childProcess || spawnModule(host, ext);
        return ext.childProcess;
      }
      const cap = NEEDS[name];
      if (cap && ext.caps.has(cap) && !BROKERED[name]) return load.apply(this, arguments);
      if (cap) {
        // Denied at use, not at load: the module loads (code that only
        // requires it, or uses its constants, works); its operations throw.
        const refuse = BROKERED[name] && ext.caps.has(cap)
          ? (what) => brokered(host, ext, what, cap, BROKERED[name])
          : (what, target) => denied(host, ext, what, cap, target);
        ext.facades = ext.facades || new Map();
        if (!ext.facades.has(name)) ext.facades.set(name, facade(load.apply(this, arguments), name, refuse));
        return ext.facades.get(name);
      }
      throw denied(host, ext, `require('${request}')`, null);
    }
    const file = Module._resolveFilename(request, parent, isMain);
    if (file.endsWith('.node')) throw denied(host, ext, `load the native addon ${file}`, null);
    const real = fs.realpathSync(file);
    if (!(real.startsWith(ext.dir + path.sep))) throw denied(host, ext, `require ${real}, outside its own folder`, 'fsWide');
    return load.apply(this, arguments);
  };

  // loadUnknown is require from code that runs for no extension the gate
  // can name: a host module's require called from a callback that runs
  // outside every extension's context (process.on('message'), a timer
  // the host set). Such code gets what a zero-capability extension gets:
  // the harmless built-ins, and the host's own modules.
  function loadUnknown(self, args, request, parent, isMain) {
    const name = request.startsWith('node:') ? request.slice(5) : request;
    if (Module.isBuiltin(request)) {
      if (SAFE.has(name)) return load.apply(self, args);
      throw denied(host, null, `require('${request}') outside any extension's context`, NEEDS[name]);
    }
    const file = Module._resolveFilename(request, parent, isMain);
    if (!fs.realpathSync(file).startsWith(hostDir)) throw denied(host, null, `require ${file} outside any extension's context`, null);
    return load.apply(self, args);
  }

  if (!belted) return;
  // import() goes through Node's ESM loader: a resolve hook gates it.
  // Module.register runs hooks on a worker thread, which node's permission
  // model (on in the sandbox) refuses; there, import() is fenced by the
  // permission model and the kernel instead (node 22.15+ has in-thread
  // registerHooks, used when present).
  const data = { extensions: exts.map((e) => ({ id: e.id, dir: e.dir, caps: [...e.caps] })) };
  if (typeof Module.registerHooks === 'function') {
    Module.registerHooks({ resolve: (specifier, context, next) => resolveGate(host, owner, specifier, context, next) });
  } else if (!process.permission) {
    Module.register('./esm.mjs', pathToFileURL(__filename), { data });
  }
  process.mainModule = undefined; // its require would resolve as the host
  // process.getBuiltinModule (node 20.16+) reaches built-ins without
  // require: it goes through the same gate.
  if (typeof process.getBuiltinModule === 'function') {
    process.getBuiltinModule = function (id) {
      id = String(id);
      return Module.isBuiltin(id) ? Module._load(id, null, false) : undefined;
    };
  }

  // Globals that reach the network or native code.
  // gated stands in for process functions of every signature.
  /** @type {(name: string, cap: string | null, real?: Function) => any} */
  const gated = (name, cap, real) => function (...a) {
    const ext = current();
    if (real && ext && ext.caps.has(cap)) return real.apply(this, a);
    throw denied(host, ext, `use ${name}`, cap);
  };
  // fetch is the broker's (fetch.js) for a network-granted extension;
  // the other network globals open sockets of their own and are refused.
  const brokeredFetch = fetchBroker(host);
  // input is whatever the extension passed: a string, a URL, a Request
  // or anything else.
  globalThis.fetch = function fetch(/** @type {any} */ input, init) {
    const ext = current();
    if (!ext || !ext.caps.has('network')) return Promise.reject(denied(host, ext, 'use fetch', 'network', typeof input === 'string' ? input : input && String(input.href || input.url || '')));
    return brokeredFetch(input, init);
  };
  for (const g of ['WebSocket', 'EventSource', 'XMLHttpRequest']) {
    if (!(g in globalThis)) continue;
    globalThis[g] = function () {
      const ext = current();
      if (ext && ext.caps.has('network')) throw brokered(host, ext, `use ${g}`, 'network', 'fetch()');
      throw denied(host, ext, `use ${g}`, 'network');
    };
  }
  process.binding = gated('process.binding', null);
  process._linkedBinding = gated('process._linkedBinding', null);
  process.dlopen = gated('process.dlopen', null);
  // process.kill signals a brokered child by its virtual pid (spawn.js),
  // for the extension that started it; a real pid is for the kernel to
  // refuse (spawn granted), else refused here.
  const kill = gated('process.kill', 'spawn', process.kill);
  process.kill = function (pid, sig) {
    const child = host.children.get(Number(pid));
    if (!child || child._ext !== current()) return kill.apply(this, arguments);
    if (sig === 0 || sig === '0') return true;
    child.kill(sig === undefined ? 'SIGTERM' : sig);
    return true;
  };
  process.chdir = gated('process.chdir', null);
  process.abort = gated('process.abort', null);
  // process.execve (node 23.11+) would replace the host with node
  // started anew, without the seat belt.
  if (typeof process.execve === 'function') process.execve = gated('process.execve', null);
  process.exit = process.reallyExit = function (code) {
    throw denied(host, current(), `call process.exit(${code === undefined ? '' : code})`, null);
  };
};

// PURE are the functions of gated modules that only compute: a facade
// passes them through.
const PURE = new Set(['net.isIP', 'net.isIPv4', 'net.isIPv6', 'http.validateHeaderName', 'http.validateHeaderValue']);

// facade is what an extension not granted a gated module's capability
// gets for it (or, granted, for a module its broker serves instead): the
// module's values (constants, STATUS_CODES, METHODS) and pure functions
// as they are, every other function and class replaced by one that
// throws refuse's error when called or constructed. Objects (dns.promises,
// http.globalAgent) are facades too, their prototypes' methods included.
function facade(real, name, refuse, seen = new WeakMap()) {
  if (seen.has(real)) return seen.get(real);
  const out = {};
  seen.set(real, out);
  const wrap = (v, where) => {
    if (typeof v === 'function') {
      if (PURE.has(where)) return v;
      const f = function () { throw refuse(`${new.target ? 'construct' : 'call'} ${where}`, arguments[0]); };
      Object.defineProperty(f, 'name', { value: v.name });
      return f;
    }
    if (Array.isArray(v)) return Object.freeze(v.map((x, i) => wrap(x, `${where}[${i}]`)));
    if (v !== null && typeof v === 'object') return facade(v, where, refuse, seen);
    return v;
  };
  const keys = new Set();
  for (let o = real; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    for (const k of Object.getOwnPropertyNames(o)) if (k !== 'constructor' && k !== '__proto__') keys.add(k);
  }
  for (const k of keys) {
    let d;
    for (let o = real; o && !d; o = Object.getPrototypeOf(o)) d = Object.getOwnPropertyDescriptor(o, k);
    const where = `${name}.${k}`;
    if (d && d.get) {
      // A lazy value (dns.promises, http.globalAgent): read when asked.
      Object.defineProperty(out, k, { enumerable: d.enumerable, get: () => { try { return wrap(d.get.call(real), where); } catch { return undefined; } } });
    } else if (d) {
      Object.defineProperty(out, k, { enumerable: d.enumerable, value: wrap(d.value, where) });
    }
  }
  return Object.freeze(out);
}

// resolveGate is esm.mjs's resolve hook, in-thread and synchronous (for
// Module.registerHooks).
function resolveGate(host, owner, specifier, context, next) {
  const parent = context.parentURL && context.parentURL.startsWith('file:') ? fileURLToPath(context.parentURL) : '';
  const ext = parent && owner(parent);
  if (!ext) return next(specifier, context);
  if (specifier === 'vscode') throw denied(host, ext, "import('vscode') (use require)", null);
  if (Module.isBuiltin(specifier)) {
    const name = specifier.replace(/^node:/, '');
    if (NEEDS[name] && ext.caps.has(NEEDS[name]) && (BROKERED[name] || name === 'child_process')) {
      throw brokered(host, ext, `import('${specifier}')`, NEEDS[name], BROKERED[name] || "require('child_process')");
    }
    if (SAFE.has(name) || (NEEDS[name] && ext.caps.has(NEEDS[name]))) return next(specifier, context);
    throw denied(host, ext, `import('${specifier}')`, NEEDS[name]);
  }
  const r = next(specifier, context);
  if (!r.url.startsWith('file:')) throw denied(host, ext, `import ${r.url}`, null);
  const real = fs.realpathSync(fileURLToPath(r.url));
  if (!real.startsWith(ext.dir + path.sep)) throw denied(host, ext, `import ${real}, outside its own folder`, 'fsWide');
  return r;
}

// wrapFs returns the fs module an extension without fsWide gets: reads
// inside its own folder, its storage and the workspace; writes inside its
// storage and the workspace. Functions on file descriptors pass (a
// descriptor comes from a checked open); anything unknown is refused.
function wrapFs(host, ext, opts) {
  const realRoots = (ds) => ds.map((d) => { try { return fs.realpathSync(d); } catch { return path.resolve(d); } });
  const storage = Object.values(ext.storage);
  const work = opts.workspaceFolders || [];
  const roots = { read: realRoots([ext.dir, ...storage, ...work]), write: realRoots([...storage, ...work]) };

  // check refuses p unless it is inside one of the roots for mode.
  function check(fn, p, mode) {
    if (typeof p === 'number') return; // a descriptor
    if (p instanceof URL) p = fileURLToPath(p);
    if (Buffer.isBuffer(p)) p = p.toString();
    const abs = path.resolve(String(p));
    let real = abs;
    for (let dir = abs, rest = ''; ; rest = path.join(path.basename(dir), rest), dir = path.dirname(dir)) {
      try { real = path.join(fs.realpathSync(dir), rest); break; } catch { if (dir === path.dirname(dir)) break; }
    }
    if (!roots[mode].some((r) => real === r || real.startsWith(r + path.sep))) throw denied(host, ext, `${mode} ${abs} (fs.${fn})`, 'fsWide');
  }
  const R = ['access', 'exists', 'readFile', 'readdir', 'stat', 'lstat', 'realpath', 'readlink', 'opendir', 'createReadStream', 'watch', 'watchFile', 'unwatchFile', 'statfs', 'ReadStream'];
  const W = ['writeFile', 'appendFile', 'mkdir', 'mkdtemp', 'rm', 'rmdir', 'unlink', 'truncate', 'createWriteStream', 'utimes', 'lutimes', 'chmod', 'lchmod', 'chown', 'lchown', 'WriteStream'];
  const W2 = ['copyFile', 'cp', 'rename', 'link', 'symlink']; // two paths: the second written, the first read (copies, symlinks) or written
  const FD = ['read', 'write', 'close', 'fstat', 'fsync', 'fdatasync', 'ftruncate', 'futimes', 'fchmod', 'fchown', 'readv', 'writev'];
  const kind = (k) => { const b = k.replace(/Sync$/, ''); return R.includes(b) ? 'r' : W.includes(b) ? 'w' : W2.includes(b) ? 'w2' : FD.includes(b) ? 'fd' : b === 'open' ? 'open' : null; };
  const writing = (flags) => (typeof flags === 'string' ? /[wa+]/.test(flags) : typeof flags === 'number' && (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_TRUNC)) !== 0);

  function wrap(src, prefix) {
    const out = {};
    for (const k of Object.keys(src)) {
      const v = src[k];
      if (typeof v !== 'function' || /^[A-Z]/.test(k) && !['ReadStream', 'WriteStream'].includes(k)) { out[k] = v; continue; }
      const kd = kind(k);
      const fn = prefix + k;
      if (kd === 'fd') out[k] = v;
      else if (!kd) out[k] = function () { throw denied(host, ext, `use fs.${fn}`, 'fsWide'); };
      else {
        out[k] = function (...a) {
          if (kd === 'r') check(fn, a[0], 'read');
          if (kd === 'w') check(fn, a[0], 'write');
          if (kd === 'w2') { check(fn, k.startsWith('symlink') ? path.resolve(path.dirname(String(a[1])), String(a[0])) : a[0], /^(symlink|copyFile|cp)/.test(k) ? 'read' : 'write'); check(fn, a[1], 'write'); }
          if (kd === 'open') check(fn, a[0], writing(a[1]) ? 'write' : 'read');
          return new.target ? new v(...a) : v.apply(this, a);
        };
      }
    }
    return out;
  }
  const wrapped = wrap(fs, '');
  wrapped.promises = wrap(fs.promises, 'promises.');
  return wrapped;
}
