// @ts-check
'use strict';
// Language features: the providers extensions register
// (languages.register*Provider), asked by the launcher ("provide") for a
// document and position, and the diagnostics they publish. Results go to
// the launcher as JSON in the shapes of the Language Server Protocol
// (positions are zero-based line and UTF-16 character, as in vscode).
const { Shared, token } = require('./shared.js');
const { MarkdownString, Range, Position, Uri, SnippetString, CompletionList } = require('./types.js');
const { rangeJSON, posJSON, toRange } = require('./documents.js');

// PROVIDE_MS bounds one provider's answer to a launcher request.
const PROVIDE_MS = 10000;
// MAX_DIAGNOSTICS caps the diagnostics kept for one document and collection.
const MAX_DIAGNOSTICS = 1000;

// globRegExp turns a glob pattern (**, *, ?, {a,b}, [abc]) into a RegExp.
function globRegExp(glob) {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') { i++; re += '(?:.*/)?'; } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') { depth++; re += '(?:'; }
    else if (c === '}' && depth > 0) { depth--; re += ')'; }
    else if (c === ',' && depth > 0) re += '|';
    else if (c === '[') {
      const j = glob.indexOf(']', i + 1);
      if (j < 0) re += '\\[';
      else { re += '[' + glob.slice(i + 1, j).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']'; i = j; }
    } else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

// matchGlob says whether the file path (or its base name, for a pattern
// without a slash) matches pattern (a string or a RelativePattern).
function matchGlob(pattern, fsPath) {
  if (!pattern) return true;
  if (typeof pattern === 'object') {
    const base = pattern.baseUri ? pattern.baseUri.fsPath : (typeof pattern.base === 'string' ? pattern.base : '');
    if (base && !fsPath.startsWith(base.replace(/\/$/, '') + '/')) return false;
    return globRegExp(String(pattern.pattern)).test(base ? fsPath.slice(base.replace(/\/$/, '').length + 1) : fsPath);
  }
  const re = globRegExp(String(pattern));
  return re.test(fsPath) || (!String(pattern).includes('/') && re.test(fsPath.split('/').pop())) || re.test(fsPath.replace(/^\//, ''));
}

// score is vscode.languages.match: how well selector matches doc (0 for not).
function score(selector, doc) {
  if (Array.isArray(selector)) return Math.max(0, ...selector.map((s) => score(s, doc)));
  if (typeof selector === 'string') return selector === '*' ? 5 : selector === doc.languageId ? 10 : 0;
  if (!selector || typeof selector !== 'object') return 0;
  let s = 0;
  if (selector.notebookType) return 0;
  if (selector.scheme) { if (selector.scheme === doc.uri.scheme) s = 10; else if (selector.scheme === '*') s = 5; else return 0; }
  if (selector.language) { if (selector.language === doc.languageId) s = 10; else if (selector.language === '*') s = Math.max(s, 5); else return 0; }
  if (selector.pattern) { if (matchGlob(selector.pattern, doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.path)) s = Math.max(s, 5); else return 0; }
  return s;
}

// Converters from vscode objects to the JSON the launcher gets.
const str = (v) => (v === undefined || v === null ? undefined : String(v));
function markup(v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return { kind: 'markdown', value: v };
  if (v instanceof MarkdownString || typeof v.value === 'string' && v.language === undefined) return { kind: 'markdown', value: String(v.value) };
  if (typeof v.language === 'string') return { kind: 'markdown', value: '```' + v.language + '\n' + v.value + '\n```' };
  return { kind: 'plaintext', value: String(v) };
}
const range = (r) => (r && r.start && r.end ? rangeJSON(r) : undefined);
const uriString = (u) => (u ? u.toString() : undefined);
function location(l) {
  if (!l) return undefined;
  if (l.targetUri) return { uri: uriString(l.targetUri), range: range(l.targetSelectionRange || l.targetRange), targetRange: range(l.targetRange), originSelectionRange: range(l.originSelectionRange) };
  return { uri: uriString(l.uri), range: range(l.range && l.range.start ? l.range : l.range && new Range(l.range, l.range)) };
}
const command = (c) => (c && typeof c.command === 'string' ? { title: str(c.title), command: c.command, arguments: safe(c.arguments) } : undefined);
function safe(v) {
  if (v === undefined) return undefined;
  try { return JSON.parse(JSON.stringify(v)); } catch { return undefined; }
}
function textEdit(e) { return e && { range: range(e.range), newText: String(e.newText === undefined ? '' : e.newText) }; }
function workspaceEdit(we) {
  if (!we || typeof we.entries !== 'function') return undefined;
  return { changes: we.entries().map(([u, edits]) => ({ uri: uriString(u), edits: edits.map(textEdit) })) };
}
function diagnostic(d) {
  return {
    range: range(d.range), message: String(d.message), severity: typeof d.severity === 'number' ? d.severity : 0, source: str(d.source),
    code: d.code && typeof d.code === 'object' ? str(d.code.value) : str(d.code), tags: Array.isArray(d.tags) ? d.tags.slice() : undefined,
    relatedInformation: Array.isArray(d.relatedInformation) ? d.relatedInformation.map((r) => ({ location: location(r.location), message: String(r.message) })) : undefined,
  };
}
function completion(c) {
  if (typeof c === 'string') c = { label: c };
  const label = typeof c.label === 'object' && c.label ? String(c.label.label) : String(c.label);
  const insert = c.insertText instanceof SnippetString || (c.insertText && typeof c.insertText.value === 'string') ? { insertText: String(c.insertText.value), insertTextFormat: 'snippet' } : { insertText: str(c.insertText) };
  const r = c.range && c.range.inserting ? { range: range(c.range.replacing), insertRange: range(c.range.inserting) } : { range: range(c.range) };
  return Object.assign({ label, kind: c.kind, detail: str(c.detail), documentation: markup(c.documentation), sortText: str(c.sortText), filterText: str(c.filterText), preselect: c.preselect || undefined, commitCharacters: c.commitCharacters, command: command(c.command), additionalTextEdits: Array.isArray(c.additionalTextEdits) ? c.additionalTextEdits.map(textEdit) : undefined }, insert, r);
}
function symbol(s) {
  if (s.location) return { name: String(s.name), kind: s.kind, containerName: str(s.containerName), location: location(s.location) };
  return { name: String(s.name), detail: str(s.detail), kind: s.kind, range: range(s.range), selectionRange: range(s.selectionRange), children: Array.isArray(s.children) ? s.children.map(symbol) : [] };
}
function codeAction(a) {
  if (typeof a.command === 'string') return { title: String(a.title), command: command(a) };
  return { title: String(a.title), kind: a.kind ? String(a.kind.value) : undefined, isPreferred: a.isPreferred || undefined, diagnostics: Array.isArray(a.diagnostics) ? a.diagnostics.map(diagnostic) : undefined, edit: workspaceEdit(a.edit), command: command(a.command), disabled: a.disabled ? { reason: String(a.disabled.reason) } : undefined };
}
const many = (v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

// KINDS are the provider kinds the launcher may ask: how a provider is
// called (its method and arguments from the request) and how its answer
// becomes JSON.
const KINDS = {
  completion: { method: 'provideCompletionItems', args: (d, p) => [pos(p), { triggerKind: p.triggerCharacter ? 1 : 0, triggerCharacter: p.triggerCharacter }],
    convert: (v) => (v instanceof CompletionList || (v && Array.isArray(v.items)) ? v.items : many(v)).map(completion) },
  hover: { method: 'provideHover', args: (d, p) => [pos(p)], convert: (v) => (v ? [{ contents: many(v.contents).map(markup), range: range(v.range) }] : []) },
  definition: { method: 'provideDefinition', args: (d, p) => [pos(p)], convert: (v) => many(v).map(location) },
  declaration: { method: 'provideDeclaration', args: (d, p) => [pos(p)], convert: (v) => many(v).map(location) },
  typeDefinition: { method: 'provideTypeDefinition', args: (d, p) => [pos(p)], convert: (v) => many(v).map(location) },
  implementation: { method: 'provideImplementation', args: (d, p) => [pos(p)], convert: (v) => many(v).map(location) },
  references: { method: 'provideReferences', args: (d, p) => [pos(p), { includeDeclaration: p.includeDeclaration !== false }], convert: (v) => many(v).map(location) },
  documentHighlights: { method: 'provideDocumentHighlights', args: (d, p) => [pos(p)], convert: (v) => many(v).map((h) => ({ range: range(h.range), kind: h.kind })) },
  documentSymbols: { method: 'provideDocumentSymbols', args: () => [], convert: (v) => many(v).map(symbol) },
  codeActions: { method: 'provideCodeActions', args: (d, p, reg) => [rng(d, p), { diagnostics: reg.diagnosticsIn(d.uri, rng(d, p)), only: p.only ? { value: String(p.only) } : undefined, triggerKind: 1 }],
    convert: (v) => many(v).map(codeAction) },
  codeLenses: { method: 'provideCodeLenses', resolve: 'resolveCodeLens', args: () => [], convert: (v) => many(v).map((l) => ({ range: range(l.range), command: command(l.command) })) },
  formatting: { method: 'provideDocumentFormattingEdits', args: (d, p) => [fmt(p)], convert: (v) => many(v).map(textEdit) },
  rangeFormatting: { method: 'provideDocumentRangeFormattingEdits', args: (d, p) => [rng(d, p), fmt(p)], convert: (v) => many(v).map(textEdit) },
  onTypeFormatting: { method: 'provideOnTypeFormattingEdits', args: (d, p) => [pos(p), String(p.ch || ''), fmt(p)], convert: (v) => many(v).map(textEdit) },
  signatureHelp: { method: 'provideSignatureHelp', args: (d, p) => [pos(p), { triggerKind: 1, isRetrigger: false }],
    convert: (v) => (v ? [{ activeSignature: v.activeSignature, activeParameter: v.activeParameter, signatures: many(v.signatures).map((s) => ({ label: String(s.label), documentation: markup(s.documentation), parameters: many(s.parameters).map((x) => ({ label: x.label, documentation: markup(x.documentation) })) })) }] : []) },
  rename: { method: 'provideRenameEdits', args: (d, p) => [pos(p), String(p.newName || '')], convert: (v) => (v ? [workspaceEdit(v)] : []) },
  foldingRanges: { method: 'provideFoldingRanges', args: () => [{}], convert: (v) => many(v).map((f) => ({ start: f.start, end: f.end, kind: f.kind })) },
  documentLinks: { method: 'provideDocumentLinks', args: () => [], convert: (v) => many(v).map((l) => ({ range: range(l.range), target: uriString(l.target), tooltip: str(l.tooltip) })) },
  selectionRanges: { method: 'provideSelectionRanges', args: (d, p) => [[pos(p)]], convert: (v) => many(v).map(function sel(s) { return s && { range: range(s.range), parent: sel(s.parent) }; }) },
  inlayHints: { method: 'provideInlayHints', args: (d, p) => [rng(d, p)], convert: (v) => many(v).map((h) => ({ position: posJSON(h.position), label: typeof h.label === 'string' ? h.label : many(h.label).map((x) => String(x.value)).join(''), kind: h.kind })) },
  documentColors: { method: 'provideDocumentColors', args: () => [], convert: (v) => many(v).map((c) => ({ range: range(c.range), color: c.color && { red: c.color.red, green: c.color.green, blue: c.color.blue, alpha: c.color.alpha } })) },
};
const pos = (p) => new Position(p.position ? p.position.line | 0 : 0, p.position ? p.position.character | 0 : 0);
const rng = (d, p) => (p.range ? toRange(p.range) : new Range(new Position(0, 0), d.positionAt(Number.MAX_SAFE_INTEGER)));
const fmt = (p) => Object.assign({ tabSize: 4, insertSpaces: true }, p.options || {});

// REGISTER maps register function names to provider kinds.
const REGISTER = {
  registerCompletionItemProvider: 'completion', registerHoverProvider: 'hover', registerDefinitionProvider: 'definition',
  registerDeclarationProvider: 'declaration', registerTypeDefinitionProvider: 'typeDefinition', registerImplementationProvider: 'implementation',
  registerReferenceProvider: 'references', registerDocumentHighlightProvider: 'documentHighlights', registerDocumentSymbolProvider: 'documentSymbols',
  registerCodeActionsProvider: 'codeActions', registerCodeLensProvider: 'codeLenses', registerDocumentFormattingEditProvider: 'formatting',
  registerDocumentRangeFormattingEditProvider: 'rangeFormatting', registerOnTypeFormattingEditProvider: 'onTypeFormatting',
  registerSignatureHelpProvider: 'signatureHelp', registerRenameProvider: 'rename', registerFoldingRangeProvider: 'foldingRanges',
  registerDocumentLinkProvider: 'documentLinks', registerSelectionRangeProvider: 'selectionRanges', registerInlayHintsProvider: 'inlayHints',
  registerColorProvider: 'documentColors',
  // kept, not asked by the launcher yet:
  registerWorkspaceSymbolProvider: 'workspaceSymbols', registerDocumentSemanticTokensProvider: 'semanticTokens',
  registerDocumentRangeSemanticTokensProvider: 'rangeSemanticTokens', registerCallHierarchyProvider: 'callHierarchy',
  registerTypeHierarchyProvider: 'typeHierarchy', registerLinkedEditingRangeProvider: 'linkedEditing', registerInlineValuesProvider: 'inlineValues',
  registerEvaluatableExpressionProvider: 'evaluatable', registerInlineCompletionItemProvider: 'inlineCompletion', registerDocumentDropEditProvider: 'drop',
  registerDocumentPasteEditProvider: 'paste',
};

module.exports = function languages(host, reg) {
  const providers = []; // {kind, selector, provider, ext, meta}
  const collections = new Map(); // name -> Map(uri string -> Diagnostic[])
  const changed = new Shared(host, 'onDidChangeDiagnostics');
  const configs = new Map(); // language -> configuration
  const statusItems = new Set();

  // diagnosticsOf returns [uri, Diagnostic[]][] (one uri, or all).
  function diagnosticsOf(uri) {
    const byUri = new Map();
    for (const c of collections.values()) {
      for (const [u, ds] of c.entries) {
        if (uri && u !== uri.toString()) continue;
        if (!byUri.has(u)) byUri.set(u, []);
        byUri.get(u).push(...ds);
      }
    }
    return byUri;
  }

  const self = {
    KINDS, REGISTER, score, providers,
    diagnosticsIn(uri, r) { return (diagnosticsOf(uri).get(uri.toString()) || []).filter((d) => !r || !d.range || d.range.intersection(r)); },

    // matching lists the providers of kind whose selector matches doc,
    // best match first (registration order among equals).
    matching(kind, doc) {
      return providers.filter((x) => x.kind === kind).map((x) => ({ x, s: score(x.selector, doc) }))
        .filter((m) => m.s > 0).sort((a, b) => b.s - a.s).map((m) => m.x);
    },

    // provide asks every provider of kind matching the document, best
    // match first, and merges their answers.
    async provide(p) {
      const kind = KINDS[p.kind];
      if (!kind) throw new Error(`unknown provider kind ${p.kind} (want one of ${Object.keys(KINDS).join(', ')})`);
      const doc = reg.documentOf(p);
      const list = self.matching(p.kind, doc);
      const items = [];
      const errors = [];
      for (const x of list) {
        const t = token(PROVIDE_MS);
        try {
          const store = host.als.getStore();
          let v = await host.als.run({ ext: x.ext, cause: store && store.cause }, () => Promise.race([
            Promise.resolve().then(() => x.provider[kind.method](doc, ...kind.args(doc, p, self), t.token)),
            new Promise((_, rej) => setTimeout(() => rej(new Error(`${kind.method} did not answer within ${PROVIDE_MS} ms`)), PROVIDE_MS).unref()),
          ]));
          if (kind.resolve && typeof x.provider[kind.resolve] === 'function') {
            v = await Promise.all(many(v).map((l) => (l.command ? l : host.als.run({ ext: x.ext, cause: store && store.cause }, () => x.provider[kind.resolve](l, t.token)))));
          }
          for (const item of kind.convert(v)) if (item !== undefined) items.push(Object.assign(item, { extension: x.ext.id }));
        } catch (err) {
          errors.push({ extension: x.ext.id, message: String(err && err.message || err).slice(0, 2000) });
          host.emit(x.ext, 'error', { text: `${kind.method}: ${err && err.stack || err}` });
        } finally {
          t.dispose();
        }
      }
      return { items, providers: list.length, errors };
    },

    // diagnostics returns what every collection holds, as JSON.
    diagnostics(uri) {
      return [...diagnosticsOf(uri && Uri.parse(uri)).entries()].map(([u, ds]) => ({ uri: u, diagnostics: ds.map(diagnostic) }));
    },

    // api returns the languages namespace for ext.
    api(ext, api) {
      const ns = {
        getLanguages: async () => {
          const ids = new Set(['plaintext', 'markdown', 'javascript', 'typescript', 'json', 'jsonc', 'css', 'html', 'python']);
          for (const e of reg.exts.values()) for (const l of (e.desc.packageJSON.contributes && e.desc.packageJSON.contributes.languages) || []) if (l && l.id) ids.add(String(l.id));
          for (const d of reg.documents.all()) ids.add(d.languageId);
          return [...ids];
        },
        setTextDocumentLanguage: async (doc, languageId) => reg.documents.setLanguage(doc, languageId),
        match: (selector, doc) => score(selector, doc),
        onDidChangeDiagnostics: changed.event(ext),
        getDiagnostics: (uri) => {
          if (uri) return diagnosticsOf(uri).get(uri.toString()) || [];
          return [...diagnosticsOf().entries()].map(([u, ds]) => [Uri.parse(u), ds]);
        },
        createDiagnosticCollection: (name) => collection(ext, name),
        setLanguageConfiguration: (language, config) => { configs.set(String(language), config); return { dispose: () => configs.delete(String(language)) }; },
        createLanguageStatusItem: (id, selector) => {
          const item = { id, selector, name: undefined, severity: 0, text: '', detail: undefined, busy: false, command: undefined, accessibilityInformation: undefined, dispose: () => statusItems.delete(item) };
          statusItems.add(item);
          return item;
        },
      };
      for (const [fn, kind] of Object.entries(REGISTER)) {
        ns[fn] = (selector, provider, ...meta) => {
          if (!provider || typeof provider !== 'object' && typeof provider !== 'function') throw new TypeError(`languages.${fn}: a provider is required`);
          const entry = { kind, selector, provider, ext, meta };
          providers.push(entry);
          return new api.Disposable(() => { const i = providers.indexOf(entry); if (i >= 0) providers.splice(i, 1); });
        };
      }
      return ns;
    },
  };

  // collection is a DiagnosticCollection of ext: what it sets is kept and
  // reported to the launcher as a "diagnostics" event per document.
  function collection(ext, name) {
    let n = name || `${ext.id}-${collections.size}`;
    while (collections.has(n)) n += '\'';
    const entries = new Map();
    collections.set(n, { entries });
    const publish = (u) => {
      const ds = entries.get(u) || [];
      host.emit(ext, 'diagnostics', { uri: u, name: n, data: { diagnostics: ds.slice(0, 200).map(diagnostic), count: ds.length } });
      changed.fire({ uris: [Uri.parse(u)] });
    };
    const c = {
      name: n,
      set(a, b) {
        if (Array.isArray(a)) {
          for (const [u, ds] of a) { if (ds) entries.set(u.toString(), [...(entries.get(u.toString()) || []), ...ds].slice(0, MAX_DIAGNOSTICS)); else entries.delete(u.toString()); publish(u.toString()); }
          return;
        }
        if (!a) throw new TypeError('DiagnosticCollection.set: a Uri is required');
        if (b === undefined || b === null) entries.delete(a.toString()); else entries.set(a.toString(), [...b].slice(0, MAX_DIAGNOSTICS));
        publish(a.toString());
      },
      delete(u) { entries.delete(u.toString()); publish(u.toString()); },
      clear() { const us = [...entries.keys()]; entries.clear(); us.forEach(publish); },
      forEach(fn, thisArg) { for (const [u, ds] of entries) fn.call(thisArg, Uri.parse(u), ds, c); },
      get: (u) => entries.get(u.toString()),
      has: (u) => entries.has(u.toString()),
      dispose() { c.clear(); collections.delete(n); },
      [Symbol.iterator]: function* () { for (const [u, ds] of entries) yield [Uri.parse(u), ds]; },
    };
    return c;
  }

  return self;
};

module.exports.matchGlob = matchGlob;
module.exports.globRegExp = globRegExp;
module.exports.score = score;
module.exports.location = location;
module.exports.workspaceEdit = workspaceEdit;
module.exports.textEdit = textEdit;
module.exports.diagnostic = diagnostic;
