// @ts-check
'use strict';
// Text documents and editors: the model of the files open in the host.
// The launcher (the editor or the driver) opens, changes and closes
// documents ("documents/*" requests); extensions open them too
// (workspace.openTextDocument reads through the workspace broker, a
// content provider or a file-system provider), edit them (a TextEditor's
// edit, workspace.applyEdit) and save them (written back through the
// workspace broker). Every change an extension makes is reported to the
// launcher as an "edit" event, so the editor on the other side can follow.
const path = require('node:path');
const { Position, Range, Selection, EndOfLine, TextEdit, Uri, TabInputText } = require('./types.js');
const { Shared } = require('./shared.js');

// MAX_DOCUMENT caps a document's size (bytes of UTF-8), as VS Code caps
// what extensions see of large files.
const MAX_DOCUMENT = 50 * 1024 * 1024;
// MAX_EDIT_EVENT caps the edits an "edit" event carries (in JSON); a
// larger change is reported as {full: true} and the editor reads the text.
const MAX_EDIT_EVENT = 48 * 1024;

// LANGUAGES maps a file extension to the language VS Code gives it.
const LANGUAGES = {
  '.txt': 'plaintext', '.md': 'markdown', '.markdown': 'markdown', '.js': 'javascript', '.cjs': 'javascript', '.mjs': 'javascript',
  '.jsx': 'javascriptreact', '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'typescriptreact', '.json': 'json',
  '.jsonc': 'jsonc', '.css': 'css', '.scss': 'scss', '.less': 'less', '.html': 'html', '.htm': 'html', '.xml': 'xml', '.py': 'python',
  '.go': 'go', '.rs': 'rust', '.java': 'java', '.c': 'c', '.h': 'c', '.cpp': 'cpp', '.cc': 'cpp', '.hpp': 'cpp', '.cs': 'csharp',
  '.sh': 'shellscript', '.bash': 'shellscript', '.yaml': 'yaml', '.yml': 'yaml', '.toml': 'toml', '.ini': 'ini', '.rb': 'ruby',
  '.php': 'php', '.sql': 'sql', '.lua': 'lua', '.swift': 'swift', '.kt': 'kotlin', '.r': 'r', '.pl': 'perl', '.ps1': 'powershell',
  '.dockerfile': 'dockerfile', '.bat': 'bat', '.fs': 'fsharp', '.vue': 'vue', '.svelte': 'svelte', '.tex': 'latex', '.log': 'log',
};

// lineStarts returns the offset of every line's start; a line ends at
// \n, \r\n or \r.
function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) { if (text.charCodeAt(i + 1) === 10) i++; starts.push(i + 1); } else if (c === 10) starts.push(i + 1);
  }
  return starts;
}

// TextLine is one line of a document.
class TextLine {
  constructor(lineNumber, text, eolLength) {
    this.lineNumber = lineNumber;
    this.text = text;
    this.range = new Range(lineNumber, 0, lineNumber, text.length);
    this.rangeIncludingLineBreak = eolLength ? new Range(lineNumber, 0, lineNumber + 1, 0) : this.range;
    const m = /\S/.exec(text);
    this.firstNonWhitespaceCharacterIndex = m ? m.index : text.length;
    this.isEmptyOrWhitespace = !m;
  }
}

// DEFAULT_WORD is VS Code's default word pattern.
const DEFAULT_WORD = /(-?\d*\.\d\w*)|([^`~!@#$%^&*()\-=+[{\]}\\|;:'",.<>/?\s]+)/g;

// TextDocument is one open document.
class TextDocument {
  constructor(registry, uri, languageId, text, readOnly) {
    Object.defineProperty(this, '_reg', { value: registry });
    this.uri = uri;
    this.languageId = languageId;
    this.version = 1;
    this.isDirty = false;
    this.isClosed = false;
    this.isUntitled = uri.scheme === 'untitled';
    this.encoding = 'utf8';
    Object.defineProperty(this, '_readOnly', { value: !!readOnly, writable: true });
    // Declarations only (defined non-enumerable above and by _set).
    /** @type {any} the registry (the documents' state and events) */
    this._reg;
    /** @type {boolean} */
    this._readOnly;
    /** @type {string} */
    this._text;
    /** @type {number[]} the offset each line starts at */
    this._starts;
    this._set(text);
  }

  _set(text) {
    Object.defineProperty(this, '_text', { value: text, writable: true, configurable: true });
    Object.defineProperty(this, '_starts', { value: lineStarts(text), writable: true, configurable: true });
  }

  get fileName() { return this.uri.scheme === 'file' ? this.uri.fsPath : this.uri.path; }
  get lineCount() { return this._starts.length; }
  get eol() { return /\r\n/.test(this._text) ? EndOfLine.CRLF : EndOfLine.LF; }

  getText(range) {
    if (!range) return this._text;
    const r = this.validateRange(range);
    return this._text.slice(this.offsetAt(r.start), this.offsetAt(r.end));
  }

  lineAt(lineOrPosition) {
    const line = typeof lineOrPosition === 'number' ? lineOrPosition : lineOrPosition.line;
    if (!Number.isInteger(line) || line < 0 || line >= this._starts.length) throw new Error(`Illegal value for \`line\`: ${line}`);
    const start = this._starts[line];
    const next = line + 1 < this._starts.length ? this._starts[line + 1] : this._text.length;
    let end = next;
    if (line + 1 < this._starts.length) {
      if (end > start && this._text.charCodeAt(end - 1) === 10) end--;
      if (end > start && this._text.charCodeAt(end - 1) === 13) end--;
    }
    return new TextLine(line, this._text.slice(start, end), next - end);
  }

  offsetAt(position) {
    const p = this.validatePosition(position);
    return this._starts[p.line] + p.character;
  }

  positionAt(offset) {
    offset = Math.max(0, Math.min(Math.floor(Number(offset) || 0), this._text.length));
    let lo = 0, hi = this._starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this._starts[mid] <= offset) lo = mid; else hi = mid - 1;
    }
    const line = this.lineAt(lo);
    return new Position(lo, Math.min(offset - this._starts[lo], line.text.length));
  }

  validatePosition(position) {
    if (!(position instanceof Position) && !(position && typeof position.line === 'number')) throw new Error('Invalid argument: a Position is required');
    let { line, character } = position;
    if (line < 0) return new Position(0, 0);
    if (line >= this._starts.length) { line = this._starts.length - 1; character = this.lineAt(line).text.length; return new Position(line, character); }
    const len = this.lineAt(line).text.length;
    return new Position(line, Math.max(0, Math.min(character, len)));
  }

  validateRange(range) {
    if (!range || !range.start || !range.end) throw new Error('Invalid argument: a Range is required');
    return new Range(this.validatePosition(range.start), this.validatePosition(range.end));
  }

  getWordRangeAtPosition(position, regex) {
    const p = this.validatePosition(position);
    const text = this.lineAt(p.line).text;
    let re = regex || DEFAULT_WORD;
    if (!re.global) re = new RegExp(re.source, re.flags + 'g');
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text))) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      if (m.index <= p.character && p.character <= m.index + m[0].length) return new Range(p.line, m.index, p.line, m.index + m[0].length);
      if (m.index > p.character) break;
    }
    return undefined;
  }

  save() { return this._reg.save(this); }
}

// toRange turns a JSON range ({start: {line, character}, end}) into a Range.
function toRange(r) {
  if (r instanceof Range) return r;
  if (!r || !r.start || !r.end) throw new TypeError('a range {start: {line, character}, end: {line, character}} is required');
  return new Range(r.start.line | 0, r.start.character | 0, r.end.line | 0, r.end.character | 0);
}

// rangeJSON is a Range as the launcher reads it.
const posJSON = (p) => ({ line: p.line, character: p.character });
const rangeJSON = (r) => ({ start: posJSON(r.start), end: posJSON(r.end) });

module.exports = function documents(host, reg) {
  const docs = new Map(); // uri string -> TextDocument
  const ev = (name) => new Shared(host, name);
  const events = {
    open: ev('onDidOpenTextDocument'), close: ev('onDidCloseTextDocument'), change: ev('onDidChangeTextDocument'),
    willSave: ev('onWillSaveTextDocument'), save: ev('onDidSaveTextDocument'),
    activeEditor: ev('onDidChangeActiveTextEditor'), visibleEditors: ev('onDidChangeVisibleTextEditors'),
    selection: ev('onDidChangeTextEditorSelection'), visibleRanges: ev('onDidChangeTextEditorVisibleRanges'),
    editorOptions: ev('onDidChangeTextEditorOptions'), viewColumn: ev('onDidChangeTextEditorViewColumn'),
    tabs: ev('onDidChangeTabs'),
  };
  const editors = []; // visible editors, the active one last
  let active;

  // languageOf guesses a file's language from the extensions' contributed
  // languages, then VS Code's defaults.
  function languageOf(uri) {
    const base = path.posix.basename(uri.path);
    const ext = path.posix.extname(base).toLowerCase();
    for (const e of reg.exts.values()) {
      for (const l of (e.desc.packageJSON && e.desc.packageJSON.contributes && e.desc.packageJSON.contributes.languages) || []) {
        if (!l || typeof l.id !== 'string') continue;
        if ((Array.isArray(l.extensions) && l.extensions.some((x) => typeof x === 'string' && x.toLowerCase() === ext && ext)) ||
            (Array.isArray(l.filenames) && l.filenames.includes(base))) return l.id;
      }
    }
    if (base === 'Dockerfile') return 'dockerfile';
    if (base === 'Makefile') return 'makefile';
    return LANGUAGES[ext] || 'plaintext';
  }

  // add makes a document of text and tells the listeners.
  function add(uri, languageId, text, readOnly) {
    if (Buffer.byteLength(text) > MAX_DOCUMENT) throw new Error(`${uri.toString()} is larger than ${MAX_DOCUMENT} bytes`);
    const doc = new TextDocument(self, uri, languageId || languageOf(uri), text, readOnly);
    docs.set(uri.toString(), doc);
    events.open.fire(doc);
    return doc;
  }

  const self = {
    events, docs, languageOf,
    all: () => [...docs.values()],
    get: (uri) => docs.get((typeof uri === 'string' ? Uri.parse(uri) : uri).toString()),

    // open is the launcher's "documents/open": text given, or read by the
    // launcher before asking.
    openFromLauncher(p) {
      const uri = p.uri ? Uri.parse(p.uri) : Uri.file(p.path);
      const old = docs.get(uri.toString());
      if (old) {
        if (typeof p.text === 'string' && p.text !== old._text) self.replaceAll(old, p.text, 'launcher');
        if (p.languageId && p.languageId !== old.languageId) self.setLanguage(old, p.languageId);
        return old;
      }
      return add(uri, p.languageId, typeof p.text === 'string' ? p.text : '', !!p.readOnly);
    },

    // openTextDocument is workspace.openTextDocument for ext.
    async openTextDocument(ext, arg) {
      if (arg === undefined || (arg && typeof arg === 'object' && !(arg instanceof Uri) && typeof arg.scheme !== 'string')) {
        const o = arg || {};
        let n = 1;
        while (docs.has(`untitled:Untitled-${n}`)) n++;
        return add(Uri.from({ scheme: 'untitled', path: `Untitled-${n}` }), o.language || 'plaintext', o.content === undefined ? '' : String(o.content), false);
      }
      const uri = typeof arg === 'string' ? Uri.file(arg) : (arg instanceof Uri ? arg : Uri.from(arg));
      const old = docs.get(uri.toString());
      if (old) return old;
      const { text, readOnly } = await reg.readDocument(ext, uri);
      return docs.get(uri.toString()) || add(uri, undefined, text, readOnly);
    },

    // apply changes doc by edits (TextEdits, one document, all against
    // the current text); reason is who changed it.
    apply(doc, edits, reason) {
      if (doc.isClosed) throw new Error(`${doc.uri.toString()} is closed`);
      const list = edits.map((e) => {
        const r = doc.validateRange(e.range);
        return { range: r, start: doc.offsetAt(r.start), end: doc.offsetAt(r.end), text: String(e.newText === undefined ? e.text || '' : e.newText) };
      }).sort((a, b) => a.start - b.start || a.end - b.end);
      for (let i = 1; i < list.length; i++) if (list[i].start < list[i - 1].end) throw new Error('overlapping edits');
      if (list.length === 0) return true;
      let text = doc._text;
      for (let i = list.length - 1; i >= 0; i--) text = text.slice(0, list[i].start) + list[i].text + text.slice(list[i].end);
      if (Buffer.byteLength(text) > MAX_DOCUMENT) throw new Error(`${doc.uri.toString()} would be larger than ${MAX_DOCUMENT} bytes`);
      doc._set(text);
      doc.version++;
      doc.isDirty = true;
      const contentChanges = list.reverse().map((c) => ({ range: c.range, rangeOffset: c.start, rangeLength: c.end - c.start, text: c.text }));
      events.change.fire({ document: doc, contentChanges, reason: undefined });
      if (reason !== 'launcher') self.report(doc, contentChanges);
      return true;
    },

    // replaceAll sets doc's whole text.
    replaceAll(doc, text, reason) {
      const end = doc.positionAt(doc._text.length);
      return self.apply(doc, [{ range: new Range(0, 0, end.line, end.character), newText: text }], reason);
    },

    // report tells the launcher an extension changed doc.
    report(doc, changes) {
      let edits = changes.map((c) => ({ range: rangeJSON(c.range), text: c.text }));
      if (JSON.stringify(edits).length > MAX_EDIT_EVENT) edits = undefined;
      host.emit(null, 'edit', { uri: doc.uri.toString(), data: edits ? { version: doc.version, edits } : { version: doc.version, full: true } });
    },

    setLanguage(doc, languageId) {
      events.close.fire(doc);
      doc.languageId = String(languageId);
      events.open.fire(doc);
      return doc;
    },

    // save writes doc back (through the workspace broker for a file, its
    // provider otherwise), after onWillSave's edits.
    async save(doc, reason) {
      if (doc.isClosed) return false;
      if (doc._readOnly) return false;
      const waits = [];
      events.willSave.fire({ document: doc, reason: reason || 1, waitUntil: (p) => waits.push(p) });
      for (const p of waits) {
        try {
          const edits = await p;
          if (Array.isArray(edits) && edits.length) self.apply(doc, edits, 'save');
        } catch (err) { host.emit(null, 'error', { text: `onWillSaveTextDocument: ${err && err.stack || err}` }); }
      }
      await reg.writeDocument(doc.uri, Buffer.from(doc._text));
      doc.isDirty = false;
      events.save.fire(doc);
      host.emit(null, 'saved', { uri: doc.uri.toString(), data: { version: doc.version } });
      return true;
    },

    close(doc) {
      if (!doc || doc.isClosed) return;
      docs.delete(doc.uri.toString());
      doc.isClosed = true;
      const closed = [];
      for (let i = editors.length - 1; i >= 0; i--) if (editors[i].document === doc) closed.push(tabOf(editors.splice(i, 1)[0]));
      if (closed.length) tabsChanged({ closed });
      if (active && active.document === doc) self.setActive(editors[editors.length - 1]);
      events.close.fire(doc);
    },

    // Editors.
    get active() { return active; },
    editors: () => editors.slice(),
    setActive(ed) {
      if (ed === active) return;
      active = ed;
      if (ed && !editors.includes(ed)) { editors.push(ed); events.visibleEditors.fire(editors.slice()); tabsChanged({ opened: [tabOf(ed)] }); }
      events.activeEditor.fire(ed);
    },
    // show makes doc the active editor's document.
    show(doc, options) {
      let ed = editors.find((e) => e.document === doc);
      if (!ed) ed = new TextEditor(self, doc, options && options.viewColumn);
      if (options && options.selection) ed.selection = new Selection(options.selection.start, options.selection.end);
      if (!(options && options.preserveFocus)) self.setActive(ed);
      else if (!editors.includes(ed)) { editors.push(ed); events.visibleEditors.fire(editors.slice()); tabsChanged({ opened: [tabOf(ed)] }); }
      host.emit(null, 'showDocument', { uri: doc.uri.toString() });
      return ed;
    },
  };
  // Tabs: one group, a tab per editor (window.tabGroups), for the
  // extensions that follow what the user sees (a language client pulls
  // the diagnostics of the documents in tabs).
  const tabs = new WeakMap(); // editor -> Tab
  function tabOf(ed) {
    if (!tabs.has(ed)) {
      const tab = {
        get label() { return path.posix.basename(ed.document.uri.path); },
        get group() { return group; },
        input: new TabInputText(ed.document.uri),
        get isActive() { return active === ed; },
        get isDirty() { return ed.document.isDirty; },
        isPinned: false, isPreview: false,
      };
      tabs.set(ed, tab);
    }
    return tabs.get(ed);
  }
  const group = {
    isActive: true, viewColumn: 1,
    get activeTab() { return active ? tabOf(active) : undefined; },
    get tabs() { return editors.map(tabOf); },
  };
  function tabsChanged(c) { events.tabs.fire({ opened: c.opened || [], closed: c.closed || [], changed: c.changed || [] }); }
  self.tabGroups = (ext) => ({
    get all() { return [group]; },
    get activeTabGroup() { return group; },
    onDidChangeTabs: events.tabs.event(ext),
    onDidChangeTabGroups: () => ({ dispose() {} }),
    close: async (t) => {
      for (const tab of Array.isArray(t) ? t : [t]) {
        const ed = editors.find((e) => tabs.get(e) === tab);
        if (ed) self.close(ed.document);
      }
      return true;
    },
  });

  return self;
};

// TextEditor is a document shown in an editor: the selections and
// decorations an extension sets, and its edits.
class TextEditor {
  constructor(registry, document, viewColumn) {
    Object.defineProperty(this, '_reg', { value: registry });
    this.document = document;
    this._selections = [new Selection(0, 0, 0, 0)];
    this.options = { tabSize: 4, indentSize: 4, insertSpaces: true, cursorStyle: 1, lineNumbers: 1 };
    this.viewColumn = viewColumn > 0 ? viewColumn : 1;
    this.visibleRanges = [new Range(0, 0, Math.max(0, document.lineCount - 1), 0)];
    Object.defineProperty(this, '_decorations', { value: new Map() });
    // Declarations only (defined non-enumerable above).
    /** @type {any} the registry (the documents' state and events) */
    this._reg;
    /** @type {Map<any, any>} */
    this._decorations;
  }

  get selection() { return this._selections[0]; }
  set selection(s) { this.selections = [s]; }
  get selections() { return this._selections.slice(); }
  set selections(list) {
    if (!Array.isArray(list) || list.length === 0 || !list.every((s) => s instanceof Selection)) throw new Error('Illegal argument: selections must be a non-empty array of Selection');
    this._selections = list.map((s) => new Selection(this.document.validatePosition(s.anchor), this.document.validatePosition(s.active)));
    this._reg.events.selection.fire({ textEditor: this, selections: this.selections, kind: 3 });
  }

  // edit collects the edits callback makes and applies them at once.
  async edit(callback, _options) {
    const b = editBuilder(this.document);
    callback(b.builder);
    return this._reg.apply(this.document, b.done(), 'editor');
  }

  // insertSnippet inserts the snippet's text with its placeholders'
  // defaults (there is no user to tab through them).
  async insertSnippet(snippet, location) {
    const text = expandSnippet(typeof snippet === 'string' ? snippet : snippet.value);
    const ranges = location === undefined ? this.selections : (Array.isArray(location) ? location : [location]);
    const edits = ranges.map((r) => ({ range: r instanceof Position ? new Range(r, r) : r, newText: text }));
    return this._reg.apply(this.document, edits, 'editor');
  }

  setDecorations(type, rangesOrOptions) {
    this._decorations.set(type && type.key, (rangesOrOptions || []).map((r) => (r instanceof Range ? r : r.range)));
  }

  revealRange() {}
  show(column) { this._reg.show(this.document, { viewColumn: column }); }
  hide() {}
}

// editBuilder is a TextEditorEdit for doc (TextEditor.edit and
// registerTextEditorCommand give one): builder collects the edits; done
// returns them, setEndOfLine's rewrite of the whole text last.
function editBuilder(doc) {
  const edits = [];
  let eol;
  const builder = {
    replace: (loc, value) => edits.push({ range: loc instanceof Position ? new Range(loc, loc) : loc, newText: String(value) }),
    insert: (pos, value) => edits.push({ range: new Range(pos, pos), newText: String(value) }),
    delete: (loc) => edits.push({ range: loc, newText: '' }),
    setEndOfLine: (e) => { eol = e; },
  };
  const done = () => {
    if (eol !== undefined) {
      const want = eol === EndOfLine.CRLF ? '\r\n' : '\n';
      const text = doc.getText().replace(/\r\n|\r|\n/g, want);
      if (text !== doc.getText()) edits.push(TextEdit.replace(new Range(new Position(0, 0), doc.positionAt(1e15)), text));
    }
    return edits;
  };
  return { builder, done };
}

// expandSnippet turns snippet syntax into the text it inserts: tabstops
// vanish, placeholders and choices become their (first) value, variables
// their default or nothing.
function expandSnippet(s) {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && '$}\\,|'.includes(s[i + 1])) { out += s[++i]; continue; }
    if (c !== '$') { out += c; continue; }
    let m = /^\$(\d+)/.exec(s.slice(i)) || /^\$\{(\d+)\}/.exec(s.slice(i)) || /^\$[A-Za-z_]\w*/.exec(s.slice(i));
    if (m) { i += m[0].length - 1; continue; }
    m = /^\$\{(\d+)\|([^|]*)\|\}/.exec(s.slice(i));
    if (m) { out += m[2].split(',')[0]; i += m[0].length - 1; continue; }
    m = /^\$\{(?:\d+|[A-Za-z_]\w*):/.exec(s.slice(i));
    if (m) {
      // a placeholder: its default runs to the matching brace
      let depth = 1, j = i + m[0].length, inner = '';
      for (; j < s.length && depth > 0; j++) {
        if (s[j] === '\\' && j + 1 < s.length) { inner += s[j] + s[j + 1]; j++; continue; }
        if (s[j] === '{' && s[j - 1] === '$') depth++;
        if (s[j] === '}') { depth--; if (depth === 0) break; }
        inner += s[j];
      }
      out += expandSnippet(inner);
      i = j;
      continue;
    }
    out += c;
  }
  return out;
}

module.exports.TextDocument = TextDocument;
module.exports.TextEditor = TextEditor;
module.exports.toRange = toRange;
module.exports.rangeJSON = rangeJSON;
module.exports.posJSON = posJSON;
module.exports.expandSnippet = expandSnippet;
module.exports.editBuilder = editBuilder;
