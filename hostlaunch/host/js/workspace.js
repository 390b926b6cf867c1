// @ts-check
'use strict';
// vscode.workspace beyond documents: workspace.fs (the launcher's
// workspace broker for files, an extension's FileSystemProvider for its
// scheme), content providers, file watchers (fed by the changes made
// through the host: there is no file-system notification in the sandbox),
// findFiles, applyEdit, and configuration with update and inspect.
const path = require('node:path');
const { Shared, never, token } = require('./shared.js');
const { Uri, FileType, FileSystemError } = require('./types.js');
const { matchGlob } = require('./languages.js');

// MAX_FIND caps what findFiles walks (entries) when no maxResults is given.
const MAX_FIND = 100000;

module.exports = function workspaceParts(host, reg) {
  const contentProviders = new Map(); // scheme -> {ext, provider}
  const fsProviders = new Map(); // scheme -> {ext, provider, options}
  const watchers = new Set();
  const ev = (n) => new Shared(host, n);
  const events = {
    config: ev('onDidChangeConfiguration'), folders: ev('onDidChangeWorkspaceFolders'),
    createFiles: ev('onDidCreateFiles'), deleteFiles: ev('onDidDeleteFiles'), renameFiles: ev('onDidRenameFiles'),
  };
  const updates = new Map(); // key -> value set by configuration.update (this session)

  // toUri accepts a Uri, a string URI or an absolute path.
  const toUri = (u) => (u instanceof Uri ? u : typeof u === 'string' ? (/^[a-zA-Z][\w+.-]+:/.test(u) ? Uri.parse(u) : Uri.file(u)) : Uri.from(u));

  // brokered is workspace.fs over the launcher's workspace broker.
  function brokered(ext) {
    const ask = (method, uri, extra) => host.request('fs/' + method, Object.assign({ extension: ext ? ext.id : '', path: uri.fsPath }, extra));
    const mapErr = (uri) => (err) => {
      const m = String(err && err.message || err);
      if (/not exist|no such file|ENOENT/i.test(m)) throw FileSystemError.FileNotFound(uri);
      if (/exists|EEXIST/i.test(m)) throw FileSystemError.FileExists(uri);
      if (/not a directory|ENOTDIR/i.test(m)) throw FileSystemError.FileNotADirectory(uri);
      if (/is a directory|EISDIR/i.test(m)) throw FileSystemError.FileIsADirectory(uri);
      throw err;
    };
    return {
      readFile: (uri) => ask('readFile', uri).then((r) => new Uint8Array(Buffer.from(r.data, 'base64')), mapErr(uri)),
      writeFile: (uri, content) => ask('writeFile', uri, { data: Buffer.from(content).toString('base64') }).then(() => undefined, mapErr(uri)),
      stat: (uri) => ask('stat', uri).catch(mapErr(uri)),
      readDirectory: (uri) => ask('readDirectory', uri).catch(mapErr(uri)),
      createDirectory: (uri) => ask('createDirectory', uri).then(() => undefined, mapErr(uri)),
      delete: (uri, o) => ask('delete', uri, { recursive: !!(o && o.recursive) }).then(() => undefined, mapErr(uri)),
    };
  }

  // providerOf returns the FileSystemProvider for uri's scheme, if any;
  // providerFor first activates the extensions of this host waiting for
  // onFileSystem:<scheme>.
  const providerOf = (uri) => fsProviders.get(uri.scheme);
  const providerFor = async (uri) => {
    if (!fsProviders.has(uri.scheme) && uri.scheme !== 'file' && uri.scheme !== 'untitled') await reg.activateFor('onFileSystem:' + uri.scheme);
    return fsProviders.get(uri.scheme);
  };

  // changed tells the watchers (and the file events) about a change made
  // through the host.
  function changed(kind, uri) {
    for (const w of watchers) w.notify(kind, uri);
  }

  // fsFor is workspace.fs for ext.
  function fsFor(ext) {
    const b = brokered(ext);
    const route = (name, fallback) => async (uri, ...rest) => {
      uri = toUri(uri);
      const p = await providerFor(uri);
      if (p) {
        const store = host.als.getStore();
        return host.als.run({ ext: p.ext, cause: store && store.cause }, () => p.provider[name](uri, ...rest));
      }
      if (uri.scheme !== 'file') throw FileSystemError.Unavailable(uri);
      return fallback(uri, ...rest);
    };
    const fsapi = {
      readFile: route('readFile', b.readFile),
      writeFile: async (uri, content) => {
        uri = toUri(uri);
        const p = providerOf(uri);
        if (p) return p.provider.writeFile(uri, content, { create: true, overwrite: true });
        let existed = true;
        try { await b.stat(uri); } catch { existed = false; }
        await route('writeFile', b.writeFile)(uri, content);
        changed(existed ? 'change' : 'create', uri);
      },
      stat: route('stat', b.stat),
      readDirectory: route('readDirectory', b.readDirectory),
      createDirectory: async (uri) => { await route('createDirectory', b.createDirectory)(uri); changed('create', toUri(uri)); },
      delete: async (uri, o) => {
        uri = toUri(uri);
        const p = providerOf(uri);
        if (p) return p.provider.delete(uri, { recursive: !!(o && o.recursive) });
        await b.delete(uri, o);
        changed('delete', uri);
      },
      rename: async (from, to, o) => {
        from = toUri(from); to = toUri(to);
        const p = providerOf(from);
        if (p) return p.provider.rename(from, to, { overwrite: !!(o && o.overwrite) });
        if (!(o && o.overwrite)) { let exists = true; try { await b.stat(to); } catch { exists = false; } if (exists) throw FileSystemError.FileExists(to); }
        await copyTree(b, from, to);
        await b.delete(from, { recursive: true });
        changed('delete', from); changed('create', to);
      },
      copy: async (from, to, o) => {
        from = toUri(from); to = toUri(to);
        const p = providerOf(from);
        if (p && typeof p.provider.copy === 'function') return p.provider.copy(from, to, { overwrite: !!(o && o.overwrite) });
        if (!(o && o.overwrite)) { let exists = true; try { await b.stat(to); } catch { exists = false; } if (exists) throw FileSystemError.FileExists(to); }
        await copyTree(p ? fsapi : b, from, to);
        changed('create', to);
      },
      isWritableFileSystem: (scheme) => (scheme === 'file' ? true : fsProviders.has(scheme) ? !(fsProviders.get(scheme).options || {}).isReadonly : undefined),
    };
    return fsapi;
  }

  async function copyTree(f, from, to) {
    const st = await f.stat(from);
    if (st.type & FileType.Directory) {
      await f.createDirectory(to);
      for (const [name] of await f.readDirectory(from)) await copyTree(f, Uri.joinPath(from, name), Uri.joinPath(to, name));
    } else await f.writeFile(to, await f.readFile(from));
  }

  // readDocument reads the text of uri for a document ext opens.
  async function readDocument(ext, uri) {
    const cp = contentProviders.get(uri.scheme);
    if (cp) {
      const t = token(0);
      const store = host.als.getStore();
      const text = await host.als.run({ ext: cp.ext, cause: store && store.cause }, () => cp.provider.provideTextDocumentContent(uri, t.token));
      if (text === undefined || text === null) throw new Error(`the content provider for ${uri.scheme} gave no text for ${uri.toString()}`);
      return { text: String(text), readOnly: true };
    }
    if (uri.scheme === 'untitled') return { text: '', readOnly: false };
    await providerFor(uri);
    const bytes = await fsFor(ext).readFile(uri);
    return { text: Buffer.from(bytes).toString('utf8').replace(/^\uFEFF/, ''), readOnly: false };
  }

  // writeDocument writes a saved document back.
  async function writeDocument(ext, uri, bytes) {
    if (uri.scheme === 'untitled') throw new Error(`${uri.toString()} is untitled: save it with a file name (workspace.fs.writeFile)`);
    await fsFor(ext).writeFile(uri, bytes);
  }

  // applyEdit applies a WorkspaceEdit: file operations through
  // workspace.fs, text edits to the documents (opened if need be; left
  // unsaved, as in VS Code).
  async function applyEdit(ext, we) {
    if (!we || typeof we.entries !== 'function') throw new TypeError('workspace.applyEdit: a WorkspaceEdit is required');
    const ops = typeof we._ops === 'function' ? we._ops() : we.entries().flatMap(([uri, edits]) => edits.map((edit) => ({ kind: 'edit', uri, edit })));
    const f = fsFor(ext);
    // Consecutive text edits of one document are applied together.
    for (let i = 0; i < ops.length;) {
      const op = ops[i];
      if (op.kind === 'edit') {
        const edits = [];
        let j = i;
        while (j < ops.length && ops[j].kind === 'edit' && ops[j].uri.toString() === op.uri.toString()) edits.push(ops[j++].edit);
        const doc = await reg.documents.openTextDocument(ext, op.uri);
        reg.documents.apply(doc, edits.filter((e) => e && e.range), 'applyEdit');
        i = j;
        continue;
      }
      const o = op.options || {};
      if (op.kind === 'create') {
        let exists = true;
        try { await f.stat(op.uri); } catch { exists = false; }
        if (exists && !o.overwrite) { if (o.ignoreIfExists) { i++; continue; } return false; }
        await f.writeFile(op.uri, o.contents || new Uint8Array());
        events.createFiles.fire({ files: [op.uri] });
      } else if (op.kind === 'delete') {
        try { await f.delete(op.uri, { recursive: !!o.recursive }); } catch (err) { if (!o.ignoreIfNotExists) return false; }
        events.deleteFiles.fire({ files: [op.uri] });
      } else if (op.kind === 'rename') {
        await f.rename(op.from || op.uri, op.to || op.newUri, { overwrite: !!o.overwrite });
        events.renameFiles.fire({ files: [{ oldUri: op.from || op.uri, newUri: op.to || op.newUri }] });
      }
      i++;
    }
    return true;
  }

  // findFiles walks the workspace folders through the broker.
  async function findFiles(ext, include, exclude, maxResults, tok) {
    const out = [];
    const limit = maxResults > 0 ? maxResults : MAX_FIND;
    const f = fsFor(ext);
    let seen = 0;
    const excluded = (rel) => rel.split('/').some((s) => s === 'node_modules' || s === '.git') && !exclude || (exclude && matchGlob(exclude, rel));
    for (const folder of reg.folders) {
      const walk = async (dir, rel) => {
        let entries;
        try { entries = await f.readDirectory(dir); } catch { return; }
        for (const [name, type] of entries) {
          if (out.length >= limit || seen++ >= MAX_FIND || (tok && tok.isCancellationRequested)) return;
          const r = rel ? rel + '/' + name : name;
          if (excluded(r)) continue;
          const u = Uri.joinPath(dir, name);
          if (type & FileType.Directory) await walk(u, r);
          else if (matchGlob(include, r)) out.push(u);
        }
      };
      if (typeof include === 'object' && include && (include.baseUri || include.base)) {
        const base = include.baseUri ? include.baseUri.fsPath : String(include.base);
        if (!(base === folder.uri.fsPath || base.startsWith(folder.uri.fsPath + '/'))) continue;
      }
      await walk(folder.uri, '');
    }
    return out;
  }

  // configuration is workspace.getConfiguration: settings, the values set
  // by update this session, then the contributed defaults.
  function configuration(ext, section, scope) {
    const settings = reg.opts.settings || {};
    const defaults = reg.configDefaults();
    const full = (key) => (section ? section + '.' + key : key);
    const own = (obj, k) => Object.prototype.hasOwnProperty.call(obj, k);
    const dotted = (obj, k) => k.split('.').reduce((o, p) => (o && typeof o === 'object' && own(o, p) ? o[p] : undefined), obj);
    const fromSettings = (k) => (own(settings, k) ? settings[k] : dotted(settings, k));
    const lookup = (key) => {
      const k = full(key);
      if (updates.has(k)) return updates.get(k);
      const v = fromSettings(k);
      if (v !== undefined) return v;
      if (own(defaults, k)) return defaults[k];
      // a section asked as an object: its keys' values
      const prefix = k + '.';
      let obj;
      for (const src of [defaults, settings, Object.fromEntries(updates)]) {
        for (const [dk, dv] of Object.entries(src)) if (dk.startsWith(prefix)) { obj = obj || {}; setPath(obj, dk.slice(prefix.length), dv); }
      }
      return obj;
    };
    const cfg = {
      get: (k, d) => { const v = lookup(k); return v === undefined ? d : clone(v); },
      has: (k) => lookup(k) !== undefined,
      inspect: (k) => {
        const key = full(k);
        return { key, defaultValue: clone(defaults[key]), globalValue: undefined, workspaceValue: clone(updates.has(key) ? updates.get(key) : fromSettings(key)), workspaceFolderValue: undefined };
      },
      update: async (k, value) => {
        const key = full(k);
        if (value === undefined) updates.delete(key); else updates.set(key, clone(value));
        events.config.fire({ affectsConfiguration: (s) => key === s || key.startsWith(s + '.') || s.startsWith(key + '.') });
      },
    };
    // A configuration is also its values, as properties (section objects).
    const top = section ? lookup('') : undefined;
    if (section) {
      const all = {};
      for (const src of [defaults, settings]) for (const [dk, dv] of Object.entries(src)) if (dk.startsWith(section + '.')) setPath(all, dk.slice(section.length + 1), dv);
      for (const [k, v] of Object.entries(all)) if (!own(cfg, k)) cfg[k] = v;
    }
    void top; void scope;
    return Object.freeze(cfg);
  }

  return {
    events, fsFor, readDocument, writeDocument, applyEdit, findFiles, configuration, contentProviders, fsProviders, changed,
    registerTextDocumentContentProvider(ext, api, scheme, provider) {
      scheme = String(scheme);
      if (scheme === 'file' || scheme === 'untitled') throw new Error(`scheme ${scheme} is the host's own`);
      contentProviders.set(scheme, { ext, provider });
      const sub = typeof provider.onDidChange === 'function' ? provider.onDidChange(async (uri) => {
        const doc = reg.documents.get(uri);
        if (!doc) return;
        try {
          const { text } = await readDocument(ext, uri);
          doc._readOnly = false;
          reg.documents.replaceAll(doc, text, 'provider');
          doc.isDirty = false;
          doc._readOnly = true;
        } catch (err) { host.emit(ext, 'error', { text: `content provider ${scheme}: ${err && err.stack || err}` }); }
      }) : undefined;
      return new api.Disposable(() => { if (sub) sub.dispose(); if (contentProviders.get(scheme) && contentProviders.get(scheme).provider === provider) contentProviders.delete(scheme); });
    },
    registerFileSystemProvider(ext, api, scheme, provider, options) {
      scheme = String(scheme);
      if (scheme === 'file' || scheme === 'untitled') throw new Error(`scheme ${scheme} is the host's own: a file-system provider cannot take it over`);
      if (fsProviders.has(scheme)) throw new Error(`a provider for the scheme '${scheme}' is already registered`);
      fsProviders.set(scheme, { ext, provider, options: options || {} });
      const sub = typeof provider.onDidChangeFile === 'function' ? provider.onDidChangeFile((changes) => {
        for (const c of changes || []) changed(c.type === 1 ? 'create' : c.type === 3 ? 'delete' : 'change', c.uri);
      }) : undefined;
      return new api.Disposable(() => { if (sub) sub.dispose(); fsProviders.delete(scheme); });
    },
    createFileSystemWatcher(ext, api, pattern, ignoreCreate, ignoreChange, ignoreDelete) {
      const e = { create: new api.EventEmitter(), change: new api.EventEmitter(), delete: new api.EventEmitter() };
      const w = {
        ignoreCreateEvents: !!ignoreCreate, ignoreChangeEvents: !!ignoreChange, ignoreDeleteEvents: !!ignoreDelete,
        onDidCreate: e.create.event, onDidChange: e.change.event, onDidDelete: e.delete.event,
        notify(kind, uri) {
          if (w[`ignore${kind[0].toUpperCase()}${kind.slice(1)}Events`]) return;
          if (!matchGlob(pattern, uri.scheme === 'file' ? uri.fsPath : uri.path) && !matchGlob(pattern, workspaceRelative(uri))) return;
          const store = host.als.getStore();
          host.als.run({ ext, cause: store && store.cause }, () => e[kind].fire(uri));
        },
        dispose() { watchers.delete(w); for (const x of Object.values(e)) x.dispose(); },
      };
      watchers.add(w);
      return w;
    },
    asRelativePath(pathOrUri, includeFolder) {
      const u = typeof pathOrUri === 'string' ? (pathOrUri.startsWith('/') ? Uri.file(pathOrUri) : null) : pathOrUri;
      if (!u) return pathOrUri;
      const f = reg.folders.find((x) => u.fsPath === x.uri.fsPath || u.fsPath.startsWith(x.uri.fsPath + '/'));
      if (!f) return typeof pathOrUri === 'string' ? pathOrUri : u.fsPath;
      const rel = path.relative(f.uri.fsPath, u.fsPath);
      return (includeFolder === undefined ? reg.folders.length > 1 : includeFolder) ? `${f.name}/${rel}` : rel;
    },
    never,
  };

  function workspaceRelative(uri) {
    const f = reg.folders.find((x) => uri.fsPath.startsWith(x.uri.fsPath + '/'));
    return f ? uri.fsPath.slice(f.uri.fsPath.length + 1) : uri.fsPath;
  }
};

function setPath(obj, dotted, v) {
  const parts = dotted.split('.');
  let o = obj;
  for (const p of parts.slice(0, -1)) { if (!o[p] || typeof o[p] !== 'object') o[p] = {}; o = o[p]; }
  o[parts[parts.length - 1]] = v;
}

function clone(v) { return v === undefined ? undefined : JSON.parse(JSON.stringify(v)); }
